"""A prepared process that forks each browser participant's app of a study.

textual-serve runs one command per browser connection, with the connection's terminal on
the command's standard input and output. Started afresh, each such process spends about a
second of CPU importing numpy, pydantic, Textual and the engine before it can draw the
access-code screen; when a room of clinicians opens the link at once, those seconds queue
on the machine's cores. ``tradeoff serve --study`` therefore starts this process once: it
imports everything, maps the study's cache (:mod:`tradeoff.study.cache`), and listens on a Unix
socket in a private folder. The command each connection runs is :mod:`tradeoff.spawn`,
which imports nothing heavy: it hands its standard input, output and error to this process
(``SCM_RIGHTS``), which forks; the child puts them in place, runs the study's app (as
``tradeoff elicit --study DIR`` does), reports its exit code back and exits. The memory of
the prepared process is shared, copy-on-write, by every child.

The socket accepts only the terminal size from the client (two numbers); its folder is
readable by this user only.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import time
from pathlib import Path

#: The environment textual-serve gives an app; set before Textual is imported, because
#: Textual reads it at import.
WEB_ENVIRONMENT = {
    "TEXTUAL_DRIVER": "textual.drivers.web_driver:WebDriver",
    "TEXTUAL_FPS": "60",
    "TEXTUAL_COLOR_SYSTEM": "truecolor",
    "TERM_PROGRAM": "textual",
    # One thread for numpy's linear algebra: a process with threads must not fork.
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}


def _size(value: object, default: int) -> str:
    """A terminal dimension from the client, as the environment holds it (5 to 1000)."""
    try:
        number = int(str(value))
    except ValueError:
        return str(default)
    return str(min(max(number, 5), 1000))


def _child(
    connection: socket.socket, fds: list[int], request: dict[str, object], study: str
) -> None:
    """In the forked child: take over the client's terminal, run the app, report, exit."""
    code = 1
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        for target, fd in enumerate(fds[:3]):
            os.dup2(fd, target)
        for fd in fds:
            if fd > 2:
                os.close(fd)
        os.environ["COLUMNS"] = _size(request.get("columns"), 80)
        os.environ["ROWS"] = _size(request.get("rows"), 24)
        from tradeoff.net import clean_source

        os.environ["TRADEOFF_CLIENT"] = clean_source(str(request.get("client") or ""))
        from tradeoff.errors import InputError
        from tradeoff.study.folder import load_study
        from tradeoff.tui.app import make_app

        try:
            found = load_study(study)
            app = make_app(found.scenario_path, study=found)
        except InputError as exc:
            print(exc.message(), file=sys.stderr)  # the server's log
            from tradeoff.tui.notice import STUDY_CHANGED, NoticeApp

            NoticeApp(STUDY_CHANGED).run()  # the visitor is told, not left with a blank page
            code = 2
        else:
            app.run()
            code = app.return_code or 0
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        try:
            connection.sendall(str(code).encode())
        finally:
            os._exit(code)


def serve_forks(study: str, path: Path) -> None:
    """Prepare, then fork one app per connection on the Unix socket ``path`` (forever)."""
    # Everything a participant's app imports, imported once here.
    import textual.drivers.web_driver  # noqa: F401

    import tradeoff.tui.app  # noqa: F401
    from tradeoff.ask.scenario import load_scenario
    from tradeoff.study.cache import cached_population
    from tradeoff.study.folder import load_study

    loaded = load_study(study)
    cached_population(load_scenario(loaded.scenario_path).scenario, loaded.cache_dir)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the system
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(64)
    sys.stdout.flush()
    sys.stderr.flush()
    while True:
        try:
            connection, _ = listener.accept()
        except OSError as exc:  # out of file descriptors: wait, then accept again
            print(f"tradeoff: cannot accept a participant now ({exc.strerror})", file=sys.stderr)
            time.sleep(0.5)
            continue
        fds: list[int] = []
        try:
            connection.settimeout(5)  # a client that sends nothing does not hold the others up
            message, fds, _, _ = socket.recv_fds(connection, 1024, 3)
            request = json.loads(message.decode() or "{}")
            if len(fds) != 3 or not isinstance(request, dict):
                raise ValueError("a client sends its three standard streams and a size")
            pid = os.fork()
        except (OSError, ValueError):
            for fd in fds:
                os.close(fd)
            connection.close()
            continue
        if pid == 0:
            listener.close()
            _child(connection, fds, request, study)
        for fd in fds:
            os.close(fd)
        connection.close()


def main() -> None:
    """``python -m tradeoff.tui.forkserver STUDY SOCKET``, started by ``tradeoff serve``
    with :data:`WEB_ENVIRONMENT` in its environment (Textual reads it at import, which
    happens before this runs)."""
    missing = [k for k, v in WEB_ENVIRONMENT.items() if os.environ.get(k) != v]
    if missing:
        raise SystemExit(f"tradeoff.tui.forkserver needs {', '.join(missing)} set")
    serve_forks(sys.argv[1], Path(sys.argv[2]))


if __name__ == "__main__":
    main()
