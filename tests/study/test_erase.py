"""Erasure on request (``study erase``): the participant is gone from every file of the
study, nothing else changes, a hash-chained tombstone stays, and every reader says so."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tradeoff.cli import main
from tradeoff.errors import InputError
from tradeoff.record.log import read_session
from tradeoff.study.counted import stored_key
from tradeoff.study.entries import EntryLog, new_pilot, remove_pilots
from tradeoff.study.erase import erase, kept_lines
from tradeoff.study.erasures import ERASURES_FILE, read_erasures
from tradeoff.study.export import export_study
from tradeoff.study.folder import load_study
from tradeoff.study.report import study_sessions
from tradeoff.study.status import study_status
from tradeoff.study.withdrawals import certain_withdrawals

from .erasing import A1, B2, Made, make_study, snapshot

pytestmark = pytest.mark.core


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Made:
    return make_study(tmp_path_factory.mktemp("erase"))


@pytest.fixture
def made(built: Made, tmp_path: Path) -> Made:
    """A copy of the study of its own for each test."""
    shutil.copytree(built.study.path, tmp_path / "s", symlinks=True)
    return Made(load_study(tmp_path / "s"), built.codes, built.a1, built.b2)


def _lines(data: bytes, *leave_out: str) -> list[bytes]:
    return [
        line
        for line in data.splitlines(keepends=True)
        if not any(x in line.decode() for x in leave_out)
    ]


def test_the_participant_leaves_every_file_and_every_other_line_stays_byte_for_byte(
    made: Made,
) -> None:
    root = made.study.path
    before = snapshot(root)
    tombstone = erase(root, made.a1, requested_by="the participant, by e-mail")
    after = snapshot(root)
    # their panel id and their id are nowhere in the study but the tombstone
    for path, data in after.items():
        assert A1.encode() not in data, path
        assert (made.a1.encode() in data) == (path == ERASURES_FILE), path
    assert not (root / "sessions" / made.a1).exists()
    # every other line of each shared file, and every other session file, as it was
    for name in ("entries.jsonl", "withdrawals.jsonl", "panel-ids.txt"):
        assert after[name].splitlines(keepends=True) == _lines(before[name], made.a1, A1)
    others = {p: d for p, d in before.items() if p.startswith("sessions/") and made.a1 not in p}
    assert others and all(after[p] == d for p, d in others.items())
    for path in others:
        read_session(root / path)  # still verifies
    old, new = json.loads(before["study.json"]), json.loads(after["study.json"])
    assert new["participants"] == old["participants"]  # A1 had no access code
    assert new["files"]["panel-ids.txt"] != old["files"]["panel-ids.txt"]
    study = load_study(root)  # the allow-list's new hash checks
    assert made.a1 not in study.participants and study.panel_ids == {made.b2: B2}
    assert certain_withdrawals(study) == {"p02": certain_withdrawals(made.study)["p02"]}
    # the tombstone: what, when, whose request, no content
    read = read_erasures(root)
    assert read.problems == () and list(read.by_participant) == [made.a1]
    assert tombstone["answers"] == 3 and tombstone["requested_by"].startswith("the participant")
    assert set(tombstone["removed"]) == {
        "entries.jsonl",
        "withdrawals.jsonl",
        "panel-ids.txt",
        f"sessions/{made.a1}/",
    }
    assert tombstone["removed"]["entries.jsonl"] == {"lines": 2}


def test_an_erased_code_opens_nothing_and_study_json_keeps_no_hash(made: Made) -> None:
    root = made.study.path
    assert made.study.participant_for(made.codes["p01"]) == "p01"
    hashed = made.study.participants["p01"]
    study_status(made.study)  # what p01's session file says is kept in the user's cache
    (session,) = (made.study.sessions_dir / "p01").glob("*.jsonl")
    kept = (
        Path(os.environ["TRADEOFF_CACHE_DIR"])
        / f"facts-{stored_key(session, made.study, 'p01')}.json"
    )
    assert kept.is_file()
    erase(root, "p01")
    assert not kept.exists()
    study = load_study(root)
    assert study.participant_for(made.codes["p01"]) is None
    assert "p01" not in study.participants and hashed not in (root / "study.json").read_text()
    assert study.participant_for(made.codes["p03"]) == "p03"  # the others still open


def test_every_reader_says_the_participant_was_erased(made: Made, tmp_path: Path) -> None:
    root = made.study.path
    erase(root, "p01", requested_by="the ethics board")
    erase(root, made.a1)
    status = study_status(load_study(root))
    rows = {r.participant: r for r in status.rows}
    assert rows["p01"].state == rows[made.a1].state == "erased"
    assert "the ethics board" in rows["p01"].note and rows["p01"].answers == 0
    data = status.to_dict()
    assert data["erased"] == 2 and data["complete"] == 1  # p02 (withdrawn); p01 and A1 erased
    assert [r["state"] for r in data["rows"] if r["erased"]] == ["erased", "erased"]
    assert ("p01", "erased") in status.missing()
    left_out = dict(study_sessions(root).left_out)
    assert left_out["p01"].startswith("erased on request (the ethics board)")
    summary = export_study(load_study(root), tmp_path / "out.csv")
    assert summary.erased == ("p01", made.a1) and summary.to_dict()["erased"] == ["p01", made.a1]
    people = pd.read_csv(tmp_path / "out.participants.csv").set_index("participant")
    assert list(people.loc[["p01", made.a1], "state"]) == ["erased", "erased"]
    assert people.loc["p01"].drop("state").isna().sum() >= 10  # nothing else in the row
    assert people.loc["p01", "questions_answered"] == 0
    codebook = (tmp_path / "out.csv.codebook.md").read_text()
    assert "'erased'" in codebook
    assert summary.rows == 0  # no answer of theirs, and p02 withdrew


def test_the_command_line_erases_by_panel_id_and_refuses_bad_requests(
    made: Made, capsys: pytest.CaptureFixture[str]
) -> None:
    root = str(made.study.path)
    assert main(["study", "erase", root, "p01"]) == 2
    err = capsys.readouterr().err
    assert "--yes" in err and "Traceback" not in err
    assert (made.study.sessions_dir / "p01").is_dir()  # nothing done without --yes
    assert main(["study", "erase", root, "nobody", "--yes"]) == 2
    assert "no participant 'nobody'" in capsys.readouterr().err
    assert main(["study", "erase", root, "p01", "--yes", "--requested-by", "\x1b[2J"]) == 2
    assert "--requested-by" in capsys.readouterr().err
    assert main(["study", "erase", root, A1, "--yes", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["participant"] == made.a1
    assert main(["study", "erase", root, made.a1, "--yes"]) == 2
    err = capsys.readouterr().err
    assert "erased already" in err and "Traceback" not in err
    assert main(["study", "status", root]) == 0
    assert "1 erased" in capsys.readouterr().out


def test_an_edited_tombstone_is_named_and_no_tombstone_is_added_after_it(made: Made) -> None:
    root = made.study.path
    erase(root, "p01")
    erase(root, "p03")
    path = root / ERASURES_FILE
    lines = path.read_text().splitlines(keepends=True)
    path.write_text(lines[0].replace("the participant", "nobody at all") + lines[1])
    read = read_erasures(root)
    assert [p.location for p in read.problems] == ["line 1"]
    assert "p03" in read.by_participant  # the line after it still reads, checked against it
    assert any("erasures.jsonl: line 1" in p for p in study_status(load_study(root)).problems)
    with pytest.raises(InputError, match="line 1"):
        erase(root, made.a1)
    assert (root / "sessions" / made.a1).is_dir()


def test_the_last_id_of_an_allow_list_and_a_pilot_moved_aside_are_erased_too(made: Made) -> None:
    root = made.study.path
    erase(root, made.a1)
    erase(root, made.b2)
    text = (root / "panel-ids.txt").read_text()
    assert A1 not in text and B2 not in text and text.startswith("#")
    assert load_study(root).panel_ids == {}  # an allow-list left empty still reads
    pilot = "pilot-00000000000a"
    assert new_pilot(EntryLog(root), pilot)
    (made.study.sessions_dir / pilot).mkdir()
    (made.study.sessions_dir / pilot / "x.jsonl").write_text('{"type": "answer"}\n')
    moved_to, _ = remove_pilots(root, {pilot})
    tombstone = erase(root, pilot)
    assert not (moved_to / pilot).exists() and tombstone["answers"] == 1
    assert f"{moved_to.relative_to(root).as_posix()}/{pilot}/" in tombstone["removed"]
    assert pilot.encode() not in (root / "entries.jsonl").read_bytes()


_LINE = st.one_of(
    st.builds(
        lambda p, e: json.dumps({"event": e, "participant": p, "at": "t"}) + "\n",
        st.sampled_from(["p01", "p02", "panel-x"]),
        st.sampled_from(["enrolled", "started", "declined"]),
    ),
    st.text(alphabet='{}ab"p01 :', max_size=12).map(lambda t: t + "\n"),  # junk, cut lines
)


@given(st.lists(_LINE, max_size=30), st.booleans())
def test_only_the_participants_lines_go_every_other_stays_byte_for_byte(
    lines: list[str], cut: bool
) -> None:
    data = "".join(lines).encode()
    if cut and data:
        data = data[:-1]  # a last line cut short by a crash stays as it was
    kept, removed = kept_lines(data, lambda r: r.get("participant") == "p01")
    theirs = [
        line
        for line in data.splitlines(keepends=True)
        if line.startswith(b'{"event"') and b'"participant": "p01"' in line
    ]
    assert removed == len(theirs)
    assert kept == b"".join(line for line in data.splitlines(keepends=True) if line not in theirs)
