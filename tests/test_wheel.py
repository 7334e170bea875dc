"""tradeoff installs as a wheel and works from anywhere: the shipped scenarios and pools
are package data, so the default scenario checks and simulates outside the checkout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from .conftest import ROOT

pytestmark = pytest.mark.e2e


@pytest.mark.slow
def test_wheel_installs_and_runs_outside_the_checkout(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # nothing but the wheel
    where = tmp_path / "elsewhere"
    where.mkdir()

    def run(*command: str | Path) -> str:
        done = subprocess.run(
            [str(c) for c in command],
            cwd=where,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    dist = tmp_path / "dist"
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", dist, ROOT)
    (wheel,) = dist.glob("tradeoff-*.whl")
    env_dir = tmp_path / "venv"
    run(sys.executable, "-m", "venv", env_dir)
    python = env_dir / "bin" / "python"
    # The fresh environment borrows the dependencies (not tradeoff) from this one.
    site = run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])")
    (Path(site) / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    run(python, "-m", "pip", "install", "--no-deps", "--no-index", "-q", wheel)

    origin = run(python, "-c", "import tradeoff; print(tradeoff.__file__)")
    assert str(env_dir) in origin  # the installed wheel, not the checkout
    default = run(
        python, "-c", "from tradeoff.cli.common import default_scenario; print(default_scenario())"
    )
    assert default.startswith(str(env_dir)) and Path(default).is_file()  # what `tradeoff` opens
    from tradeoff.data import shipped_scenarios

    installed = Path(site) / "tradeoff" / "shipped" / "breast-cancer-triage.toml"
    assert installed.is_file() and shipped_scenarios().name == "shipped"
    check = json.loads(run(python, "-m", "tradeoff", "scenario", "check", installed, "--json"))
    assert check["id"] == "breast-cancer-triage"
    out = json.loads(
        run(
            python,
            "-m",
            "tradeoff",
            "simulate",
            installed,
            "--budget",
            "8",
            "--stop",
            "weights",
            "--json",
        )
    )
    assert out["queries"]["max"] == 8 and len(out["weights"]) == 4
    # a population read from the probabilities shipped beside the scenarios
    real = installed.with_name("breast-cancer-triage-real.toml")
    check = json.loads(run(python, "-m", "tradeoff", "scenario", "check", real, "--json"))
    assert check["id"] == "breast-cancer-triage-real"
    # shipped scenarios by id, from a folder that has no scenarios/ of its own
    listed = json.loads(run(python, "-m", "tradeoff", "scenario", "list", "--json"))
    ids = {s["id"]: s for s in listed["scenarios"]}
    assert ids["breast-cancer-triage"]["pool"] is True
    assert ids["glaucoma-screening"]["path"].startswith(str(env_dir))
    assert "glaucoma-screening" in run(python, "-m", "tradeoff", "scenario", "list")
    out = json.loads(
        run(python, "-m", "tradeoff", "simulate", "glaucoma-screening", "--runs", "2", "--json")
    )
    assert out["runs"] == 2
    for name in ("glaucoma-screening", "glaucoma-screening.toml"):
        text = run(python, "-m", "tradeoff", "simulate", name, "--runs", "2")
        assert "2 runs" in text
