"""The hostile corpus in processes of their own: a pipe closed early ends the command quietly,
the app without a terminal says so at once (e2e; the rest of the corpus is in
test_hostile.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_hostile import RANK, pool_file

pytestmark = pytest.mark.e2e


def test_broken_pipe_ends_quietly(tmp_path: Path) -> None:
    import subprocess
    import sys

    rows = "".join(f"m{i},{i / 1000},{i % 7}\n" for i in range(3000))
    path = pool_file(tmp_path, "model,acc,lat\n" + rows)
    command = [sys.executable, "-m", "tradeoff", "pool", "rank", path, *RANK, "--top", "3000"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.readline()
        proc.stdout.close()  # like `| head -1`
        err = proc.stderr.read().decode()
        code = proc.wait(timeout=120)
    assert err == "" and code == 0


def test_app_without_a_terminal_says_so_at_once(tmp_path: Path) -> None:
    import subprocess
    import sys

    run = subprocess.run(
        [sys.executable, "-m", "tradeoff", "elicit", "--sessions-dir", str(tmp_path / "s")],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2
    assert "needs a terminal" in run.stderr and "Traceback" not in run.stderr
