"""The README's practitioner walk ("From a model search to a decision"), run as written: a
scikit-learn script → a pool measured out of fold with variants tuned to the person → the
pick with the measurement noise → a report → the picked estimator refitted and pickled beside
the pool."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]


def walk_block() -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index("## From a model search to a decision")
    a = text.index("```sh\n", start) + len("```sh\n")
    return text[a : text.index("\n```", a)] + "\n"


def test_the_practitioners_walk_runs_as_written(tmp_path: Path) -> None:
    pytest.importorskip("sklearn")
    (tmp_path / "sessions").symlink_to(ROOT / "sessions")
    script = tmp_path / "walk.sh"
    script.write_text(walk_block())
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        ["bash", "-e", str(script)], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    pool = pd.read_csv(tmp_path / "tuned.csv")
    # every model gives probabilities, so each has its variant tuned to the person
    assert sorted(pool["variant_of"].dropna()) == ["bayes", "forest", "logreg"]
    assert {"recall_malignant_cases", "recall_benign_se"} <= set(pool.columns)
    assert "example-oncologist: recommended " in done.stdout
    assert "Tuned to a person:" in done.stdout
    assert (tmp_path / "decision" / "report.html").is_file()
    # the pick written back: its estimator pickled, a line saying what was picked
    (line,) = (tmp_path / "tuned.picks.jsonl").read_text().splitlines()
    logged = json.loads(line)
    assert logged["model"] in set(pool["model"]) and logged["pickle"] == "tuned.pick-1.pkl"
    assert (tmp_path / "tuned.pick-1.pkl").is_file()
