"""`tradeoff elicit` in a real pseudo-terminal: kill it with SIGKILL mid-session, resume, and
find every answer given before the kill still there."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

import pytest

from tradeoff.record.log import read_session

from ..conftest import small_scenario_file

pytestmark = pytest.mark.e2e

ANSI = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]")


class Terminal:
    """A child process on a pseudo-terminal, its output collected by a thread."""

    def __init__(self, argv: list[str], cwd: Path) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 32, 100, 0, 0))
        env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "100", "LINES": "32"}
        self.proc = subprocess.Popen(
            argv,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=cwd,
            env=env,
            start_new_session=True,
            close_fds=True,
        )
        os.close(slave)
        self.master = master
        self.buffer = bytearray()
        self.lock = threading.Lock()
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            with self.lock:
                self.buffer += data

    def text(self) -> str:
        with self.lock:
            return ANSI.sub(b"", bytes(self.buffer)).decode("utf-8", "replace")

    def clear(self) -> None:
        with self.lock:
            self.buffer.clear()

    def send(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def wait_text(self, needle: str, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if needle in self.text():
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        raise AssertionError(f"{needle!r} never appeared; screen text: {self.text()[-2000:]!r}")

    def kill(self) -> None:
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        os.close(self.master)


def answers(path: Path) -> list[str]:
    return [e.choice for e in read_session(path).events if e.type == "answer"]


def wait_answers(folder: Path, n: int, timeout: float = 90) -> Path:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        files = list(folder.glob("*.jsonl"))
        if files and len(answers(files[0])) >= n:
            return files[0]
        time.sleep(0.05)
    raise AssertionError(f"{n} answers never reached the session file in {folder}")


@pytest.mark.skipif(sys.platform != "linux", reason="uses Linux pseudo-terminals")
def test_sigkill_loses_no_answer_and_resume_continues(tmp_path: Path) -> None:
    scenario = small_scenario_file(tmp_path)
    sessions = tmp_path / "sessions"
    base = [sys.executable, "-m", "tradeoff", "elicit"]
    term = Terminal(
        [
            *base,
            str(scenario),
            "--participant",
            "pty-test",
            "--sessions-dir",
            str(sessions),
            "--budget",
            "12",
        ],
        tmp_path,
    )
    try:
        term.wait_text("Start")
        term.clear()
        term.send("\r")  # the participant id is filled in: Enter starts
        term.wait_text("question 1 of")  # the question screen (not the start screen's text)
        sent = "abbab"
        for i, key in enumerate(sent, start=1):
            term.send(key)
            path = wait_answers(sessions / "pty-test", i)
    finally:
        term.kill()
    assert term.proc.returncode == -signal.SIGKILL
    assert answers(path) == ["left", "right", "right", "left", "right"]

    again = Terminal([*base, "--resume", str(path), "--sessions-dir", str(sessions)], tmp_path)
    try:
        again.wait_text("question 6 of")  # continues at the exact next question
        again.send("a")
        wait_answers(sessions / "pty-test", 6)
        again.send("q")
        again.proc.wait(timeout=20)
    finally:
        if again.proc.poll() is None:
            again.kill()
    assert answers(path) == ["left", "right", "right", "left", "right", "left"]
