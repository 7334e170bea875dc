"""The study commands around the web page: create with a consent text, status that says
who consented, export to CSV and Parquet (read back with pandas), serve's bad options."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pandas as pd
import pytest

from tradeoff.ask.scenario import load_scenario
from tradeoff.cli import main
from tradeoff.record.records import ConsentRecord, now
from tradeoff.study.folder import load_study
from tradeoff.study.opening import start_session

from ..conftest import small_scenario_file

pytestmark = pytest.mark.e2e


def create(tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    scenario = small_scenario_file(tmp_path, **{"budget = 30": "budget = 4"})
    code = main(
        [
            "study",
            "create",
            str(scenario),
            "--participants",
            "3",
            "--out",
            str(tmp_path / "s"),
            "--codes",
            str(tmp_path / "codes.csv"),
            *extra,
        ]
    )
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_consent_text_is_copied_hashed_and_versioned(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = tmp_path / "info.md"
    text.write_text("# Information\n\nYou may stop at any time.\n")
    code, out = create(tmp_path, capsys, "--consent", str(text), "--consent-version", "2026-11")
    assert code == 0, out
    assert "participants read and agree to" in out
    study = load_study(tmp_path / "s")
    assert study.consent_version == "2026-11" and study.consent_file == "consent.md"
    assert (tmp_path / "s" / "consent.md").read_text() == text.read_text()
    document = json.loads((tmp_path / "s" / "study.json").read_text())
    consent = document["consent"]
    assert (consent["file"], consent["version"]) == ("consent.md", "2026-11")
    # every version of the text, with its language and when it was added (study consent)
    assert [(v["file"], v["version"], v["language"]) for v in consent["versions"]] == [
        ("consent.md", "2026-11", None)
    ]
    assert "consent.md" in document["files"]
    # an edited consent text is refused like any edited copy
    (tmp_path / "s" / "consent.md").write_text("# Something else\n")
    assert main(["study", "status", str(tmp_path / "s")]) == 2
    assert "consent.md" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("content", "extra", "message"),
    [
        (None, (), "is not a file"),
        ("", (), "is empty"),
        (b"\xff\xfe bad", (), "is not UTF-8"),
        ("# ok\n", ("--consent-version", ""), "not a usable version"),
    ],
)
def test_bad_consent_is_refused_and_leaves_nothing(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    content: str | bytes | None,
    extra: tuple[str, ...],
    message: str,
) -> None:
    text = tmp_path / "info.md"
    if isinstance(content, bytes):
        text.write_bytes(content)
    elif content is not None:
        text.write_text(content)
    code, out = create(tmp_path, capsys, "--consent", str(text), *extra)
    assert code == 2 and message in out and "Traceback" not in out
    assert not (tmp_path / "s").exists() and not (tmp_path / "codes.csv").exists()


def test_status_counts_who_consented_and_export_round_trips(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = tmp_path / "info.md"
    text.write_text("# Information\n")
    assert create(tmp_path, capsys, "--consent", str(text))[0] == 0
    study = load_study(tmp_path / "s")
    loaded = load_scenario(study.scenario_path)
    consent = ConsentRecord(
        type="consent", version="1", text_sha256=study.files["consent.md"], at=now()
    )
    with start_session(
        loaded, "p01", study.sessions_dir, cache_dir=study.cache_dir, consent=consent
    ) as rec:
        while rec.engine.next_query() is not None:
            rec.answer("left", response_ms=1500.0)
        rec.finish()
    start_session(
        loaded, "p02", study.sessions_dir, cache_dir=study.cache_dir, consent=consent
    ).close()
    assert main(["study", "status", str(study.path), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["consented"] == 2
    states = {r["participant"]: r["state"] for r in status["rows"]}
    assert states == {"p01": "complete", "p02": "consented, no answer yet", "p03": "not started"}

    out = tmp_path / "answers.csv"
    assert main(["study", "export", str(study.path), "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "4 answers of 1 participant written" in said and "answers.csv.codebook.csv" in said
    frame = pd.read_csv(out)
    assert len(frame) == 4 and set(frame["participant"]) == {"p01"}
    assert (frame["answer"] == "A").all() and (frame["response_ms"] == 1500.0).all()
    codebook = pd.read_csv(tmp_path / "answers.csv.codebook.csv")
    assert list(codebook[codebook["table"] == "answers"]["column"]) == list(frame.columns)
    before = out.read_bytes()
    assert main(["study", "export", str(study.path), "--out", str(out)]) == 2
    assert "exists" in capsys.readouterr().err and out.read_bytes() == before
    parquet = tmp_path / "answers2.parquet"
    assert main(["study", "export", str(study.path), "--out", str(parquet), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["rows"] == 4
    again = pd.read_parquet(parquet)
    assert list(again.columns) == list(frame.columns) and len(again) == 4
    assert main(["study", "export", str(study.path), "--out", str(tmp_path / "x.txt")]) == 2
    assert ".csv or .parquet" in capsys.readouterr().err


def test_serve_refuses_bad_options_in_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert create(tmp_path, capsys)[0] == 0
    assert main(["study", "serve", str(tmp_path / "s"), "--workers", "0"]) == 2
    assert "--workers" in capsys.readouterr().err
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["study", "serve", str(tmp_path / "s"), "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert "cannot listen" in err and "Traceback" not in err
    assert main(["study", "serve", str(tmp_path / "nowhere")]) == 2
    assert "nowhere: does not exist" in capsys.readouterr().err
