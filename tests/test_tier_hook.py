"""A run of pytest stops at a test file that declares no tier (the collection hook of
tests/conftest.py, in a process of its own; tests/test_guard_rails.py checks the files)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT
from .test_guard_rails import SRC, TIERED, write

pytestmark = pytest.mark.e2e


def test_a_run_stops_at_a_test_file_without_a_tier(tmp_path: Path) -> None:
    """The collection hook (tests/conftest.py) in a run of its own, on two files."""
    write(
        tmp_path,
        {
            "pytest.ini": "[pytest]\n",
            "test_tiered.py": TIERED,
            "test_untiered.py": "def test_x() -> None:\n    pass\n",
        },
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(SRC)])}
    plugins = ["-p", "tests.conftest", "-p", "no:xdist", "-p", "no:cacheprovider"]
    run = subprocess.run(
        [sys.executable, "-m", "pytest", *plugins, "-q", str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    assert run.returncode != 0
    assert "ERROR collecting test_untiered.py" in run.stdout, run.stdout
    assert "test_untiered.py: declares no tier" in run.stdout
    assert "ERROR collecting test_tiered.py" not in run.stdout
