"""The cap on people let in holds when many processes let people in at once, each under the
folder's lock (e2e: eight processes; the entries' own tests are in test_entries.py)."""

from __future__ import annotations

import json
import multiprocessing
import time
from pathlib import Path

import pytest

from tradeoff.study import entries
from tradeoff.study.entries import (
    entries_path,
    read_entries,
)

from .test_entries import _admit_many, open_panel

pytestmark = pytest.mark.e2e


def test_the_cap_holds_when_many_processes_let_people_in_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eight processes, started together, each try ten new ids (and two ids every process
    tries) against a cap of 25, each write held up 10 ms so that the others read the file
    meanwhile; every process reads and appends under the folder's lock. The file's own
    lines, counted independently, show exactly 25 people let in, each once, and each
    process's answers agree with the file (without the lock, the cap is overrun)."""
    real_append = entries.append_entry

    def slow_append(folder: Path, record: dict[str, object]) -> None:
        time.sleep(0.01)
        real_append(folder, record)

    monkeypatch.setattr(entries, "append_entry", slow_append)  # the children inherit it
    cap = 25
    shared = ["same-a", "same-b"]
    jobs = [[*shared, *(f"p{w}-{i}" for i in range(10))] for w in range(8)]
    context = multiprocessing.get_context("fork")
    queue: multiprocessing.Queue = context.Queue()  # type: ignore[type-arg]
    start = context.Barrier(len(jobs))
    workers = [
        context.Process(target=_admit_many, args=(str(tmp_path), cap, ids, queue, start))
        for ids in jobs
    ]
    for w in workers:
        w.start()
    answers = [queue.get(timeout=60) for _ in range(sum(map(len, jobs)))]
    for w in workers:
        w.join(timeout=60)
        assert w.exitcode == 0
    lines = [json.loads(line) for line in entries_path(tmp_path).read_text().splitlines()]
    enrolled = [r["panel_id"] for r in lines if r["event"] == "enrolled"]
    assert len(enrolled) == cap and len(set(enrolled)) == cap
    assert set(shared) <= set(enrolled)  # the first of each race got in
    let_in = {pid for pid, ok in answers if ok}
    assert let_in == set(enrolled)
    screened = [r for r in lines if r["event"] == "screened"]
    assert {r["reason"] for r in screened} == {"study full"}
    assert {r["panel_id"] for r in screened} == {pid for pid, ok in answers if not ok}
    assert read_entries(tmp_path).summary(open_panel(cap))["holding_a_place"] == cap
