"""Shared fixtures: shipped scenarios, a small fast population, and a tidy working dir."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

from tradeoff.ask.scenario import ElicitationSpec, Scenario, load_scenario

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "scenarios"
PAPER_SCENARIOS = (
    "paper-k2-reward-cost",
    "paper-k2-two-costs",
    "paper-k3-two-costs-reward",
    "paper-k3-cost-two-rewards",
)

settings.register_profile("default", deadline=None, print_blob=True)
# In CI the examples are derandomised, so a run is reproducible and cannot fail by chance.
settings.register_profile("ci", deadline=None, print_blob=True, derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "default")


def scenario(name: str) -> Scenario:
    """A shipped scenario by id."""
    return load_scenario(SCENARIOS / f"{name}.toml").scenario


def small(name: str, samples: int = 20_000) -> Scenario:
    """A shipped scenario with a smaller population, for tests that need many engines."""
    sc = scenario(name)
    return sc.model_copy(
        update={"population": sc.population.model_copy(update={"samples": samples})}
    )


@pytest.fixture(autouse=True)
def _run_from_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def small_scenario_file(
    tmp_path: Path, name: str = "glaucoma-screening", samples: int = 20_000, **replace: str
) -> Path:
    """A copy of a shipped scenario with a smaller population (and optional text edits)."""
    text = (SCENARIOS / f"{name}.toml").read_text()
    text = text.replace("seed = 11", f"seed = 11\nsamples = {samples}")
    for old, new in replace.items():
        text = text.replace(old, new)
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    return path


def spec(sc: Scenario, **changes: object) -> ElicitationSpec:
    """The scenario's elicitation settings with ``changes`` (the one settings model)."""
    return sc.elicitation.override(**changes)


#: Slow tests (statistical checks over many simulated people, the wheel built and installed
#: in a fresh environment) run in CI, or anywhere with TRADEOFF_SLOW=1; `make test` on a
#: developer's machine skips them with this reason.
RUN_SLOW = bool(os.environ.get("CI") or os.environ.get("TRADEOFF_SLOW"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if RUN_SLOW:
        return
    skip = pytest.mark.skip(reason="slow: runs in CI, or with TRADEOFF_SLOW=1 make test")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
