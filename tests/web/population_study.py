"""A small study whose participants have finished, for the tests of the coordinator's
population section: the breast-cancer triage scenario with its pool copied, every model's
name made hostile (markup, a table's pipe, an ampersand: the page and the report must show
it as text), and four simulated participants from two groups of people (one weighs the
malignant lumps flagged most, one latency) who answered until the questions stopped."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from tradeoff.study.folder import Study, create_study

from ..conftest import SCENARIOS
from ..participants import take_part

#: What every model's name starts with in the copied pool.
HOSTILE = "<b>m&|</b>"

#: Two groups of people (true per-unit weights, the scenario's order) and their ids.
PEOPLE = {
    "p01": (0.7, 0.2, 0.05, 0.05),
    "p02": (0.65, 0.25, 0.05, 0.05),
    "p03": (0.2, 0.1, 0.65, 0.05),
    "p04": (0.15, 0.1, 0.7, 0.05),
}


def population_study(tmp: Path, budget: int = 6) -> Study:
    """The study in ``tmp``, every participant's session finished."""
    pool = pd.read_csv(SCENARIOS / "pools" / "breast-cancer.csv")
    pool["model"] = HOSTILE + pool["model"]
    pool.to_csv(tmp / "pool.csv", index=False)
    text = (SCENARIOS / "breast-cancer-triage.toml").read_text(encoding="utf-8")
    text = text.replace('path = "pools/breast-cancer.csv"', 'path = "pool.csv"')
    scenario = tmp / "triage.toml"
    scenario.write_text(text, encoding="utf-8")
    study, _ = create_study(scenario, list(PEOPLE), tmp / "study")
    for seed, (pid, weights) in enumerate(PEOPLE.items()):
        take_part(study, pid, budget=budget, seed=seed, weights=weights, finish=True)
    return study
