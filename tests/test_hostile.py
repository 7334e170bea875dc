"""The project's own hostile corpus: bad scenarios, pools, conditions, sessions, options, ids.

Every case must end with exit code 2, a message on stderr that names the place (file, line
or row, field, or option), no traceback (no exception escapes ``main``), at most one JSON
document on stdout with ``--json``, and no file created outside the sessions folder. The
conditions that would run code if they were handed to Python or pandas point at a canary
file, which must never appear.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Callable
from pathlib import Path

import pytest

from tradeoff.cli import main
from tradeoff.elicitation import Choice
from tradeoff.opening import start_session
from tradeoff.scenario import load_scenario

from .conftest import SCENARIOS, small_scenario_file, spec

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


@case("scenario: a folder", "not found")
def _scenario_folder(tmp: Path) -> list[str]:
    return ["scenario", "check", str(tmp)]


# --------------------------------------------------------------------------------------
# Pools (tradeoff rank)
# --------------------------------------------------------------------------------------

POOLS: dict[str, tuple[str | bytes, list[str], str]] = {
    "binary garbage": (bytes(range(256)) * 4, RANK, "pool.csv"),
    "empty file": ("", RANK, "pool.csv"),
    "missing column": (POOL, ["--objective", "accuracy:max"], "column 'accuracy'"),
    "text in objective": ("model,acc\nm1,0.9\nm2,high\n", ["--objective", "acc:max"], "row"),
    "NaN value": ("model,acc\nm1,0.9\nm2,nan\nm3,1\n", ["--objective", "acc:max"], "rows 2"),
    "infinite value": ("model,acc\nm1,0.9\nm2,inf\nm3,1\n", ["--objective", "acc:max"], "row"),
    "duplicate names": ("model,acc\nm1,0.9\nm1,0.8\n", ["--objective", "acc:max"], "rows 1"),
    "one model": ("model,acc\nm1,0.9\n", ["--objective", "acc:max"], "at least 2"),
    "objective twice": (POOL, ["--objective", "acc:max", "--objective", "acc:min"], "twice"),
    "bad direction": (POOL, ["--objective", "acc:best"], "--objective"),
}

for _name, (_text, _args, _where) in POOLS.items():

    @case(f"pool: {_name}", _where)
    def _pool(tmp: Path, text: str | bytes = _text, args: list[str] = _args) -> list[str]:
        return ["rank", pool_file(tmp, text), *args, "--json"]  # type: ignore[arg-type]


@case("pool: a folder", "not found")
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


@case("session: a folder", "not found")
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
    "serve port out of range": (
        ["serve", "--port", "70000", "--sessions-dir", "{tmp}/s"],
        "--port",
    ),
    "serve bad host": (["serve", "--host", "no such host!", "--sessions-dir", "{tmp}/s"], "--host"),
    "serve busy port": (
        ["serve", "--port", "{busy}", "--sessions-dir", "{tmp}/s"],
        "cannot listen",
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
        values = {"tmp": str(tmp), "pool": pool_file(tmp), "busy": "0", "session": ""}
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
# The test
# --------------------------------------------------------------------------------------


def files_outside_sessions(tmp: Path) -> set[Path]:
    return {
        p
        for p in tmp.rglob("*")
        if p.is_file() and not {"s", "sessions"} & set(p.relative_to(tmp).parts)
    }


def test_corpus_is_large_enough() -> None:
    assert len(CASES) >= 120


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_input(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    build, fragment = CASES[name]
    monkeypatch.setattr("tradeoff.cli.app.has_terminal", lambda: "without a terminal" not in name)
    argv = build(tmp_path)
    with socket.socket() as busy:
        if "busy port" in name:
            busy.bind(("127.0.0.1", 0))
            busy.listen()
            argv = [str(busy.getsockname()[1]) if a == "0" else a for a in argv]
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


def test_broken_pipe_ends_quietly(tmp_path: Path) -> None:
    import subprocess
    import sys

    rows = "".join(f"m{i},{i / 1000},{i % 7}\n" for i in range(3000))
    path = pool_file(tmp_path, "model,acc,lat\n" + rows)
    command = [sys.executable, "-m", "tradeoff", "rank", path, *RANK, "--top", "3000"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.readline()
        proc.stdout.close()  # like `| head -1`
        err = proc.stderr.read().decode()
        code = proc.wait(timeout=120)
    assert err == "" and code == 0


def test_app_without_a_terminal_says_so_at_once(tmp_path: Path) -> None:
    import subprocess
    import sys

    run = subprocess.run(
        [sys.executable, "-m", "tradeoff", "elicit", "--sessions-dir", str(tmp_path / "s")],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2
    assert "needs a terminal" in run.stderr and "Traceback" not in run.stderr


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
