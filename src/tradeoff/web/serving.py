"""Running the study web page: one or several processes on one listening socket, until
SIGINT or SIGTERM (then every process finishes the requests it has and exits 0). With
``--workers N`` each child process ends with its parent, however the parent ends (even by
SIGKILL): no child is left serving, holding the port."""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import signal
import socket
import sys
from collections.abc import Callable

from aiohttp import web

from tradeoff.study.folder import Study
from tradeoff.threads import one_thread_from_now
from tradeoff.web.connection import Timeouts
from tradeoff.web.flow import make_web_app
from tradeoff.web.site import study_secret

#: ``prctl``'s option that has the kernel send a signal to a process when its parent dies.
PR_SET_PDEATHSIG = 1


def end_with_parent(parent: int) -> None:
    """Have this (child) process sent SIGTERM, which stops its server as Ctrl+C does, when
    the process that forked it ends; on Linux through ``prctl(PR_SET_PDEATHSIG)``. If the
    parent ``parent`` has ended already (before the call took effect), exit now."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(0)


def one_thread_per_numeric_call() -> None:
    """Let each numeric library call use one thread. A server process runs many engines'
    work side by side in its own threads; with OpenBLAS also starting a thread per core for
    each call, the threads crowd the cores (measured: p50 submit → next page 111 → 51 ms,
    p95 393 → 150 ms, 75 participants with the joint strategy, benchmarks.study_load)."""
    one_thread_from_now()


def _run_one(
    study: Study,
    sock: socket.socket,
    trust_proxy: bool,
    capacity: int,
    say: Callable[[str], None] | None,
    timeouts: Timeouts,
) -> None:
    one_thread_per_numeric_call()
    app = make_web_app(study, trust_proxy=trust_proxy, capacity=capacity, timeouts=timeouts)
    web.run_app(
        app,
        sock=sock,
        print=say,
        handle_signals=True,
        shutdown_timeout=10.0,
        access_log=None,
    )


def serve_study(
    study: Study,
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    workers: int = 1,
    trust_proxy: bool = False,
    capacity: int = 1000,
    timeouts: Timeouts | None = None,
    say: Callable[[str], None] = print,
) -> int:
    """Serve ``study``'s web page on ``host:port`` with ``workers`` processes sharing the
    study folder (each participant's file is locked while one of them writes to it), each
    connection held to ``timeouts``. Returns the exit status (0 after SIGINT or SIGTERM).
    """
    timeouts = Timeouts() if timeouts is None else timeouts
    study_secret(study)  # made once, before the processes share it
    sock = socket.create_server((host, port), backlog=1024, reuse_port=False)
    sock.set_inheritable(True)
    shown_host = f"[{host}]" if ":" in host else host
    say(
        f"Study page on http://{shown_host}:{sock.getsockname()[1]}/ "
        f"({workers} process{'es' if workers > 1 else ''}); stop with Ctrl+C."
    )
    sys.stdout.flush()
    if workers <= 1:
        _run_one(study, sock, trust_proxy, capacity, None, timeouts)
        return 0
    children: list[int] = []
    parent = os.getpid()
    for _ in range(workers):
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child process
            code = 0
            try:
                end_with_parent(parent)
                _run_one(study, sock, trust_proxy, capacity, None, timeouts)
            except BaseException:
                code = 1
            os._exit(code)
        children.append(pid)
    sock.close()

    def stop(signum: int, frame: object) -> None:
        for child in children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    status = 0
    for child in children:
        while True:
            try:
                _, code = os.waitpid(child, 0)
                break
            except InterruptedError:
                continue
        status = status or (os.waitstatus_to_exitcode(code) not in (0, -signal.SIGTERM))
    return int(status)
