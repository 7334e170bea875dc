"""The server stops cleanly and survives running out of file descriptors (a real
``tradeoff serve`` process each time)."""

from __future__ import annotations

import asyncio
import os
import resource
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import aiohttp

from tradeoff.study.folder import create_study

from .conftest import small_scenario_file
from .test_browser import free_port, wait_until


def listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def children(pid: int) -> set[int]:
    """Every process under ``pid`` (from /proc)."""
    found: set[int] = set()
    todo = [pid]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                kids = (task / "children").read_text().split()
            except OSError:
                continue
            for kid in map(int, kids):
                if kid not in found:
                    found.add(kid)
                    todo.append(kid)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_sigterm_with_participants_connected_stops_cleanly(tmp_path: Path) -> None:
    """Two participants have their apps open when SIGTERM arrives: the server closes both,
    ends every process under it and exits 0 within seconds, with no traceback and no event
    loop warning (it used to wait for the browsers forever, and printed "Event loop is
    closed" when stopped)."""
    scenario = small_scenario_file(tmp_path, **{"budget = 30": "budget = 6"})
    study, _ = create_study(scenario, ["p01", "p02"], tmp_path / "study")
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "tradeoff", "serve", "--study", str(study.path), "--port",
         str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=tmp_path,
    )
    try:
        wait_until(lambda: listening(port), 60)

        async def connect_then_stop() -> tuple[int, float, set[int]]:
            url = f"http://127.0.0.1:{port}/ws?width=80&height=24"
            async with aiohttp.ClientSession() as client:
                sockets = [
                    await client.ws_connect(url, headers={"Origin": f"http://127.0.0.1:{port}"})
                    for _ in range(2)
                ]
                for ws in sockets:  # each app has drawn its first screen
                    await asyncio.wait_for(ws.receive(), 30)
                under = children(server.pid)
                started = time.monotonic()
                server.send_signal(signal.SIGTERM)
                code = await asyncio.get_running_loop().run_in_executor(None, server.wait, 30)
                return code, time.monotonic() - started, under

        code, seconds, under = asyncio.run(connect_then_stop())
    finally:
        if server.poll() is None:
            server.kill()
        out = server.communicate(timeout=10)[0].decode(errors="replace")
    assert code == 0, out[-2000:]
    assert seconds < 15, seconds
    assert len(under) >= 3, under  # the prepared process and two apps at least
    assert "stopping: closing 2 open apps" in out, out[-2000:]
    for bad in ("Traceback", "Event loop is closed", "is closed"):
        assert bad not in out, out[-2000:]
    wait_until(lambda: not any(alive(pid) for pid in under), 10)


def test_out_of_file_descriptors_the_server_keeps_serving(tmp_path: Path) -> None:
    """With 64 file descriptors, 200 half-open requests exhaust them: the server stays up,
    logs the refused accepts at most about once a second (not once per attempt), and serves
    the next visitor as soon as descriptors are free again."""
    scenario = small_scenario_file(tmp_path)
    port = free_port()

    def few_descriptors() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))

    server = subprocess.Popen(
        [sys.executable, "-m", "tradeoff", "serve", str(scenario), "--port", str(port),
         "--sessions-dir", str(tmp_path / "sessions")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=tmp_path,
        preexec_fn=few_descriptors,  # the child starts with the lower limit
        env=dict(os.environ, COLUMNS="200"),
    )
    held: list[socket.socket] = []
    try:
        wait_until(lambda: listening(port), 60)
        for _ in range(200):
            s = socket.socket()
            s.settimeout(2)
            try:
                s.connect(("127.0.0.1", port))
                s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # never finished
            except OSError:
                s.close()
                continue
            held.append(s)
        time.sleep(3)
        assert server.poll() is None, "the server exited when out of file descriptors"
        for s in held:
            s.close()
        held.clear()

        def served() -> bool:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                    s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                    return s.recv(64).startswith(b"HTTP/1.1 200")
            except OSError:
                return False

        wait_until(served, 30)
        assert server.poll() is None
    finally:
        for s in held:
            s.close()
        server.send_signal(signal.SIGTERM)
        try:
            out = server.communicate(timeout=20)[0].decode(errors="replace")
        except subprocess.TimeoutExpired:
            server.kill()
            out = server.communicate()[0].decode(errors="replace")
    assert "Traceback" not in out, out[-3000:]
    refused = [line for line in out.splitlines() if "accept" in line.lower()]
    assert len(refused) <= 10, "\n".join(refused[:20])


def test_idle_and_slow_header_connections_are_closed(tmp_path: Path) -> None:
    """A connection that never finishes its request's headers is closed after
    ``Limits.header_seconds`` (10 s), so slow clients cannot hold the server's file
    descriptors (it kept them for as long as the client liked)."""
    from tradeoff.tui.guard import DEFAULT_LIMITS

    scenario = small_scenario_file(tmp_path, **{"budget = 30": "budget = 6"})
    study, _ = create_study(scenario, ["p01"], tmp_path / "study")
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "tradeoff", "serve", "--study", str(study.path), "--port",
         str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=tmp_path,
    )
    try:
        wait_until(lambda: listening(port), 60)
        idle = socket.create_connection(("127.0.0.1", port))
        slow = socket.create_connection(("127.0.0.1", port))
        slow.sendall(b"GET / HTTP/1.1\r\nHost: study\r\nX-Slow: ")
        started = time.monotonic()
        for s in (idle, slow):
            s.settimeout(DEFAULT_LIMITS.header_seconds + 20)
        while True:  # a byte a second, never the end of the headers
            slow.settimeout(1.0)
            try:
                if slow.recv(1) == b"":
                    break
            except TimeoutError:
                slow.sendall(b"a")
            except ConnectionError:
                break
            assert time.monotonic() - started < DEFAULT_LIMITS.header_seconds + 20
        idle.settimeout(DEFAULT_LIMITS.header_seconds + 20)
        assert idle.recv(1) == b""
        assert time.monotonic() - started < DEFAULT_LIMITS.header_seconds + 20
        idle.close()
        slow.close()
    finally:
        server.terminate()
        server.communicate(timeout=20)
