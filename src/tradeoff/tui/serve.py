"""Serve the app to web browsers with textual-serve (each visitor gets their own process).

The websocket that drives a participant's app accepts connections only from the page this
server itself serves: a browser sends the page's ``Origin`` with every websocket request,
so a page of another site open in the same browser cannot drive the app (cross-site
websocket hijacking), even on loopback. Behind a reverse proxy, name the public origin
with ``allow_origins``.
"""

from __future__ import annotations

import ipaddress
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from tradeoff.tui.forkserver import WEB_ENVIRONMENT
from tradeoff.tui.guard import DEFAULT_LIMITS, GuardedServer, Limits


def served_origins(host: str, port: int) -> set[str]:
    """The origins of the pages this server serves (loopback under its usual names).

    >>> sorted(served_origins("127.0.0.1", 8000))
    ['http://127.0.0.1:8000', 'http://[::1]:8000', 'http://localhost:8000']
    """
    names = {host}
    if is_loopback(host):
        names |= {"localhost", "127.0.0.1", "[::1]"}
    return {f"http://{name}:{port}" for name in names}


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def serve(
    scenario: Path,
    *,
    host: str,
    port: int,
    sessions_dir: str,
    allow_origins: Sequence[str] = (),
    study: Path | None = None,
    trust_proxy: bool = False,
    limits: Limits = DEFAULT_LIMITS,
    public_url: str | None = None,
) -> None:
    """Run the web server until interrupted; every connection runs ``tradeoff elicit``
    (with ``study``: the study's app, which asks for an access code, forked from a prepared
    process by :mod:`tradeoff.tui.forkserver`; the prepared process and its socket's
    folder are removed when the server stops)."""
    runtime: Path | None = None
    forks: subprocess.Popen[bytes] | None = None
    if study is not None:
        runtime, forks = _start_forkserver(study)
        python = shlex.quote(sys.executable)
        command = (
            f"{python} -m tradeoff.spawn {shlex.quote(str(runtime / SOCKET))} "
            f"{shlex.quote(str(study))}"
        )
    else:
        command = (
            f"{shlex.quote(sys.executable)} -m tradeoff elicit {shlex.quote(str(scenario))} "
            f"--sessions-dir {shlex.quote(sessions_dir)}"
        )
    origins = served_origins(host, port) | {o.rstrip("/") for o in allow_origins}
    print(f"Serving tradeoff on http://{host}:{port} (Ctrl+C to stop)")
    if not is_loopback(host):
        print(
            f"warning: {host} is reachable from other machines and the traffic is not "
            "encrypted; put a TLS reverse proxy in front (see README) and do not serve "
            "participants' answers over plain HTTP.",
            file=sys.stderr,
        )
    try:
        server = GuardedServer(
            command,
            host=host,
            port=port,
            origins=origins,
            limits=limits,
            trust_proxy=trust_proxy,
            public_url=public_url,
        )
        server.serve()
    finally:
        if forks is not None:
            forks.terminate()
            forks.wait(timeout=10)
        if runtime is not None:
            shutil.rmtree(runtime, ignore_errors=True)


SOCKET = "participants.sock"


def _start_forkserver(study: Path) -> tuple[Path, subprocess.Popen[bytes] | None]:
    """Start the study's prepared process (:mod:`tradeoff.tui.forkserver`) and wait until it
    listens; ``None`` if it did not start in 60 s (each participant's process then starts
    the ordinary way, as :mod:`tradeoff.spawn` falls back to)."""
    runtime = Path(tempfile.mkdtemp(prefix="tradeoff-serve-"))  # mode 0700
    env = dict(os.environ) | WEB_ENVIRONMENT
    forks = subprocess.Popen(
        [sys.executable, "-m", "tradeoff.tui.forkserver", str(study), str(runtime / SOCKET)],
        env=env,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and forks.poll() is None:
        if (runtime / SOCKET).exists():
            return runtime, forks
        time.sleep(0.05)
    forks.kill()
    forks.wait()
    print(
        "warning: participants' apps will start slowly (the prepared process failed).",
        file=sys.stderr,
    )
    return runtime, None
