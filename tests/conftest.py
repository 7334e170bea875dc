"""Shared fixtures: shipped scenarios, a small fast population, and a tidy working dir."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

from tradeoff.ask.scenario import ElicitationSpec, Scenario, load_scenario

if TYPE_CHECKING:
    from tradeoff.record.recorder import Recorder

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "scenarios"
PAPER_SCENARIOS = (
    "paper-k2-reward-cost",
    "paper-k2-two-costs",
    "paper-k3-two-costs-reward",
    "paper-k3-cost-two-rewards",
)

#: Commands keep populations and what session files say in the user's cache folder
#: (tradeoff.study.cache.user_cache_dir). The tests, and every process they start (which
#: inherit the environment), keep theirs in a folder of their own, removed at the end:
#: never in the real one. Set on import, before any test or fixture runs.
TEST_CACHE = tempfile.mkdtemp(prefix="tradeoff-test-cache-")
os.environ["TRADEOFF_CACHE_DIR"] = TEST_CACHE
atexit.register(shutil.rmtree, TEST_CACHE, True)
#: The key that seals cache entries (tradeoff.study.sealed.key_path) is kept under
#: $XDG_STATE_HOME: the tests' in a folder of their own too, never the real one.
TEST_STATE = tempfile.mkdtemp(prefix="tradeoff-test-state-")
os.environ["XDG_STATE_HOME"] = TEST_STATE
atexit.register(shutil.rmtree, TEST_STATE, True)

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


#: The tiers beyond the core (``make check`` runs the core only; ``make test`` runs all):
#: ``e2e`` drives a whole face or process (a server and its clients, the command line in a
#: process of its own, the app, scikit-learn and MLflow, several numeric paths); ``stats``
#: measures a statistical property over many runs; ``browser`` needs Chromium.
TIERS = {
    "browser": {
        "test_web_browser",
        "test_web_browser_de",
        "test_web_panel_browser",
        "test_panel_leaving_browser",
        "test_leaderboard_browser",
    },
    "stats": {"test_strategies", "test_engine_paper"},
    "e2e": {
        "test_machines",
        "test_wheel",
        "test_tui",
        "test_tui_pty",
        "test_tui_aspects",
        "test_tui_leaderboard",
        "test_tui_curves",
        "test_joint_app",
        "test_study",
        "test_study_analysis",
        "test_web",
        "test_web_aspects",
        "test_web_processes",
        "test_crash_appends",
        "test_key_revocation",
        "test_panel_bounds",
        "test_memory_never_asked",
        "test_web_panel",
        "test_panel_leaving",
        "test_study_web_cli",
        "test_hostile_serving",
        "test_hostile_study",
        "test_proxy",
        "test_hostile_text",
        "test_hostile_files",
        "test_pool_sources",
        "test_optuna_pool",
        "test_hostile_pools",
        "test_bench",
        "test_cli_simulate",
        "test_parallel_cluster",
        "test_readme_walk",
        "test_report_plain",
        "test_selection",
        "test_decide",
        "test_tuned_pool",
        "test_scorer_sessions",
        "test_scorer_labels",
        "test_settled_weights",
        "test_tuned_variants",
        "test_measuring_progress",
        "test_mlflow_checks",
        "test_likeliest",
        "test_cache_trust_commands",
        "test_curves_dcurves",
        "test_decision_curves",
        "test_url_credentials",
        "test_aspect_pool",
        "test_choices_fit",
    },
}
#: Single statistical tests in files of the core tier (a scan or a brute force over many
#: draws).
STATS_TESTS = {
    "test_the_smallest_change_is_where_a_scan_first_sees_another_pick",
    "test_the_first_column_is_the_recommendations_p_best",
    "test_masks_match_pandas",
    "test_power_with_a_true_five_percent_gap",
    "test_particles_match_brute_force_with_the_full_noise_grid",
}


#: Seconds a browser test may take before it fails (pytest-timeout).
BROWSER_TIMEOUT = 300


def mark_tiers(items: list[pytest.Item]) -> None:
    """Mark every test with its tier (:data:`TIERS`, :data:`STATS_TESTS`)."""
    for item in items:
        stem = item.path.stem
        for tier, files in TIERS.items():
            if stem in files:
                item.add_marker(getattr(pytest.mark, tier))
        if stem in TIERS["browser"]:
            # A browser that stops answering fails its test with a traceback of where,
            # instead of holding the whole run (the slowest takes under a minute).
            item.add_marker(pytest.mark.timeout(BROWSER_TIMEOUT, method="signal"))
        if item.name.split("[")[0] in STATS_TESTS or "slow" in item.keywords:
            item.add_marker(pytest.mark.stats)  # the slow ones are statistical runs too


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


def three_answers_one_unasked(folder: Path, participant: str) -> Recorder:
    """A recorder (open: the caller closes it) after three answers to the default scenario,
    one weight never shown apart by any of them (its ``asked`` is False)."""
    from tradeoff.simulation.oracles import SimulatedOracle
    from tradeoff.study.opening import start_session

    loaded = load_scenario(SCENARIOS / "breast-cancer-triage.toml")
    spec = loaded.scenario.elicitation.override(budget=3)
    rec = start_session(loaded, participant, folder, spec=spec, seed=1)
    oracle = SimulatedOracle.for_scenario(loaded.scenario, (0.6, 0.2, 0.1, 0.1))
    while (q := rec.engine.next_query()) is not None:
        rec.answer(oracle.choose(q))
    asked = rec.engine.result().asked
    assert asked is not None and not all(asked), "pick a session that leaves one unasked"
    return rec


#: A simulated clinician's true weights (per unit, the scenario's order) whose session on the
#: shipped breast-cancer scenario (seed 4) stops after five answers that never show memory
#: apart: the review then showed malignant 36 %, benign 4 %, latency 24 % and memory "not
#: asked", the missing 37 % the prior's guess for memory.
MEMORY_NEVER_ASKED = (0.9178304159279578, 0.0816802655174012, 4.4605838676753916e-4, 4.326e-05)


def five_answers_memory_unasked(folder: Path, participant: str) -> Recorder:
    """A recorder (open: the caller closes it) of :data:`MEMORY_NEVER_ASKED`'s session: five
    answers, stopped, memory never asked."""
    from tradeoff.simulation.oracles import SimulatedOracle
    from tradeoff.study.opening import start_session

    loaded = load_scenario(SCENARIOS / "breast-cancer-triage.toml")
    rec = start_session(loaded, participant, folder, seed=4)
    oracle = SimulatedOracle.for_scenario(loaded.scenario, MEMORY_NEVER_ASKED)
    while (q := rec.engine.next_query()) is not None:
        rec.answer(oracle.choose(q))
    assert rec.engine.answered == 5 and rec.engine.result().asked == (True, True, True, False)
    return rec


def spec(sc: Scenario, **changes: object) -> ElicitationSpec:
    """The scenario's elicitation settings with ``changes`` (the one settings model)."""
    return sc.elicitation.override(**changes)


#: Slow tests (statistical checks over many simulated people, the wheel built and installed
#: in a fresh environment) run in CI, or anywhere with TRADEOFF_SLOW=1; `make test` on a
#: developer's machine skips them with this reason.
RUN_SLOW = bool(os.environ.get("CI") or os.environ.get("TRADEOFF_SLOW"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    mark_tiers(items)
    if RUN_SLOW:
        return
    skip = pytest.mark.skip(reason="slow: runs in CI, or with TRADEOFF_SLOW=1 make test")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
