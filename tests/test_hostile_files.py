"""Reproductions of mistakes a user can make with files and folders: each a located error
(exit 2) or the right result, never a traceback."""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tradeoff.ask.scenario import load_scenario
from tradeoff.cli import main
from tradeoff.errors import InputError
from tradeoff.learn import Choice
from tradeoff.record.summary import summarise
from tradeoff.study.opening import start_session

from .conftest import ROOT

pytestmark = pytest.mark.e2e


def test_a_real_probability_session_reads_back_from_any_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The scenario names its probabilities file relative to itself; a session read from
    another working folder finds it beside the scenario it was recorded from."""
    monkeypatch.chdir(ROOT)
    rec = start_session(
        load_scenario("scenarios/breast-cancer-triage-real.toml"), "p01", tmp_path / "s"
    )
    for choice in (Choice.LEFT, Choice.RIGHT, Choice.LEFT):
        rec.answer(choice)
    monkeypatch.chdir(tmp_path)
    assert summarise(rec.path).answers == 3
    pool = str(ROOT / "scenarios" / "pools" / "breast-cancer.csv")
    scenario = str(ROOT / "scenarios" / "breast-cancer-triage-real.toml")
    assert main(["session", "show", str(rec.path)]) == 0
    assert main(["select", pool, "--scenario", scenario, "--session", str(rec.path)]) == 0
    assert "recommended" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("out", "says"),
    [
        ("/proc/tradeoff-report", "could not be written"),
        ("/dev/null", "is a file"),
        ("/dev/null/report", "lies below the file"),
    ],
)
def test_a_report_folder_that_cannot_be_written_is_a_located_error(
    capsys: pytest.CaptureFixture[str], out: str, says: str
) -> None:
    session = next((ROOT / "sessions" / "examples").glob("*/*.jsonl"))
    assert main(["report", "--session", str(session), "--out", out]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err


def test_a_report_folder_is_not_made_when_the_decision_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r"
    assert main(["report", "--session", str(tmp_path / "missing.jsonl"), "--out", str(out)]) == 2
    assert not out.exists()
    assert os.listdir(tmp_path) == []


def scenario_text(classes: int = 2, samples: int = 20_000, features: int = 10) -> str:
    parts = [
        'id = "big"\ntitle = "big"\n[population]\n'
        f"seed = 1\nsamples = {samples}\nfeatures = {features}\n"
    ]
    rows = ", ".join(f'{{name = "c{i}", label = "c{i}"}}' for i in range(classes))
    return "".join(parts).replace("[population]", f"classes = [{rows}]\n[population]")


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (scenario_text(classes=20_000), "at most 20 items"),
        (scenario_text(samples=50_000_000, features=1000), "more than 60,000,000 numbers"),
    ],
    ids=["20,000 classes", "50,000,000 samples of 1,000 features"],
)
def test_a_small_scenario_cannot_ask_for_a_huge_population(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, says: str
) -> None:
    path = tmp_path / "big.toml"
    path.write_text(text)
    assert path.stat().st_size < 1_500_000
    for argv in (["scenario", "check", str(path)], ["simulate", str(path)]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert says in err and str(path) in err and "Traceback" not in err


@pytest.mark.parametrize("kind", ["missing", "fifo", "folder"])
def test_scenario_check_reads_the_pool_it_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    text = (ROOT / "scenarios" / "breast-cancer-triage.toml").read_text()
    path = tmp_path / "s.toml"
    path.write_text(text)
    (tmp_path / "pools").mkdir()
    pool = tmp_path / "pools" / "breast-cancer.csv"
    if kind == "fifo":
        os.mkfifo(pool)
    elif kind == "folder":
        pool.mkdir()
    assert main(["scenario", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert "pool.path" in err and str(pool) in err
    assert ("is not there" if kind == "missing" else "is not a regular file") in err


def test_scenario_check_says_how_many_models_its_pool_holds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["scenario", "check", "breast-cancer-triage"]) == 0
    assert "pool read: 34 models" in capsys.readouterr().out


def header_edited(tmp_path: Path, change: object) -> Path:
    """A recorded session whose header line is changed and re-chained (as an attacker
    with the file would), so only the values are wrong."""
    import json

    from tradeoff.record.records import chain_hash

    rec = start_session(
        load_scenario(ROOT / "scenarios" / "breast-cancer-triage.toml"), "p01", tmp_path / "s"
    )
    rec.answer(Choice.LEFT)
    out: list[str] = []
    previous: str | None = None
    for number, line in enumerate(rec.path.read_text().splitlines()):
        record = json.loads(line)
        record.pop("chain")
        if number == 0:
            change(record)  # type: ignore[operator]
        content = json.dumps(record, ensure_ascii=False)
        previous = chain_hash(previous, content)
        out.append(content[:-1] + f', "chain": "{previous}"}}')
    path = tmp_path / "edited.jsonl"
    path.write_text("\n".join(out) + "\n")
    return path


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda h: h.update(budget=10**18), "budget"),
        (lambda h: h.update(candidates=[[0.5] * 1_000_000]), "candidates"),
        (lambda h: h.update(candidates=[[0.5, 0.5, 0.5]]), "does not have 4 numbers"),
    ],
)
def test_a_header_asking_for_absurd_work_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: object, says: str
) -> None:
    path = header_edited(tmp_path, change)
    assert main(["session", "show", str(path)]) == 2
    err = capsys.readouterr().err
    assert says in err and "line 1" in err and "Traceback" not in err


def test_an_input_error_leaving_a_with_block_stays_itself() -> None:
    """``contextlib`` assigns ``__traceback__`` as an error leaves a ``@contextmanager``
    block; a frozen dataclass refused that, so the person saw a FrozenInstanceError
    traceback instead of the located message."""

    @contextlib.contextmanager
    def held() -> Iterator[None]:
        yield

    with pytest.raises(InputError, match="row 3"), held():
        raise InputError.single("pool.csv", "row 3", "is empty.", "fill it in.")
    err = InputError.single("pool.csv", "row 3", "is empty.")
    with pytest.raises(dataclasses.FrozenInstanceError):
        err.source = "other.csv"  # type: ignore[misc]
