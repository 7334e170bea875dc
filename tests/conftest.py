"""Shared fixtures: shipped scenarios, a small fast population, and a tidy working dir."""

from __future__ import annotations

import atexit
import functools
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Set
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

from tradeoff.ask.scenario import ElicitationSpec, Scenario, load_scenario

from .guards import TIERS, file_ruled_out

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
#: Examples a property test that does not set its own count tries in ``make check``
#: (TRADEOFF_CHECK_EXAMPLES=1): fewer than hypothesis's 100, which ``make test`` tries.
CHECK_EXAMPLES = 25
for _name in ("default", "ci"):
    settings.register_profile(
        f"{_name}-check", settings.get_profile(_name), max_examples=CHECK_EXAMPLES
    )
settings.load_profile(
    ("ci" if os.environ.get("CI") else "default")
    + ("-check" if os.environ.get("TRADEOFF_CHECK_EXAMPLES") else "")
)


def scenario(name: str) -> Scenario:
    """A shipped scenario by id."""
    return load_scenario(SCENARIOS / f"{name}.toml").scenario


def small(name: str, samples: int = 20_000) -> Scenario:
    """A shipped scenario with a smaller population, for tests that need many engines."""
    sc = scenario(name)
    return sc.model_copy(
        update={"population": sc.population.model_copy(update={"samples": samples})}
    )


#: Seconds a browser test may take before it fails (pytest-timeout).
BROWSER_TIMEOUT = 300


def module_tier_problem(module: ModuleType) -> str | None:
    """What is wrong with a test module's tier, or None when its ``pytestmark`` names
    exactly one of :data:`TIERS` (``core``, ``stats``, ``e2e``, ``browser``: ``make check``
    runs the core; ``make test`` runs all)."""
    marks = getattr(module, "pytestmark", [])
    marks = marks if isinstance(marks, list | tuple) else [marks]
    tiers = [m.name for m in marks if getattr(m, "name", None) in TIERS]
    if len(tiers) == 1:
        return None
    found = f"{len(tiers)} tiers ({', '.join(tiers)})" if tiers else "no tier"
    return (
        f"{module.__file__}: declares {found}; a test file declares exactly one: "
        "`pytestmark = pytest.mark.core` (or stats, e2e, browser)"
    )


class TieredModule(pytest.Module):
    """A test file that declares exactly one tier, else an error collecting it that says
    how to declare one (the run stops: a file never lands in a tier by chance)."""

    def collect(self) -> list[pytest.Item | pytest.Collector]:
        problem = module_tier_problem(self.obj)
        if problem is not None:
            raise self.CollectError(problem)
        return list(super().collect())


def pytest_pycollect_makemodule(
    module_path: Path, parent: pytest.Collector
) -> pytest.Module | None:
    if not module_path.name.startswith("test_"):
        return None  # a helper module named on the command line
    return TieredModule.from_parent(parent, path=module_path)


@functools.cache
def _mark_expression(markexpr: str) -> tuple[Callable[[Set[str]], bool], frozenset[str]] | None:
    """``-m``'s expression as a function of one test's marks, and the names it looks at;
    None when pytest's own reader of it (not a public one) is not there."""
    try:
        from _pytest.mark.expression import Expression
    except ImportError:  # pragma: no cover - another pytest
        return None
    expression = Expression.compile(markexpr)
    names = frozenset(re.findall(r"[A-Za-z_]\w*", markexpr)) - {"and", "or", "not"}
    return (lambda marks: expression.evaluate(lambda name, **_: name in marks)), names


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """A run with ``-m`` (``make check``: ``-m "core and not stats"``) does not import the
    test files whose declared tier, with any mark their tests may carry, it cannot select
    (:func:`tests.guards.file_ruled_out`, reading the file's text): the same tests run,
    without the seconds each process would spend importing the others (a browser's driver,
    the decision-curve reference, the screens' snapshots). ``TRADEOFF_COLLECT_ALL=1``
    imports every file, as the test of this hook does (tests/test_tier_filter.py)."""
    markexpr = config.getoption("markexpr", "")
    if (
        not markexpr
        or os.environ.get("TRADEOFF_COLLECT_ALL")
        or not collection_path.name.startswith("test_")
        or collection_path.suffix != ".py"
    ):
        return None  # None, not False: the other reasons to ignore a path still hold
    found = _mark_expression(markexpr)
    if found is None:
        return None
    selects, names = found
    return True if file_ruled_out(collection_path, selects, names) else None


def mark_tiers(items: list[pytest.Item]) -> None:
    """Mark what a test file's tier does not say: the doctests are core, the slow tests
    statistical, and a browser test has a time limit."""
    for item in items:
        if isinstance(item, pytest.DoctestItem):
            item.add_marker(pytest.mark.core)  # the examples in docstrings run in the core
            continue
        if "browser" in item.keywords:
            # A browser that stops answering fails its test with a traceback of where,
            # instead of holding the whole run (the slowest takes under a minute).
            item.add_marker(pytest.mark.timeout(BROWSER_TIMEOUT, method="signal"))
        if "slow" in item.keywords:
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
#: shipped breast-cancer scenario (seed 2) stops after seven answers that never show memory
#: apart (seed 4 did until 0.6.0, whose session now asks memory in an eighth answer): before
#: the shares of the asked, the review showed malignant 36 %, benign 4 %, latency 24 % and
#: memory "not asked", the missing 37 % the prior's guess for memory.
MEMORY_NEVER_ASKED = (0.9178304159279578, 0.0816802655174012, 4.4605838676753916e-4, 4.326e-05)


def seven_answers_memory_unasked(folder: Path, participant: str) -> Recorder:
    """A recorder (open: the caller closes it) of :data:`MEMORY_NEVER_ASKED`'s session: seven
    answers, stopped, memory never asked."""
    from tradeoff.simulation.oracles import SimulatedOracle
    from tradeoff.study.opening import start_session

    loaded = load_scenario(SCENARIOS / "breast-cancer-triage.toml")
    rec = start_session(loaded, participant, folder, seed=2)
    oracle = SimulatedOracle.for_scenario(loaded.scenario, MEMORY_NEVER_ASKED)
    while (q := rec.engine.next_query()) is not None:
        rec.answer(oracle.choose(q))
    assert rec.engine.answered == 7 and rec.engine.result().asked == (True, True, True, False)
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
