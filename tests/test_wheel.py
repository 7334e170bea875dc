"""tradeoff installs as a wheel and works from anywhere: the shipped scenarios and pools
are package data, so the default scenario checks and simulates outside the checkout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

from .conftest import ROOT


def test_wheel_installs_and_runs_outside_the_checkout(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # nothing but the wheel
    dist = tmp_path / "dist"
    build = ["wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist), str(ROOT)]
    subprocess.run(
        [sys.executable, "-m", "pip", *build],
        check=True,
        capture_output=True,
        timeout=300,
        env=env,
    )
    (wheel,) = dist.glob("tradeoff-*.whl")
    env_dir = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True, timeout=300, env=env)
    python = env_dir / "bin" / "python"
    # The fresh environment borrows the dependencies (not tradeoff) from this one.
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout.strip()
    (Path(site) / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [str(python), "-m", "pip", "install", "--no-deps", "--no-index", "-q", str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
        env=env,
    )
    where = tmp_path / "elsewhere"
    where.mkdir()

    def tradeoff(*args: str) -> str:
        run = subprocess.run(
            [str(python), "-m", "tradeoff", *args],
            cwd=where,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert run.returncode == 0, run.stderr
        return run.stdout

    origin = subprocess.run(
        [str(python), "-c", "import tradeoff; print(tradeoff.__file__)"],
        cwd=where,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert str(env_dir) in origin  # the installed wheel, not the checkout
    default = subprocess.run(
        [str(python), "-c", "from tradeoff.cli.common import default_scenario as d; print(d())"],
        cwd=where,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert default.startswith(str(env_dir)) and Path(default).is_file()  # what `tradeoff` opens
    from tradeoff.data import shipped_scenarios

    installed = Path(site) / "tradeoff" / "shipped" / "breast-cancer-triage.toml"
    assert installed.is_file() and shipped_scenarios().name == "shipped"
    check = json.loads(tradeoff("scenario", "check", str(installed), "--json"))
    assert check["id"] == "breast-cancer-triage"
    out = json.loads(tradeoff("simulate", str(installed), "--runs", "1", "--budget", "8", "--json"))
    assert out["queries"]["max"] == 8 and len(out["weights"]) == 4
