"""The command line a newcomer reads: ``tradeoff --help`` by job, names of one form, the old
names and option spellings still working with a notice, ``--out`` meaning one thing, and one
parser that every way in uses."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tradeoff.cli import build_parser, main
from tradeoff.cli.layout import Commands

from ..conftest import ROOT

pytestmark = pytest.mark.core

POOL = "model,acc,latency\na,0.9,2.0\nb,0.8,1.0\nc,0.7,3.0\n"
OLD = {
    "select": "tradeoff pick",
    "rank": "tradeoff pool rank",
    "compare": "tradeoff judge compare",
    "gap": "tradeoff judge gap",
}


def top_commands() -> Commands:
    found = [a for a in build_parser()._actions if isinstance(a, Commands)]
    assert len(found) == 1
    return found[0]


def help_text(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    assert main([*argv, "--help"]) == 0
    out = capsys.readouterr()
    return out.out, out.err


def test_the_help_lists_the_commands_by_job_with_the_first_steps(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    text, err = help_text([], capsys)
    assert err == ""
    titles = re.findall(r"^(\S[^:\n]*):$", text, flags=re.M)
    assert titles[:5] == [
        "Ask a person",
        "Run a study",
        "Pick a model",
        "Judge and compare",
        "Tools",
    ]
    sections = dict(zip(titles, re.split(r"^\S[^:\n]*:$", text, flags=re.M)[1:], strict=True))
    listed = {t: re.findall(r"^  (\S+)  ", body, flags=re.M) for t, body in sections.items()}
    assert listed["Ask a person"] == ["elicit", "session"]
    assert listed["Run a study"] == ["study"]
    assert listed["Pick a model"] == ["pool", "pick", "report"]
    assert listed["Judge and compare"] == ["judge"]
    # Every command under exactly one section; the old names under none.
    commands = top_commands()
    named = [n for t in titles[:5] for n in listed[t]]
    assert sorted(named) == sorted(set(commands.choices) - set(commands.old_names))
    assert not set(named) & set(OLD)
    # The first three commands a newcomer types, and each fits 80 columns.
    steps = sections["first steps"]
    assert "tradeoff elicit" in steps
    assert "tradeoff study create" in steps and "--study" in steps
    assert "tradeoff pick --session" in steps
    assert max(len(line) for line in text.splitlines()) <= 80


def test_every_help_fits_80_columns(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    paths: list[list[str]] = []

    def walk(parser: object, path: list[str]) -> None:
        for action in getattr(parser, "_actions", []):
            if isinstance(action, Commands):
                for name, sub in action.choices.items():
                    if name not in action.old_names:
                        paths.append([*path, name])
                        walk(sub, [*path, name])

    walk(build_parser(), [])
    assert ["pick"] in paths and ["pool", "rank"] in paths and ["judge", "gap"] in paths
    for path in paths:
        text, _ = help_text(path, capsys)
        assert text.startswith(f"usage: tradeoff {' '.join(path)}")
        wide = [line for line in text.splitlines() if len(line) > 80]
        assert wide == [], path


@pytest.mark.parametrize(("old", "new"), OLD.items())
def test_an_old_name_runs_the_new_command_with_a_one_line_notice(
    old: str, new: str, capsys: pytest.CaptureFixture[str]
) -> None:
    text, err = help_text([old], capsys)
    assert text.startswith(f"usage: {new} ")
    said = f"tradeoff: 'tradeoff {old}' is now {new!r}"
    assert err == said + " (still accepted until the next release)\n"
    _, err = help_text(new.split()[1:], capsys)
    assert err == ""  # the new name says nothing


def test_an_old_name_keeps_stdout_one_json_document(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pool = tmp_path / "pool.csv"
    pool.write_text(POOL)
    args = [str(pool), "--objective", "acc:max", "--objective", "latency:min", "--json"]
    assert main(["pool", "rank", *args]) == 0
    new = capsys.readouterr()
    assert main(["rank", *args]) == 0
    old = capsys.readouterr()
    assert json.loads(old.out) == json.loads(new.out)
    assert new.err == ""
    assert old.err.count("\n") == 1 and "'tradeoff pool rank'" in old.err


def test_pick_is_the_command_that_picks_and_rank_says_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text, _ = help_text(["pick"], capsys)
    assert "usage: tradeoff pick [POOL] --session FILE" in text
    text, _ = help_text(["pool", "rank"], capsys)
    assert "use tradeoff pick" in text


def test_study_create_takes_the_new_folder_as_study_and_out_with_a_notice(
    capsys: pytest.CaptureFixture[str],
) -> None:
    parser = build_parser()
    args = parser.parse_args(["study", "create", "s.toml", "--participants", "3", "--study", "d"])
    assert args.study == "d"
    assert capsys.readouterr().err == ""
    args = parser.parse_args(["study", "create", "s.toml", "--participants", "3", "--out", "d"])
    assert args.study == "d"
    assert "'tradeoff study create --out' is now 'tradeoff study create --study'" in (
        capsys.readouterr().err
    )
    for argv in (["--study", "d", "--out", "e"], []):
        with pytest.raises(SystemExit):
            parser.parse_args(["study", "create", "s.toml", "--participants", "3", *argv])
        assert "--study" in capsys.readouterr().err


def test_pool_from_optuna_names_its_study_as_pick_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    parser = build_parser()
    base = ["pool", "from-optuna", "--storage", "sqlite:///x.db", "--out", "p.csv"]
    assert parser.parse_args([*base, "--optuna-study", "s"]).optuna_study == "s"
    assert capsys.readouterr().err == ""
    assert parser.parse_args([*base, "--study", "s"]).optuna_study == "s"
    assert "is now 'tradeoff pool from-optuna --optuna-study'" in capsys.readouterr().err
    pick = parser.parse_args(["pick", "--session", "f", "--optuna-study", "s"])
    assert pick.optuna_study == "s"


def test_out_is_always_the_file_or_folder_a_command_writes() -> None:
    """Each command's ``--out`` says what it writes (a folder: DIR; a file: its kind), and
    no option that names a study folder is spelt ``--out``."""
    seen = 0

    def walk(parser: object, path: tuple[str, ...]) -> None:
        nonlocal seen
        for action in getattr(parser, "_actions", []):
            if isinstance(action, Commands):
                for name, sub in action.choices.items():
                    if name not in action.old_names:
                        walk(sub, (*path, name))
            elif "--out" in action.option_strings and action.help != "==SUPPRESS==":
                seen += 1
                assert action.metavar in ("DIR", "POOL.csv", "PRED.csv", "FILE.csv|FILE.parquet"), (
                    path
                )
                assert "write" in str(action.help), path
                assert "study" not in str(action.help).split(), path

    walk(build_parser(), ())
    assert seen == 8


def test_the_parser_is_built_in_one_place() -> None:
    """Only the parser modules add commands or options; the command modules run them."""
    builders = {"parser.py", "parser_study.py", "parser_pick.py", "layout.py"}
    cli = ROOT / "src" / "tradeoff" / "cli"
    building = []
    for path in sorted(cli.glob("*.py")):
        if path.name in builders:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in (
                "add_parser",
                "add_argument",
                "add_subparsers",
                "add_argument_group",
                "add_mutually_exclusive_group",
            ):
                building.append(f"{path.name}:{node.lineno} {node.attr}")
    assert building == []


def test_python_m_tradeoff_parses_with_the_same_parser() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "tradeoff", "select", "--help"],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(ROOT / "src"), "COLUMNS": "80", "PATH": ""},
    )
    assert out.stdout.startswith("usage: tradeoff pick [POOL]")
    assert "'tradeoff select' is now 'tradeoff pick'" in out.stderr


def test_a_command_not_known_is_refused_naming_the_current_commands(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["selectt"]) == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'selectt'" in err and "'pick'" in err
    assert not any(f"'{old}'" in err for old in OLD)


@pytest.mark.parametrize(
    ("argv", "usage", "hint"),
    [
        (
            ["choices", "fit", "T.csv", "--scenario", "x", "--sessions-dri", "d"],
            "choices fit",
            "(did you mean --sessions-dir?)",
        ),
        (
            ["pick", "--sesion", "s.jsonl", "--tpo", "3"],
            "pick",
            "(--sesion: did you mean --session?; --tpo: did you mean --top?)",
        ),
        (["elicit", "--nonsense"], "elicit", None),
        (["--bogus"], None, None),
    ],
)
def test_a_mistyped_option_shows_its_commands_usage_and_the_option_meant(
    argv: list[str], usage: str | None, hint: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    """An option the command does not have: the command's own usage (not the top level's,
    which lists no option of it) and, where one is close, the option that was meant."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    prog = "tradeoff" + (f" {usage}" if usage else "")
    assert err.startswith(f"usage: {prog} ")
    assert f"{prog}: error: unrecognized arguments: " in err
    assert (hint in err) if hint else "did you mean" not in err
