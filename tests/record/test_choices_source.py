"""A session made from choices recorded elsewhere names where they came from: its header
the file and the SHA-256 of its bytes, each answer its line, and ``session show`` (text and
JSON) both; a session answered here names none."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tradeoff.ask.scenario import load_scenario
from tradeoff.cli import main
from tradeoff.record.log import read_session
from tradeoff.record.records import AnswerRecord
from tradeoff.study.choices import fit_file, read_choices

from ..conftest import SCENARIOS
from ..learn.test_choices import train_file

pytestmark = pytest.mark.e2e


def test_a_fitted_session_names_its_file_and_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    loaded = load_scenario(SCENARIOS / "train-trips.toml")
    path = train_file(tmp_path, {"ana": "A", "bo": "B"})
    train = read_choices(path, loaded.scenario, answers=True)
    files = fit_file(loaded, train, tmp_path / "sessions")
    digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    for file, (person, rows) in zip(files, train.people().items(), strict=True):
        log = read_session(file)
        assert log.header.source is not None and log.header.participant == person
        assert log.header.source.file == str(path) and log.header.source.sha256 == digest
        lines = [e.source_line for e in log.events if isinstance(e, AnswerRecord)]
        assert lines == [r.line for r in rows]
    bo = [r.line for r in train.people()["bo"]]
    assert bo[0] > 2  # the second person's rows follow the first's
    assert main(["session", "show", str(files[1])]) == 0
    shown = capsys.readouterr().out
    said = f"read from {path} lines {bo[0]}–{bo[-1]} (SHA-256 {digest[:12]}…)"
    assert said in shown.replace("\n", " ")
    assert main(["session", "show", str(files[1]), "--json"]) == 0
    source = json.loads(capsys.readouterr().out)["source"]
    assert source == {"file": str(path), "sha256": digest, "lines": bo}


def test_a_session_answered_here_names_no_source(capsys: pytest.CaptureFixture[str]) -> None:
    example = sorted(Path("sessions").glob("**/*.jsonl"))[0]
    text = example.read_text(encoding="utf-8")
    assert '"source' not in text  # written as before the field existed
    assert main(["session", "show", str(example), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["source"] is None
    assert main(["session", "show", str(example)]) == 0
    assert "recorded elsewhere" not in capsys.readouterr().out
