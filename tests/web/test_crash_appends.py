"""A writer of ``entries.jsonl`` killed in the middle of a line, for real (a process
holding the study's lock, ``SIGKILL``-ed after half a line), while other processes let
people in: no later record is lost, and everyone let in after the half line keeps a
working session (the issue's case: their ``enrolled`` record was glued to the half line,
and their cookie stopped working mid-session)."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tradeoff.study.entries import EntryLog, admit, entries_path, read_entries
from tradeoff.study.panel import Panel

from ..conftest import ROOT
from ..webclient import Participant
from .test_web_panel import link, panel_study
from .test_web_processes import start, stop

pytestmark = pytest.mark.e2e

SALT = b"0123456789abcdef"
#: A process that takes the study's lock, writes half an ``enrolled`` record and waits to
#: be killed.
KILLED_WRITER = """
import os, sys, time
from pathlib import Path
from tradeoff.study.entries import entries_path, study_lock
folder = Path(sys.argv[1])
with study_lock(folder):
    fd = os.open(entries_path(folder), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, b'{"at": "2026-01-01T00:00:00+00:00", "event": "enrolled", "panel_id": "CU')
    print("written", flush=True)
    time.sleep(120)
"""


def kill_a_writer_mid_line(folder: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    writer = subprocess.Popen(
        [sys.executable, "-c", KILLED_WRITER, str(folder)],
        stdout=subprocess.PIPE,
        env=env,
    )
    assert writer.stdout is not None
    assert writer.stdout.readline() == b"written\n"
    writer.send_signal(signal.SIGKILL)
    writer.wait(timeout=30)
    assert not entries_path(folder).read_bytes().endswith(b"\n")


def _admit(folder: str, ids: list[str], out: Any, go: Any) -> None:
    log = EntryLog(Path(folder))
    panel = Panel("PID", (), SALT, cap=100)
    go.wait()
    for pid in ids:
        out.put((pid, admit(panel, log, pid, {}).participant))


def test_two_processes_appending_after_a_writer_killed_mid_line_lose_nothing(
    tmp_path: Path,
) -> None:
    panel = Panel("PID", (), SALT, cap=100)
    assert admit(panel, EntryLog(tmp_path), "first", {}).participant is not None
    kill_a_writer_mid_line(tmp_path)
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    go = context.Barrier(2)
    jobs = [[f"w{w}-{i}" for i in range(15)] for w in range(2)]
    workers = [context.Process(target=_admit, args=(str(tmp_path), ids, queue, go)) for ids in jobs]
    for w in workers:
        w.start()
    let_in = [queue.get(timeout=60) for _ in range(30)]
    for w in workers:
        w.join(timeout=60)
        assert w.exitcode == 0
    assert all(pid is not None for _, pid in let_in)
    state = read_entries(tmp_path)
    assert set(state.people) == {
        panel.participant_of(i) for i in ["first", *(i for ids in jobs for i in ids)]
    }
    assert state.bad_lines == [2]  # the half line, and nothing else
    assert EntryLog(tmp_path).refresh().bad_lines == [2]


async def test_people_let_in_by_two_workers_after_a_half_line_keep_their_sessions(
    tmp_path: Path,
) -> None:
    study = panel_study(tmp_path, cap=40)
    server, base = start(study, "--workers", "2")
    people = [Participant(base) for _ in range(12)]
    try:
        firsts = await asyncio.gather(*(p.get(link(f"B{i}")) for i, p in enumerate(people[:4])))
        assert all(page.path.endswith("/consent") for page in firsts)
        kill_a_writer_mid_line(study.path)
        later = await asyncio.gather(*(p.get(link(f"A{i}")) for i, p in enumerate(people[4:])))
        assert all(page.path.endswith("/consent") for page in later), [p.path for p in later]
        # every cookie still opens its session: the consent page, then the first question
        pages = await asyncio.gather(
            *(
                p.submit(page, "consent", choice="agree")
                for p, page in zip(people, [*firsts, *later], strict=True)
            )
        )
        assert [page.h1 for page in pages] == ["Question 1"] * len(people)
        again = await asyncio.gather(*(p.get("question") for p in people))
        assert all(page.h1 == "Question 1" for page in again)
    finally:
        for p in people:
            await p.close()
        code, err = stop(server)
    assert code == 0 and "Traceback" not in err, err
    state = read_entries(study.path)
    assert len(state.people) == len(people) and state.bad_lines == [5]
