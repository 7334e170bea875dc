"""``attempts.log`` read as it grows by the one reader of appended files: a
:class:`~tradeoff.study.tail.Tail` that starts at the file's end (``from_end``) takes the
lines a whole read of those last bytes takes, and a server's view of the recent wrong
codes (:class:`~tradeoff.study.attempts.RecentFailures`) reads, per wrong code, only what
was appended since its last look."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tradeoff.study.attempts import (
    ATTEMPT_WINDOW,
    ATTEMPTS_FILE,
    ATTEMPTS_TAIL,
    RecentFailures,
    record_failure,
    wrong_code_delay,
)
from tradeoff.study.folder import Study
from tradeoff.study.tail import Tail

pytestmark = pytest.mark.core

NOW = 1_800_000_000.0


def bytes_read() -> int:
    """Bytes this process has read through system calls so far (Linux)."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar in /proc/self/io")


@given(
    st.lists(st.binary(min_size=1, max_size=12).map(lambda b: b.replace(b"\n", b"x")), max_size=30),
    st.lists(st.binary(min_size=1, max_size=12).map(lambda b: b.replace(b"\n", b"x")), max_size=10),
    st.integers(1, 120),
)
@settings(max_examples=150, deadline=None)
def test_a_tail_from_the_end_reads_the_lines_begun_in_the_last_bytes(
    tmp_path_factory: object, before: list[bytes], after: list[bytes], last: int
) -> None:
    folder = Path(tmp_path_factory.mktemp("tail"))  # type: ignore[attr-defined]
    path = folder / "log"
    data = b"".join(line + b"\n" for line in before)
    path.write_bytes(data)
    start = max(0, len(data) - last)
    # Brute force: every line that begins at or after ``start``.
    expected, at = [], 0
    for line in before:
        if at >= start:
            expected.append(line)
        at += len(line) + 1
    tail = Tail(path, 256, from_end=last)
    first = [line for piece in tail.pieces() for line in piece.lines]
    assert first == expected
    with path.open("ab") as fh:
        fh.write(b"".join(line + b"\n" for line in after))
    assert [line for piece in tail.pieces() for line in piece.lines] == after


def test_a_wrong_code_reads_only_what_was_appended_since_the_last(tmp_path: Path) -> None:
    folder = tmp_path / "study"
    folder.mkdir()
    study = Study(folder, "", "", b"", {}, "")
    log = folder / ATTEMPTS_FILE
    old = b"1000.000 198.51.100.1\n" * 40_000  # 880 kB of history (not yet rotated)
    recent = b"".join(f"{NOW - 100 + i:.3f} 192.0.2.{i % 3}\n".encode() for i in range(30))
    log.write_bytes(old + recent)
    view = RecentFailures(study)
    before = bytes_read()
    assert view.counts("192.0.2.1", NOW) == (10, 30)
    assert bytes_read() - before <= ATTEMPTS_TAIL + 512  # the log's end only (and /proc)
    record_failure(study, NOW, source="192.0.2.1")
    before = bytes_read()
    own, every = view.counts("192.0.2.1", NOW + 1)
    assert bytes_read() - before < 512  # the one line appended (and /proc), not the end
    # Cross-check: the same counts as a whole read of the file's lines.
    lines = [line.split(b" ") for line in log.read_bytes().splitlines()]
    window = [who for at, who in lines if NOW + 1 - float(at) < ATTEMPT_WINDOW]
    assert (own, every) == (window.count(b"192.0.2.1"), len(window)) == (11, 31)
    assert view.delay("192.0.2.1", NOW + 1) == wrong_code_delay(study, "192.0.2.1", NOW + 1) == 60
