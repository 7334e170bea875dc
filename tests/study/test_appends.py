"""Appends that survive a writer cut short: each file that every server process appends
to (``entries.jsonl``, ``attempts.log``, the revoked cookies) may end in half a line after
a crash; the next writer starts on a new line, so the record it writes is whole, and a
reader skips only the broken line and names it. The one reader of appended files
(:class:`tradeoff.study.tail.Tail`) says what a whole read says, whatever the size of its
pieces and wherever the writes stopped."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tradeoff.study.attempts import ATTEMPTS_FILE, recent_failures, record_failure
from tradeoff.study.entries import (
    EntryLog,
    admit,
    entries_path,
    read_entries,
    study_lock,
)
from tradeoff.study.folder import Study, create_study
from tradeoff.study.panel import Panel
from tradeoff.study.status import study_status
from tradeoff.study.tail import Tail, complete_lines
from tradeoff.web.revoked import REVOKED_FILE, Revoked

from ..conftest import small_scenario_file

pytestmark = pytest.mark.core

SALT = b"0123456789abcdef"
#: What a writer killed in the middle of an ``enrolled`` record leaves.
HALF = b'{"at": "2026-01-01T00:00:00+00:00", "event": "enrolled", "panel_id": "CUT", "pa'


def test_an_entry_after_a_half_line_is_whole_and_only_the_half_line_is_named(
    tmp_path: Path,
) -> None:
    panel = Panel("PID", (), SALT, cap=10)
    log = EntryLog(tmp_path)
    assert admit(panel, log, "before", {}).participant is not None
    with study_lock(tmp_path), entries_path(tmp_path).open("ab") as fh:
        fh.write(HALF)  # the writer dies here, holding the lock
    assert log.refresh().lines == 1  # the half line is not read while it may be written
    after = [admit(panel, log, f"after{i}", {}) for i in range(3)]
    assert all(a.participant is not None for a in after)
    for state in (read_entries(tmp_path), log.refresh()):
        assert set(state.people) == {
            panel.participant_of(i) for i in ("before", *map("after{}".format, range(3)))
        }
        assert state.bad_lines == [2]
    # the case: the one let in after the half line is on the roster
    assert read_entries(tmp_path).people[panel.participant_of("after0")].panel_id == "after0"
    problems = read_entries(tmp_path).problems(entries_path(tmp_path))
    assert len(problems) == 1 and problems[0].startswith(f"{entries_path(tmp_path)}: line 2:")


def test_the_study_status_names_the_broken_line(tmp_path: Path) -> None:
    study, _ = create_study(small_scenario_file(tmp_path), ["p01"], tmp_path / "study")
    path = entries_path(study.path)
    path.write_bytes(
        json.dumps({"event": "pilot", "participant": "pilot-000000000001", "at": "x"}).encode()
        + b"\n"
        + HALF
        + b"\n"
    )
    assert [p.split(": ")[1] for p in study_status(study).problems] == ["line 2"]


def test_a_wrong_code_after_a_half_line_counts_for_its_own_source(tmp_path: Path) -> None:
    study = Study.__new__(Study)
    object.__setattr__(study, "path", tmp_path)
    now = time.time()
    record_failure(study, now, "10.0.0.1")
    with (tmp_path / ATTEMPTS_FILE).open("ab") as fh:
        fh.write(f"{now:.3f} 10.0.".encode())  # cut short
    record_failure(study, now, "192.168.7.7")
    assert recent_failures(study, now, "192.168.7.7") == 1
    assert recent_failures(study, now, "10.0.0.1") == 1
    lines = (tmp_path / ATTEMPTS_FILE).read_bytes().splitlines()
    assert lines[-1] == f"{now:.3f} 192.168.7.7".encode()


def test_a_revocation_after_a_half_line_holds(tmp_path: Path) -> None:
    path = tmp_path / REVOKED_FILE
    first, second = "a" * 16, "b" * 16
    reader = Revoked(path, 3600)
    reader.add(first)
    with path.open("ab") as fh:
        fh.write(f"{int(time.time())} cccc".encode())  # cut short
    assert reader.has(first) and not reader.has("cccc")
    Revoked(path, 3600).add(second)
    for who in (reader, Revoked(path, 3600)):
        assert who.has(first) and who.has(second)
        assert not who.has("cccc" + "b" * 12)


@given(
    st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")), max_size=30),
    st.binary(max_size=30).map(lambda b: b.replace(b"\n", b"")),
    st.integers(1, 64),
    st.lists(st.integers(0, 400), max_size=6),
)
@settings(max_examples=150, deadline=None)
def test_the_tail_reads_what_a_whole_read_reads(
    tmp_path_factory: object, lines: list[bytes], rest: bytes, chunk: int, stops: list[int]
) -> None:
    """Written in bursts (cut anywhere, a look after each), the file reads, line by line
    and number by number, as a whole read of its complete lines (a line longer than a
    piece comes in several pieces, each a line of its own, as with a whole read of junk)."""
    folder = Path(tmp_path_factory.mktemp("tail"))  # type: ignore[attr-defined]
    path = folder / "log"
    data = b"".join(line + b"\n" for line in lines) + rest
    tail = Tail(path, chunk)
    seen: dict[int, bytes] = {}
    written = 0
    for stop in [*sorted(stops), len(data)]:
        stop = min(stop, len(data))
        with path.open("ab") as fh:
            fh.write(data[written:stop])
        written = max(written, stop)
        for piece in tail.pieces():
            for number, line in enumerate(piece.lines, piece.first):
                seen[number] = line
    assert sorted(seen) == list(range(1, len(seen) + 1))
    read = [seen[n] for n in sorted(seen)]
    if all(len(line) < chunk for line in [*lines, rest]):
        assert read == complete_lines(data)
    else:  # a line longer than a piece comes in pieces: its bytes are all there, in order
        assert b"".join(read).startswith(b"".join(lines))
