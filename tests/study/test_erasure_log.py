"""A server process's view of ``erasures.jsonl``
(:class:`~tradeoff.study.erasures.ErasureLog`): it names whom :func:`read_erasures` names
after every erasure (the file replaced whole with one line more, as ``study erase`` writes
it), a look when nothing changed opens no file, and a tombstone whose chain does not
verify still refuses its participant."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tradeoff.study import tail
from tradeoff.study.erasures import ErasureLog, erased, erasures_path, tombstone_line
from tradeoff.study.files import replace_atomically

pytestmark = pytest.mark.core


def tombstone(participant: str, n: int) -> dict[str, Any]:
    return {
        "participant": participant,
        "time": f"2026-03-{n % 28 + 1:02d}T09:00:00+00:00",
        "requested_by": "the participant",
        "removed": {},
        "answers": n,
    }


def add(folder: Path, record: dict[str, Any], chain: str | None) -> str:
    """One erasure as ``study erase`` writes it: the file replaced whole, one line more."""
    path = erasures_path(folder)
    old = path.read_bytes() if path.exists() else b""
    chain, line = tombstone_line(chain, record)
    replace_atomically(path, old + line, 0o644)
    return chain


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=1, max_size=12, unique=True))
def test_it_names_whom_the_full_reader_names_after_every_erasure(
    tmp_path_factory: pytest.TempPathFactory, numbers: list[int]
) -> None:
    folder = tmp_path_factory.mktemp("study")
    log = ErasureLog(folder)
    everyone = [f"p{n:02d}" for n in range(31)]
    chain = None
    for n in numbers:
        chain = add(folder, tombstone(f"p{n:02d}", n), chain)
        full = erased(folder)
        seen = {p: log.erased_on(p) for p in everyone}
        assert {p for p, when in seen.items() if when is not None} == set(full)
        assert all(seen[p] == full[p].time for p in full)
        assert log.unverified == []


def test_a_look_when_nothing_changed_opens_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chain = add(tmp_path, tombstone("p01", 1), None)
    log = ErasureLog(tmp_path)
    assert log.erased_on("p01") is not None
    opened: list[Path] = []
    real = tail.open_regular

    def counting(path: Path, *args: Any) -> int:
        opened.append(path)
        return real(path, *args)

    monkeypatch.setattr(tail, "open_regular", counting)
    for _ in range(50):
        assert log.erased_on("p02") is None
    assert opened == []
    add(tmp_path, tombstone("p02", 2), chain)
    assert log.erased_on("p02") is not None and log.erased_on("p01") is not None
    assert len(opened) == 1  # read once again, after the erasure


def test_a_tombstone_that_does_not_verify_still_refuses(tmp_path: Path) -> None:
    chain = add(tmp_path, tombstone("p01", 1), None)
    add(tmp_path, tombstone("p02", 2), chain)
    path = erasures_path(tmp_path)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(lines[0] + lines[1].replace(b'"answers": 2', b'"answers": 3'))
    log = ErasureLog(tmp_path)
    assert log.erased_on("p02") == "2026-03-03T09:00:00+00:00"
    assert log.unverified == [2]
    assert "p02" not in erased(tmp_path)  # the full reader names the line instead


def test_no_file_and_a_removed_file_name_no_one(tmp_path: Path) -> None:
    log = ErasureLog(tmp_path)
    assert log.erased_on("p01") is None
    add(tmp_path, tombstone("p01", 1), None)
    assert log.erased_on("p01") is not None
    erasures_path(tmp_path).unlink()
    assert log.erased_on("p01") is None
