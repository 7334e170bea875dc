"""A run with ``-m`` that leaves out the test files it cannot select (the collection hook of
tests/conftest.py, read from each file's text) selects exactly the tests a run that imports
every file selects (``make check``'s ``-m "core and not stats"``)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from .conftest import ROOT

pytestmark = pytest.mark.e2e


def selected(markexpr: str, *, every_file: bool) -> list[str]:
    """The ids of the tests ``pytest -m markexpr`` selects, in a process of its own."""
    env = {k: v for k, v in os.environ.items() if k != "TRADEOFF_COLLECT_ALL"}
    if every_file:
        env["TRADEOFF_COLLECT_ALL"] = "1"
    plugins = ["-p", "no:xdist", "-p", "no:cacheprovider"]
    run = subprocess.run(
        [sys.executable, "-m", "pytest", *plugins, "--collect-only", "-q", "-m", markexpr],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    return [line for line in run.stdout.splitlines() if "::" in line]


def test_leaving_files_out_selects_the_same_tests() -> None:
    quick = selected("core and not stats", every_file=False)
    assert len(quick) > 1000, "the core is selected"
    assert quick == selected("core and not stats", every_file=True)
