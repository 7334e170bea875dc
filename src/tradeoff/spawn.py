"""The command textual-serve runs for each participant of a study: a few milliseconds of
Python that hand this connection's terminal to the study's prepared process
(:mod:`tradeoff.tui.forkserver`), which forks the participant's app, and wait for its exit
code. Only the standard library is imported here.

If the prepared process cannot be reached, the app is started the ordinary way
(``tradeoff elicit --study DIR``), only slower.
"""

from __future__ import annotations

import json
import os
import socket
import sys


def main(argv: list[str]) -> int:
    """``python -m tradeoff.spawn SOCKET STUDY``: run STUDY's app through SOCKET."""
    path, study = argv
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.connect(path)
            size = {
                "columns": os.environ.get("COLUMNS", "80"),
                "rows": os.environ.get("ROWS", "24"),
                "client": os.environ.get("TRADEOFF_CLIENT", ""),
            }
            socket.send_fds(client, [json.dumps(size).encode()], [0, 1, 2])
            answer = b""
            while chunk := client.recv(16):
                answer += chunk
    except OSError:
        os.execv(sys.executable, [sys.executable, "-m", "tradeoff", "elicit", "--study", study])
    try:
        return int(answer.decode() or "1")
    except ValueError:
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
