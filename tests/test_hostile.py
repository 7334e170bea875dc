"""The project's own hostile corpus: bad scenarios, pools, conditions, sessions, options, ids.

Every case must end with exit code 2, a message on stderr that names the place (file, line
or row, field, or option), no traceback (no exception escapes ``main``), at most one JSON
document on stdout with ``--json``, and no file created outside the sessions folder. The
conditions that would run code if they were handed to Python or pandas point at a canary
file, which must never appear.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tradeoff.ask.scenario import load_scenario
from tradeoff.cli import main
from tradeoff.learn import Choice
from tradeoff.study.opening import start_session

from .conftest import SCENARIOS, small_scenario_file, spec

pytestmark = pytest.mark.core

POOL = "model,acc,lat,family\nm1,0.9,1.0,svm\nm2,0.8,2.0,tree\nm3,0.7,0.5,svm\n"
RANK = ["--objective", "acc:max", "--objective", "lat:min"]
GLAUCOMA = (SCENARIOS / "glaucoma-screening.toml").read_text()

# A case: (argv with {tmp}/{pool}/{canary}/... placeholders, or a builder; fragment of stderr)
Case = tuple[Callable[[Path], list[str]], str]
CASES: dict[str, Case] = {}


def case(name: str, fragment: str) -> Callable[[Callable[[Path], list[str]]], None]:
    def register(build: Callable[[Path], list[str]]) -> None:
        assert name not in CASES, name
        CASES[name] = (build, fragment)

    return register


def pool_file(tmp: Path, text: str = POOL, name: str = "pool.csv") -> str:
    path = tmp / name
    path.write_text(text) if isinstance(text, str) else path.write_bytes(text)
    return str(path)


# --------------------------------------------------------------------------------------
# Conditions (--where, --constraint): injection and everything outside the allow-list
# --------------------------------------------------------------------------------------

CONDITIONS = {
    "at-variable os.system": "@pd.io.common.os.system('touch {canary}')",
    "dunder mro": "acc.__class__.__mro__",
    "attribute of values": "acc.values.__class__",
    "import call": "__import__('os').system('touch {canary}')",
    "apply print": "acc.apply(print)",
    "subscript": "acc[0] > 1",
    "lambda": "lambda: 1",
    "walrus": "(x := 1)",
    "f-string": "f'{{acc}}' == 'x'",
    "comprehension": "[c for c in acc]",
    "dict": "{{'a': 1}} == 1",
    "conditional": "acc if acc else lat",
    "builtins name": "__builtins__",
    "at on right": "acc > @x",
    "str accessor": "family.str.len() > 1",
    "backtick method": "`acc`.sum() > 0",
    "open call": "open('/etc/passwd')",
    "eval call": "eval('1')",
    "startswith": "acc > 0.5 and model.str.startswith('m')",
    "bad syntax": "acc >>> 1",
    "unknown column": "nope > 1",
    "in column": "acc in lat",
    "text arithmetic": "acc > 'x' * 10**9",
    "deep nesting": "not (" * 100 + "acc > 1" + ")" * 100,
    "deep parentheses": "(" * 300 + "acc > 1" + ")" * 300,
    "too long": "acc > 0" + " and acc > 0" * 400,
    "control characters": "acc > 1\x1b]0;x\x07",
    "overflow": "acc ** 2 ** 1000000 > 1",
    "None": "acc == None",
    "bytes": "acc == b'x'",
    "complex": "acc == 1j",
    "ellipsis": "acc == ...",
    "starred": "*acc",
    "matmul": "acc @ lat",
    "not on text": "not model",
    "not a condition": "acc + 1",
    "globals": "globals()",
    "transpose": "acc.T",
    "getattr": "getattr(acc, 'x')",
    "debug name": "model == 'm1' or __debug__",
    "unclosed backtick": "`acc > 1",
    "system via dunder of frame": "__class__.__init__.__globals__",
    "set literal": "acc in {{1, 2}}",
    "list of names": "family in [model, 'svm']",
    "bare list": "[1, 2] == acc",
}

for _name, _expr in CONDITIONS.items():

    @case(f"where: {_name}", "--where")
    def _where(tmp: Path, expr: str = _expr) -> list[str]:
        return ["rank", pool_file(tmp), *RANK, "--where", expr.format(canary=tmp / "CANARY")]


for _name in ("at-variable os.system", "import call", "apply print", "dunder mro", "lambda"):

    @case(f"constraint: {_name}", "--constraint")
    def _constraint(tmp: Path, expr: str = CONDITIONS[_name]) -> list[str]:
        text = expr.format(canary=tmp / "CANARY")
        return ["rank", pool_file(tmp), *RANK, "--constraint", text, "--json"]


# --------------------------------------------------------------------------------------
# Scenarios (tradeoff scenario check)
# --------------------------------------------------------------------------------------


def scenario_with(tmp: Path, text: str | bytes, name: str = "bad.toml") -> str:
    path = tmp / name
    path.write_text(text) if isinstance(text, str) else path.write_bytes(text)
    return str(path)


def probabilities(tmp: Path, content: str | bytes) -> str:
    (tmp / "eta.csv").write_text(content) if isinstance(content, str) else (
        tmp / "eta.csv"
    ).write_bytes(content)
    text = GLAUCOMA.replace(
        'kind = "softmax-linear"\nfeatures = 10\nseed = 11',
        'kind = "probabilities"\npath = "eta.csv"',
    ).replace("prevalence = [0.1, 0.9]\n", "")
    return scenario_with(tmp, text)


SCENARIO_EDITS: dict[str, tuple[str, str, str]] = {
    "infinite weight range": ("seed = 11", "seed = 11\nweight_range = inf", "weight_range"),
    "huge range": ("range = [0.05, 0.60]", "range = [-1e308, 1e308]", "range"),
    "narrow range": ("range = [0.05, 0.60]", "range = [0.05, 0.05000000000000001]", "range"),
    "range width 1e-15": ("range = [0.05, 0.60]", "range = [0, 1e-15]", "range"),
    "format subscript": ('"${value:.2f} per scan"', '"{value[0]}"', "format"),
    "format huge width": ('"${value:.2f} per scan"', '"{value:>300000000}"', "format"),
    "format attribute": ('"${value:.2f} per scan"', '"{value.real}"', "format"),
    "format positional": ('"${value:.2f} per scan"', '"{0}"', "format"),
    "format conversion": ('"${value:.2f} per scan"', '"{value!r}"', "format"),
    "format nested": ('"${value:.2f} per scan"', '"{value:{value}}"', "format"),
    "format without value": ('"${value:.2f} per scan"', '"no field"', "format"),
    "format unclosed": ('"${value:.2f} per scan"', '"{value"', "format"),
    "format hides the range": ('"${value:.2f} per scan"', '"${value:.0f} per scan"', "format"),
    "recall range reversed": ("recall_range = [0.5, 1.0]", "recall_range = [0.9, 0.5]", "recall"),
    "unknown key": ("features = 10", "features = 10\nfeaturs = 3", "featurs"),
    "missing seed": ("seed = 11", "", "seed"),
    "negative seed": ("seed = 11", "seed = -1", "seed"),
    "too few samples": ("seed = 11", "seed = 11\nsamples = 10", "samples"),
    "prevalence sum": ("prevalence = [0.1, 0.9]", "prevalence = [0.2, 0.9]", "prevalence"),
    "duplicate class": ('name = "healthy"', 'name = "glaucoma"', "name"),
    "not TOML": ("[population]", "[population", "line"),
    "label with escapes": ('"glaucoma cases"', '"glaucoma\\u001b[2J cases"', "label"),
    "title with OSC": ('title = "Glaucoma', 'title = "\\u001b]0;owned\\u0007Glaucoma', "title"),
}

for _name, (_old, _new, _where) in SCENARIO_EDITS.items():

    @case(f"scenario: {_name}", _where)
    def _scenario(tmp: Path, old: str = _old, new: str = _new) -> list[str]:
        assert old in GLAUCOMA
        return ["scenario", "check", scenario_with(tmp, GLAUCOMA.replace(old, new, 1)), "--json"]


@case("scenario: probabilities binary garbage", "eta.csv")
def _eta_garbage(tmp: Path) -> list[str]:
    return ["scenario", "check", probabilities(tmp, bytes(range(256)) * 8)]


@case("scenario: probabilities rows not summing to 1", "rows")
def _eta_sum(tmp: Path) -> list[str]:
    return ["scenario", "check", probabilities(tmp, "glaucoma,healthy\n0.5,0.6\n0.2,0.8\n")]


@case("scenario: probabilities text values", "rows")
def _eta_text(tmp: Path) -> list[str]:
    return ["scenario", "check", probabilities(tmp, "glaucoma,healthy\nx,y\n0.2,0.8\n")]


@case("scenario: probabilities missing class column", "class columns")
def _eta_columns(tmp: Path) -> list[str]:
    return ["scenario", "check", probabilities(tmp, "a,b\n0.5,0.5\n0.2,0.8\n")]


@case("scenario: probabilities file missing", "population.path")
def _eta_missing(tmp: Path) -> list[str]:
    path = probabilities(tmp, "")
    (tmp / "eta.csv").unlink()
    return ["scenario", "check", path]


@case("scenario: deeply nested TOML", "bad.toml")
def _deep_toml(tmp: Path) -> list[str]:
    return ["scenario", "check", scenario_with(tmp, "a = " + "[" * 100_000 + "]" * 100_000)]


@case("scenario: not UTF-8", "UTF-8")
def _not_utf8(tmp: Path) -> list[str]:
    return ["scenario", "check", scenario_with(tmp, b"id = '\xff\xfe'")]


@case("scenario: a folder", "is a folder, not a file")
def _scenario_folder(tmp: Path) -> list[str]:
    return ["scenario", "check", str(tmp)]


# --------------------------------------------------------------------------------------
# Pools (tradeoff rank)
# --------------------------------------------------------------------------------------

POOLS: dict[str, tuple[str | bytes, list[str], str]] = {
    "binary garbage": (bytes(range(256)) * 4, RANK, "pool.csv"),
    "empty file": ("", RANK, "pool.csv"),
    "missing column": (POOL, ["--objective", "accuracy:max"], "column 'accuracy'"),
    "text in objective": ("model,acc\nm1,0.9\nm2,high\n", ["--objective", "acc:max"], "line 3"),
    "NaN value": ("model,acc\nm1,0.9\nm2,nan\nm3,1\n", ["--objective", "acc:max"], "line 3"),
    "infinite value": ("model,acc\nm1,0.9\nm2,inf\nm3,1\n", ["--objective", "acc:max"], "line 3"),
    "duplicate names": ("model,acc\nm1,0.9\nm1,0.8\n", ["--objective", "acc:max"], "lines 2 and 3"),
    "one model": ("model,acc\nm1,0.9\n", ["--objective", "acc:max"], "at least 2"),
    "objective twice": (POOL, ["--objective", "acc:max", "--objective", "acc:min"], "twice"),
    "bad direction": (POOL, ["--objective", "acc:best"], "--objective"),
}

for _name, (_text, _args, _where) in POOLS.items():

    @case(f"pool: {_name}", _where)
    def _pool(tmp: Path, text: str | bytes = _text, args: list[str] = _args) -> list[str]:
        return ["rank", pool_file(tmp, text), *args, "--json"]  # type: ignore[arg-type]


@case("pool: a folder", "is a folder, not a file")
def _pool_folder(tmp: Path) -> list[str]:
    return ["rank", str(tmp), *RANK]


@case("pool: missing file", "not found")
def _pool_missing(tmp: Path) -> list[str]:
    return ["rank", str(tmp / "none.csv"), *RANK]


# --------------------------------------------------------------------------------------
# Sessions (tradeoff session show): chained files edited, and unchained (older) files
# --------------------------------------------------------------------------------------


def session_lines(tmp: Path, chained: bool = True, answers: int = 3) -> tuple[Path, list[str]]:
    loaded = load_scenario(small_scenario_file(tmp))
    rec = start_session(loaded, "dr-lee", tmp / "sessions", spec=spec(loaded.scenario, budget=20))
    for choice in [Choice.LEFT, Choice.RIGHT, Choice.INDIFFERENT][:answers]:
        rec.answer(choice)
    rec.close()
    lines = rec.path.read_text().splitlines()
    if not chained:
        out = []
        for line in lines:
            data = json.loads(line)
            data.pop("chain")
            if data["type"] == "header":
                data["format"] = 1
            out.append(json.dumps(data))
        lines = out
    return rec.path, lines


def edited(
    chained: bool, change: Callable[[list[dict[str, object]]], None]
) -> Callable[[Path], list[str]]:
    def build(tmp: Path) -> list[str]:
        path, lines = session_lines(tmp, chained)
        records = [json.loads(line) for line in lines]
        change(records)
        path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
        return ["session", "show", str(path), "--json"]

    return build


def header(**values: object) -> Callable[[list[dict[str, object]]], None]:
    def change(records: list[dict[str, object]]) -> None:
        for key, value in values.items():
            if value is KeyError:
                records[0].pop(key)
            else:
                records[0][key] = value

    return change


def answer(line: int, **values: object) -> Callable[[list[dict[str, object]]], None]:
    def change(records: list[dict[str, object]]) -> None:
        for key, value in values.items():
            if value is KeyError:
                records[line - 1].pop(key)
            else:
                records[line - 1][key] = value

    return change


#: A result line as tradeoff writes it (ElicitationResult's fields).
RESULT = {
    "type": "result",
    "strategy": "bisection",
    "names": ["a", "b", "c", "d"],
    "weights": [0.25] * 4,
    "answers": 2,
    "complete": False,
}

SESSION_EDITS: dict[str, tuple[bool, Callable[[list[dict[str, object]]], None], str]] = {
    "chained: answer edited": (True, answer(3, choice="left"), "line 3"),
    "chained: header seed edited": (True, header(seed=5), "line 1"),
    "chained: line deleted": (True, lambda r: r.pop(2), "line 3"),
    "chained: lines swapped": (True, lambda r: r.insert(1, r.pop(2)), "line 2"),
    "chained: chain removed": (True, lambda r: r[2].pop("chain"), "line 3, field 'chain'"),
    "chained: line added": (True, lambda r: r.append({"type": "undo"}), "line 5"),
    "seed not an integer": (False, header(seed="x"), "field 'seed'"),
    "seed a fraction": (False, header(seed=1.5), "field 'seed'"),
    "seed negative": (False, header(seed=-1), "field 'seed'"),
    "budget text": (False, header(budget="ten"), "field 'budget'"),
    "budget zero": (False, header(budget=0), "field 'budget'"),
    "unknown strategy": (False, header(strategy="magic"), "field 'strategy'"),
    "scenario not TOML": (False, header(scenario_text="[[[", scenario_sha256="0" * 64), "line 1"),
    "scenario text edited": (False, header(scenario_text="id = 'x'"), "scenario_text"),
    "format unknown": (False, header(format=99), "field 'format'"),
    "participant with escapes": (False, header(participant="x\x1b]0;t\x07"), "participant"),
    "participant with dots": (False, header(participant="a..b"), "participant"),
    "participant missing": (False, header(participant=KeyError), "field 'participant'"),
    "choice maybe": (False, answer(2, choice="maybe"), "line 2, field 'choice'"),
    "answer without query": (False, answer(3, query=KeyError), "line 3, field 'query'"),
    "pair not integers": (False, answer(2, query={"pair": ["a", 1]}), "line 2, field 'query"),
    "extend negative": (False, lambda r: r.insert(2, {"type": "extend", "extra": -5}), "extra"),
    "unknown event": (False, lambda r: r.insert(2, {"type": "bogus"}), "line 3, field 'type'"),
    "result in the middle": (False, lambda r: r.insert(2, dict(RESULT)), "line 3: a result line"),
    "result weights text": (
        False,
        lambda r: r.append({**RESULT, "weights": "heavy"}),
        "line 5, field 'weights'",
    ),
    "result without names": (
        False,
        lambda r: r.append({k: v for k, v in RESULT.items() if k != "names"}),
        "line 5, field 'names'",
    ),
    "index negative": (False, answer(2, index=-3), "line 2, field 'index'"),
    "response time text": (False, answer(2, response_ms="slow"), "field 'response_ms'"),
}

for _name, (_chained, _change, _where) in SESSION_EDITS.items():
    CASES[f"session: {_name}"] = (edited(_chained, _change), _where)


@case("session: answer edited (unchained)", "line 3 (answer 2), field 'query'")
def _unchained_params(tmp: Path) -> list[str]:
    def change(records: list[dict[str, object]]) -> None:
        query = records[2]["query"]
        assert isinstance(query, dict)
        query["left"]["accuracies"][0] += 0.01

    return edited(False, change)(tmp)


@case("session: deeply nested header", "line 1")
def _deep_json(tmp: Path) -> list[str]:
    path = tmp / "s.jsonl"
    path.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    return ["session", "show", str(path), "--json"]


@case("session: a folder", "is a folder, not a file")
def _session_folder(tmp: Path) -> list[str]:
    return ["session", "show", str(tmp)]


# --------------------------------------------------------------------------------------
# Options
# --------------------------------------------------------------------------------------

SERVE_DIR = ["--sessions-dir", "{tmp}/s"]
K2 = str(SCENARIOS / "paper-k2-reward-cost.toml")
OPTIONS: dict[str, tuple[list[str], str]] = {
    "truth nan": (["simulate", K2, "--truth", "nan,0.2,0.3,0.5"], "--truth"),
    "truth inf": (["simulate", K2, "--truth", "inf,0.2,0.3,0.5"], "--truth"),
    "seed negative": (["simulate", K2, "--seed", "-1", "--json"], "--seed"),
    "seed huge": (["simulate", K2, "--seed", str(2**70)], "--seed"),
    "runs zero": (["simulate", K2, "--runs", "0"], "--runs"),
    "budget zero": (["simulate", K2, "--budget", "0"], "--budget"),
    "indifference nan": (["simulate", K2, "--indifference", "nan"], "--indifference"),
    "epsilon too big": (["simulate", K2, "--epsilon", "2"], "--epsilon"),
    "noise unknown": (["simulate", K2, "--noise", "bogus"], "--noise"),
    "strategy unknown": (["simulate", K2, "--strategy", "magic", "--json"], "strategy"),
    "p below 1": (["rank", "{pool}", *RANK, "--p", "0.5"], "--p"),
    "p nan": (["rank", "{pool}", *RANK, "--p", "nan"], "--p"),
    "top zero": (["rank", "{pool}", *RANK, "--top", "0"], "--top"),
    "weight nan": (["rank", "{pool}", *RANK, "--weight", "acc=nan"], "--weight"),
    "alpha alone": (["rank", "{pool}", *RANK, "--alpha", "0.5"], "--alpha-objective"),
    "alpha out of range": (
        ["rank", "{pool}", *RANK, "--alpha", "2", "--alpha-objective", "acc"],
        "--alpha",
    ),
    "sweep huge": (
        ["rank", "{pool}", *RANK, "--sweep", "100000000", "--alpha-objective", "acc", "--json"],
        "--sweep",
    ),
    "sweep one": (["rank", "{pool}", *RANK, "--sweep", "1", "--alpha-objective", "acc"], "--sweep"),
    "radar into a missing folder": (
        ["compare", "{pool}", "--system", "family", *RANK, "--radar", "{tmp}/no/r.png"],
        "--radar",
    ),
    "sigma nan": (["compare", "{pool}", "--system", "family", *RANK, "--sigma", "nan"], "--sigma"),
    "permutations zero": (
        ["compare", "{pool}", "--system", "family", *RANK, "--permutations", "0"],
        "--permutations",
    ),
    "select top zero": (["select", "{pool}", "--session", "{session}", "--top", "0"], "--top"),
    "report onto a file": (
        ["report", "{pool}", "--session", "{session}", "--out", "{pool}"],
        "--out",
    ),
    "elicit budget zero": (["elicit", "--budget", "0", "--sessions-dir", "{tmp}/s"], "--budget"),
    "elicit strategy unknown": (["elicit", "--strategy", "magic"], "strategy"),
    "elicit without a terminal": (["elicit", "--sessions-dir", "{tmp}/s"], "needs a terminal"),
    "sessions folder is a file": (["elicit", "--sessions-dir", "{pool}"], "is a file"),
    "sessions folder under a file": (["elicit", "--sessions-dir", "{pool}/s"], "cannot hold"),
}

for _name, (_argv, _where) in OPTIONS.items():

    @case(f"option: {_name}", _where)
    def _option(tmp: Path, argv: list[str] = _argv) -> list[str]:
        values = {"tmp": str(tmp), "pool": pool_file(tmp), "session": ""}
        if any("{session}" in a for a in argv):
            values["session"] = str(session_lines(tmp)[0])
        return [a.format(**values) for a in argv]


# --------------------------------------------------------------------------------------
# Participant ids
# --------------------------------------------------------------------------------------

IDS = ["../x", "a b", "", "-x", "a" * 65, "x\x1b[31m", ".hidden", "a..b", "ü-umlaut", "a/b"]
for _i, _id in enumerate(IDS):

    @case(f"id: {_id!r}", "participant id")
    def _participant(tmp: Path, pid: str = _id) -> list[str]:
        return ["elicit", f"--participant={pid}", "--sessions-dir", str(tmp / "s")]


# --------------------------------------------------------------------------------------
# More paths: invisible and format characters, overflowing literals, work implied by small
# files, study folders, outputs nobody can write
# --------------------------------------------------------------------------------------

MORE_CONDITIONS = {
    "zero-width space in a name": "a\u200bcc > 0.5",
    "zero-width joiner in a name": "ac\u200dc > 0.5",
    "right-to-left mark": "acc \u200f> 0.5",
    "right-to-left override": "acc > 0.5\u202e",
    "line separator": "acc\u2028> 0.5",
    "tag character": "acc > 0.5\U000e0041",
    "byte order mark": "\ufeffacc > 0.5",
    "arabic letter mark": "acc \u061c> 0.5",
    "power overflowing": "acc ** 99999999 > 1",
    "literal overflowing": "acc > 1e999999",
    "dangling and": "acc >= 0.5 and",
    "attribute real": "acc.real > 0",
    "bitwise not of a number": "~acc",
    "is None": "acc is None",
    "or with text": "acc > 0.5 or 'x'",
    "tuple comparison": "acc > (1, 2)",
    "list comparison": "acc > [1]",
    "None comparison": "acc > None",
    "text against number": "model > 1",
    "run-on comparisons": "acc > 9" * 3000,
    "semicolon": "acc > 0.5; lat < 1",
    "assignment": "acc = 1",
    "yield": "(yield acc)",
    "await": "await acc",
    "slice": "acc[1:2] > 0",
    "keyword argument": "abs(x=acc) > 0",
    "dunder class of text": "'x'.__class__",
    "chained attribute": "acc.values.tolist",
    "number with underscores overflowing": "acc > 1_0" * 2000,
    "hex float": "acc > 0x1p-1",
}

for _name, _expr in MORE_CONDITIONS.items():

    @case(f"where: {_name}", "--where")
    def _where_more(tmp: Path, expr: str = _expr) -> list[str]:
        return ["rank", pool_file(tmp), *RANK, "--where", expr]


for _name in ("zero-width space in a name", "tag character", "yield", "semicolon"):

    @case(f"constraint: {_name}", "--constraint")
    def _constraint_more(tmp: Path, expr: str = MORE_CONDITIONS[_name]) -> list[str]:
        return ["rank", pool_file(tmp), *RANK, "--constraint", expr, "--json"]


HEADER_WORK: dict[str, tuple[Callable[[list[dict[str, object]]], None], str]] = {
    "budget 10**18": (header(budget=10**18), "field 'budget'"),
    "budget 10**4 + 1": (header(budget=10_001), "field 'budget'"),
    "budget a fraction": (header(budget=1.5), "field 'budget'"),
    "budget true": (header(budget=True), "field 'budget'"),
    "candidate row 10**6 wide": (header(candidates=[[0.5] * 10**6]), "candidates"),
    "candidate row of 3 for 4 weights": (header(candidates=[[0.5] * 3]), "candidates"),
    "candidate not a number": (header(candidates=[["x"] * 4]), "candidates"),
    "candidates text": (header(candidates="many"), "candidates"),
    "candidates nested": (header(candidates=[[[0.5]] * 4]), "candidates"),
    "format 2**70": (header(format=2**70), "field 'format'"),
    "format text": (header(format="3"), "field 'format'"),
    "participant 10,000 characters": (header(participant="p" * 10_000), "participant"),
    "participant with a trailing newline": (header(participant="p05\n"), "participant"),
    "participant with a zero-width space": (header(participant="p\u200b01"), "participant"),
    "strategy a list": (header(strategy=["paper"]), "field 'strategy'"),
    "scenario hash short": (header(scenario_sha256="abc"), "scenario_sha256"),
    "scenario text missing": (header(scenario_text=KeyError), "field 'scenario_text'"),
    "header a list": (lambda r: r.__setitem__(0, [1, 2]), "line 1"),
    "header a number": (lambda r: r.__setitem__(0, 5), "line 1"),
    "choice null": (answer(2, choice=None), "field 'choice'"),
    "extend 10**18": (lambda r: r.insert(2, {"type": "extend", "extra": 10**18}), "extra"),
    "pair index 10**30": (answer(2, query={"pair": [10**30, 1]}), "line 2"),
}
for _name, (_change, _where) in HEADER_WORK.items():
    CASES[f"session: {_name}"] = (edited(False, _change), _where)


@case("session: a line in the middle cut short", "chain hash")
def _cut_mid_line(tmp: Path) -> list[str]:
    path, lines = session_lines(tmp)
    lines[2] = lines[2][: len(lines[2]) // 2]
    path.write_text("\n".join(lines) + "\n")
    return ["session", "show", str(path), "--json"]


@case("session: binary garbage", "line 1")
def _session_garbage(tmp: Path) -> list[str]:
    path = tmp / "g.jsonl"
    path.write_bytes(bytes(range(256)) * 40)
    return ["session", "show", str(path)]


@case("session: empty file", "empty")
def _session_empty(tmp: Path) -> list[str]:
    path = tmp / "e.jsonl"
    path.write_text("")
    return ["session", "show", str(path)]


BREAST = SCENARIOS / "breast-cancer-triage.toml"
BREAST_POOL = SCENARIOS / "pools" / "breast-cancer.csv"


def _many_classes(count: int) -> str:
    first = GLAUCOMA.index("\n[") + 1
    classes = ", ".join(f'{{name="c{k}",label="c",verb="finds"}}' for k in range(count))
    head = GLAUCOMA[: GLAUCOMA.index("[[classes]]")]
    tail = GLAUCOMA[GLAUCOMA.index("[[attributes]]") :]
    return GLAUCOMA[:first] + f"classes = [{classes}]\n" + head[first:] + tail


@case("scenario: 100,000 classes through simulate", "at most 1,000,000")
def _classes_simulate(tmp: Path) -> list[str]:
    return ["simulate", scenario_with(tmp, _many_classes(100_000), "many.toml"), "--runs", "1"]


@case("scenario: 21 classes", "classes")
def _classes_21(tmp: Path) -> list[str]:
    return ["scenario", "check", scenario_with(tmp, _many_classes(21), "c21.toml")]


@case("scenario: 21 attributes", "attributes")
def _attributes_21(tmp: Path) -> list[str]:
    block = GLAUCOMA[GLAUCOMA.index("[[attributes]]") :]
    block = block[: block.index("[[attributes]]", 1)]
    extra = "".join(block.replace('name = "cost"', f'name = "a{k}"') for k in range(21))
    return ["scenario", "check", scenario_with(tmp, GLAUCOMA + "\n" + extra, "a21.toml")]


@case("scenario: samples 5*10**7 and features 1000", "samples")
def _population_work(tmp: Path) -> list[str]:
    text = GLAUCOMA.replace("features = 10\n", "").replace(
        "seed = 11", "seed = 11\nsamples = 50000000\nfeatures = 1000"
    )
    return ["scenario", "check", scenario_with(tmp, text, "big.toml")]


@case("scenario: a 100,000-part dotted key", "bad.toml")
def _dotted_key(tmp: Path) -> list[str]:
    return ["scenario", "check", scenario_with(tmp, "a" + ".a" * 100_000 + " = 1\n")]


@case("scenario: 3 MB of comments", "bad.toml")
def _scenario_large(tmp: Path) -> list[str]:
    return ["scenario", "check", scenario_with(tmp, GLAUCOMA + "#" * 3_000_000 + "\n")]


def _breast_with_pool(tmp: Path, pool: str) -> str:
    text = BREAST.read_text()
    start = text.index("\npath = ", text.index("[pool]"))
    end = text.index("\n", start + 1)
    return scenario_with(tmp, text[:start] + f'\npath = "{pool}"' + text[end:], "breast.toml")


@case("scenario check: the pool is missing", "pool")
def _pool_missing(tmp: Path) -> list[str]:
    return ["scenario", "check", _breast_with_pool(tmp, "nowhere.csv")]


@case("scenario check: the pool is a FIFO", "pool")
def _pool_fifo(tmp: Path) -> list[str]:
    import os

    os.mkfifo(tmp / "pool.csv")
    return ["scenario", "check", _breast_with_pool(tmp, "pool.csv")]


@case("scenario check: the pool is a folder", "pool")
def _pool_folder(tmp: Path) -> list[str]:
    (tmp / "pools").mkdir()
    return ["scenario", "check", _breast_with_pool(tmp, "pools")]


@case("rank: no model passes the constraint (--scenario --metric)", "constraint")
def _rank_none(tmp: Path) -> list[str]:
    return [
        "rank", str(BREAST_POOL), "--scenario", str(BREAST), "--metric", "1,1,1,1",
        "--constraint", "latency_ms < 0",
    ]  # fmt: skip


@case("rank: metric with a weight too many", "--metric")
def _metric_long(tmp: Path) -> list[str]:
    return ["rank", str(BREAST_POOL), "--scenario", str(BREAST), "--metric", "1,1,1,1,1"]


@case("rank: metric all zero", "--metric")
def _metric_zero(tmp: Path) -> list[str]:
    return ["rank", str(BREAST_POOL), "--scenario", str(BREAST), "--metric", "0,0,0,0"]


@case("rank: metric negative", "--metric")
def _metric_negative(tmp: Path) -> list[str]:
    return ["rank", str(BREAST_POOL), "--scenario", str(BREAST), "--metric", "1,-1,0,0"]


OUTPUTS = {
    "report into /proc": "/proc/x",
    "report under /proc/self": "/proc/self/x/y",
    "report onto /dev/null": "/dev/null",
    "report under /dev/null": "/dev/null/r",
}
for _name, _out in OUTPUTS.items():

    @case(_name, "--out")
    def _report_out(tmp: Path, out: str = _out) -> list[str]:
        loaded = load_scenario(BREAST)
        rec = start_session(loaded, "p01", tmp / "sessions", spec=spec(loaded.scenario, budget=6))
        rec.answer(Choice.LEFT)
        rec.close()
        return ["report", str(BREAST_POOL), "--session", str(rec.path), "--out", out]


def _study(tmp: Path) -> Path:
    from tradeoff.study.folder import create_study

    study, _ = create_study(small_scenario_file(tmp), ["p01", "p02"], tmp / "study")
    return study.path


def _study_json(tmp: Path, change: Callable[[dict[str, object]], object]) -> list[str]:
    folder = _study(tmp)
    data = json.loads((folder / "study.json").read_text())
    replaced = change(data)
    text = replaced if isinstance(replaced, str) else json.dumps(data)
    (folder / "study.json").write_text(text)
    return ["study", "status", str(folder)]


STUDY_EDITS: dict[str, tuple[Callable[[dict[str, object]], object], str]] = {
    "version 99": (lambda d: d.__setitem__("version", 99), "version"),
    "version text": (lambda d: d.__setitem__("version", "2"), "version"),
    "not an object": (lambda d: "[1, 2, 3]", "study.json"),
    "nested 100,000 deep": (lambda d: "[" * 100_000 + "]" * 100_000, "study.json"),
    "not JSON": (lambda d: "{", "study.json"),
    "participants a number": (lambda d: d.__setitem__("participants", 5), "participants"),
    "salt missing": (lambda d: (d.pop("salt"), None)[1], "salt"),
    "salt not hex": (lambda d: d.__setitem__("salt", "zz"), "salt"),
    "a participant without a code hash": (
        lambda d: d.__setitem__("participants", [{"id": "p01"}]),
        "participants",
    ),
    "scenario hash missing": (
        lambda d: (d.pop("scenario_sha256"), None)[1],
        "scenario_sha256",
    ),
}
for _name, (_change, _where) in STUDY_EDITS.items():

    @case(f"study.json: {_name}", _where)
    def _study_edit(
        tmp: Path, change: Callable[[dict[str, object]], object] = _change
    ) -> list[str]:
        return _study_json(tmp, change)


@case("study: the pool copy is edited", "changed")
def _study_pool_edited(tmp: Path) -> list[str]:
    from tradeoff.study.folder import create_study

    scenario = SCENARIOS / "breast-cancer-triage.toml"
    study, _ = create_study(scenario, ["p01"], tmp / "study")
    for copy in (study.path / "pools").glob("*.csv"):
        copy.write_text(copy.read_text().replace("0.9", "0.8", 1))
    return ["study", "report", str(study.path), "--out", str(tmp / "r")]


@case("study: the scenario copy is edited", "changed")
def _study_scenario_edited(tmp: Path) -> list[str]:
    folder = _study(tmp)
    copy = folder / "scenario.toml"
    copy.write_text(copy.read_text() + "\n# edited\n")
    return ["study", "status", str(folder)]


@case("study create: participants ²", "--participants")
def _participants_superscript(tmp: Path) -> list[str]:
    return ["study", "create", str(small_scenario_file(tmp)), "--participants", "²", "--out",
            str(tmp / "st")]  # fmt: skip


@case("study create: participants a 5,000-digit number", "--participants")
def _participants_huge(tmp: Path) -> list[str]:
    return ["study", "create", str(small_scenario_file(tmp)), "--participants", "9" * 5000,
            "--out", str(tmp / "st")]  # fmt: skip


@case("study create: out under /proc", "/proc/x/study")
def _study_out_proc(tmp: Path) -> list[str]:
    return ["study", "create", str(small_scenario_file(tmp)), "--participants", "2", "--out",
            "/proc/x/study"]  # fmt: skip


@case("study create: codes into a dangling symlink", "link.csv")
def _codes_dangling(tmp: Path) -> list[str]:
    (tmp / "link.csv").symlink_to(tmp / "nowhere" / "codes.csv")
    return ["study", "create", str(small_scenario_file(tmp)), "--participants", "2", "--out",
            str(tmp / "st"), "--codes", str(tmp / "link.csv")]  # fmt: skip


@case("study status: no such study", "study")
def _status_missing(tmp: Path) -> list[str]:
    return ["study", "status", str(tmp / "nowhere")]


IDS += ["p05\n", "p\u200b01", "p01\u202e", "\ufeffp01", "p\u061c01", "p01\U000e0041"]
IDS += ["p01\u2028", "p\u200d01", "p\u200f01", "p01\x00", "CON:", "p01\\x", "~p01", "p01;rm"]
for _id in IDS[-14:]:

    @case(f"id: {_id!r}", "participant id")
    def _participant_more(tmp: Path, pid: str = _id) -> list[str]:
        return ["elicit", f"--participant={pid}", "--sessions-dir", str(tmp / "s")]


# --------------------------------------------------------------------------------------
# The test
# --------------------------------------------------------------------------------------


def files_outside_sessions(tmp: Path) -> set[Path]:
    return {
        p
        for p in tmp.rglob("*")
        if p.is_file() and not {"s", "sessions"} & set(p.relative_to(tmp).parts)
    }


def test_corpus_is_large_enough() -> None:
    assert len(CASES) >= 250


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_input(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    build, fragment = CASES[name]
    monkeypatch.setattr("tradeoff.cli.app.has_terminal", lambda: "without a terminal" not in name)
    argv = build(tmp_path)
    capsys.readouterr()
    before = files_outside_sessions(tmp_path)
    code = main(argv)  # an exception escaping here is a traceback
    out, err = capsys.readouterr()
    assert code == 2, (code, err)
    assert fragment in err, err
    assert "Traceback" not in err and "\x1b" not in err
    if "--json" in argv:
        assert out == "" or isinstance(json.loads(out), dict)
    else:
        assert out == ""
    assert not (tmp_path / "CANARY").exists()
    assert files_outside_sessions(tmp_path) == before


# --------------------------------------------------------------------------------------
# Output that reaches a terminal, pipes, and a missing terminal
# --------------------------------------------------------------------------------------


def test_names_from_files_reach_the_terminal_without_escapes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    crafted = "model,acc,lat\nm\x1b]0;owned\x07one,0.9,1\nm\x1b[2Jtwo,0.8,2\nm3,0.7,0.5\n"
    path = pool_file(tmp_path, crafted)
    assert main(["rank", path, *RANK]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "m?]0;owned?one" in out and "control characters" in out
    assert main(["rank", path, *RANK, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {r["name"] for r in data["ranking"]} >= {"m?[2Jtwo"}


def test_conditions_never_reach_pandas_query_or_eval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Valid conditions work with pandas' query and eval made unusable: they are parsed by
    the allow-list and evaluated by tradeoff, never handed to pandas' expression engine."""
    import pandas as pd

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("pandas query/eval reached")

    monkeypatch.setattr(pd.DataFrame, "query", refuse)
    monkeypatch.setattr(pd.DataFrame, "eval", refuse)
    monkeypatch.setattr(pd, "eval", refuse)
    argv = ["rank", pool_file(tmp_path), *RANK, "--where", "family in ['svm', 'tree']"]
    argv += ["--constraint", "acc >= 0.75 and `lat` <= 2", "--json"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["n"] == 3 and data["selectable"] == 2
