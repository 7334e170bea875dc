"""Several server processes on one study folder: a participant whose requests alternate
between two servers (a proxy with no stickiness), and a double submit that reaches both at
once, record every answer once and in order; ``--workers 2`` serves from one port; SIGTERM
ends the server with status 0 and no traceback."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tradeoff.record.log import read_session
from tradeoff.study.folder import Study

from ..conftest import ROOT
from ..webclient import Participant
from .test_web import make_study, sessions

pytestmark = pytest.mark.e2e


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def launch(
    study: Study, *extra: str, port: int | None = None
) -> tuple[subprocess.Popen[bytes], int]:
    """``tradeoff study serve`` for ``study`` in a process of its own (not waited for), on
    ``port`` or a free one."""
    port = free_port() if port is None else port
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tradeoff",
            "study",
            "serve",
            str(study.path),
            "--port",
            str(port),
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        env=env,
    )
    return server, port


def start(
    study: Study, *extra: str, port: int | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    """:func:`launch`, once the server answers on its port; its address."""
    server, port = launch(study, *extra, port=port)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return server, f"http://127.0.0.1:{port}/"
        if server.poll() is not None:
            break
        time.sleep(0.1)
    server.kill()
    out, err = server.communicate()
    raise AssertionError(f"the server did not start: {out.decode()} {err.decode()}")


def stop(server: subprocess.Popen[bytes]) -> tuple[int, str]:
    server.send_signal(signal.SIGTERM)
    try:
        _, err = server.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        raise
    return server.returncode, err.decode()


@pytest.fixture
def two_servers(tmp_path: Path) -> Iterator[tuple[Study, dict[str, str], str, str]]:
    study, codes = make_study(tmp_path, budget=6)
    first, a = start(study)
    second, b = start(study)
    try:
        yield study, codes, a, b
    finally:
        for server in (first, second):
            code, err = stop(server)
            assert code == 0 and "Traceback" not in err, err


async def test_two_processes_share_a_study_one_writer_at_a_time(
    two_servers: tuple[Study, dict[str, str], str, str],
) -> None:
    study, codes, a, b = two_servers
    p = Participant(a)
    other = Participant(b)
    try:
        consent = await p.enter(codes["p01"])
        page = await p.submit(consent, "consent", at=b, choice="agree")  # agreed through b
        assert page.h1 == "Question 1"
        o = await other.submit(await other.enter(codes["p02"]), "consent", choice="agree")
        servers = [a, b]
        n = 0
        while page.path.endswith("/question"):
            # this page came from one server; its answer goes to the other, and a second
            # click of the same button reaches both at once
            there = servers[n % 2]
            if n == 2:
                results = await asyncio.gather(
                    p.submit(page, "answer", at=a, choice="left"),
                    p.submit(page, "answer", at=b, choice="left"),
                )
                page = results[0]
            else:
                page = await p.submit(page, "answer", at=there, choice="right")
            if o.path.endswith("/question"):
                o = await other.submit(o, "answer", at=servers[(n + 1) % 2], choice="left")
            n += 1
            assert n < 40
        assert page.h1 == "What we learned"
        done = await p.submit(page, "finish", at=a)
        assert done.h1 == "Thank you"
    finally:
        await p.close()
        await other.close()
    [path] = sessions(study, "p01")
    log = read_session(path)
    assert log.warnings == [] and log.finished
    answers = [e for e in log.events if e.type == "answer"]
    assert [x.index for x in answers] == list(range(1, len(answers) + 1))
    assert len(answers) == n  # the double submit recorded once
    [path2] = sessions(study, "p02")
    assert read_session(path2).warnings == []


async def test_workers_share_one_port_and_stop_cleanly(tmp_path: Path) -> None:
    study, codes = make_study(tmp_path, budget=3)
    server, base = start(study, "--workers", "2")
    try:
        people = [Participant(base) for _ in range(3)]
        try:

            async def run(p: Participant, code: str) -> str:
                page = await p.submit(await p.enter(code), "consent", choice="agree")
                while page.path.endswith("/question"):
                    page = await p.submit(page, "answer", choice="left")
                assert "finish" in page.html, (page.status, page.path, page.text[:300])
                return (await p.submit(page, "finish")).h1

            titles = await asyncio.gather(
                *(run(p, codes[pid]) for p, pid in zip(people, ("p01", "p02", "p03"), strict=True))
            )
        finally:
            for p in people:
                await p.close()
        assert titles == ["Thank you"] * 3
    finally:
        code, err = stop(server)
    assert code == 0 and "Traceback" not in err, err
    for pid in ("p01", "p02", "p03"):
        [path] = sessions(study, pid)
        assert read_session(path).finished


def test_a_server_process_runs_numeric_calls_on_one_thread() -> None:
    code = (
        "import numpy\nfrom threadpoolctl import threadpool_info\n"
        "from tradeoff.web.serving import one_thread_per_numeric_call\n"
        "one_thread_per_numeric_call()\n"
        "print(sorted({p['num_threads'] for p in threadpool_info()}))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "OPENBLAS_NUM_THREADS": "2"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    ).stdout.strip()
    assert out == "[1]", out
