"""Serve the app to web browsers with textual-serve (each visitor gets their own process)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from textual_serve.server import Server


def serve(scenario: Path, *, host: str, port: int, sessions_dir: str) -> None:
    """Run the web server until interrupted; every connection runs ``tradeoff elicit``."""
    command = (
        f"{shlex.quote(sys.executable)} -m tradeoff elicit {shlex.quote(str(scenario))} "
        f"--sessions-dir {shlex.quote(sessions_dir)}"
    )
    print(f"Serving tradeoff on http://{host}:{port} (Ctrl+C to stop)")
    Server(command, host=host, port=port, title="tradeoff").serve()
