"""The same record on every machine (docs/architecture.md, "The same result on every machine").

Sessions recorded under one numeric path (numpy's CPU-feature switches and an OpenBLAS core
type, :mod:`tradeoff.machines`) replay under another: never refused, the same questions, the
recorded result. The branches that used to hinge on the last bits of a float are checked
one by one with perturbations of a few units in the last place.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tradeoff.learn import Choice
from tradeoff.machines import environment, other_path, simd_paths
from tradeoff.stable import (
    DIGITS,
    SCORE_FLOOR,
    canonical,
    settled,
    stable_argmax,
    stable_order,
)

pytestmark = [pytest.mark.e2e, pytest.mark.other_path]

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "scenarios" / "breast-cancer-triage.toml"

# -- what a worker process does under another path -----------------------------------------

RECORD = """
import json, sys
from pathlib import Path
import numpy as np
from tradeoff.learn import truth_from_dirichlet
from tradeoff.study.opening import start_session
from tradeoff.simulation.oracles import Noise, SimulatedOracle
from tradeoff.ask.scenario import load_scenario
loaded = load_scenario(sys.argv[1])
folder = Path(sys.argv[2])
out = {}
for strategy in ("joint", "probabilistic", "bisection"):
    for k in range(int(sys.argv[3])):
        rng = np.random.default_rng([k, 5])
        spec = loaded.scenario.elicitation.override(strategy=strategy)
        rec = start_session(loaded, f"{strategy}-{k}", folder, spec=spec, seed=100 + k)
        truth = truth_from_dirichlet(rec.engine.space.spans, rng)
        oracle = SimulatedOracle.for_scenario(
            loaded.scenario, truth, noise=Noise("flip", 0.1), seed=k
        )
        asked = []
        while (q := rec.engine.next_query()) is not None:
            asked.append([list(q.left.recalls), list(q.left.attributes), list(q.right.recalls),
                          list(q.right.attributes), q.kind])
            rec.answer(oracle.choose(q))
        result = rec.finish()
        rec.close()
        d = rec.engine.decision()
        out[str(rec.path)] = {"asked": asked, "weights": list(result.weights),
                              "p_best": None if d is None else d[0]}
print(json.dumps(out))
"""

REPLAY = """
import json, sys
from pathlib import Path
from tradeoff.errors import InputError
from tradeoff.record.log import read_session
from tradeoff.record.replay import replay
out = {}
for path in sorted(Path(sys.argv[1]).glob("*/*.jsonl")):
    try:
        log = read_session(path)
        engine = replay(log)
    except InputError as exc:
        out[str(path)] = {"refused": str(exc)}
        continue
    d = engine.decision()
    out[str(path)] = {"weights": list(engine.result().weights), "warnings": log.warnings,
                      "differs": log.replay_differs, "gap": log.result_difference,
                      "p_best": None if d is None else d[0]}
print(json.dumps(out))
"""


def _under(path: str, script: str, *args: str) -> dict[str, dict[str, object]]:
    env = environment(path)
    env["PYTHONPATH"] = str(ROOT / "src")
    env["OPENBLAS_NUM_THREADS"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out: dict[str, dict[str, object]] = json.loads(done.stdout)
    return out


def _other() -> str:
    path = other_path()
    if path == "default":
        pytest.skip("this machine has a single numeric path")
    return path


@pytest.mark.parametrize("recorded_on", ["default", "other"])
def test_sessions_recorded_on_one_path_replay_on_the_other(
    tmp_path: Path, recorded_on: str
) -> None:
    """Three sessions per strategy (joint, probabilistic, bisection; one answer in ten
    reversed) recorded under one path and replayed under the other: none refused, no
    warning, the same questions (none applied as recorded), the weights and P(best) equal
    to far better than the 0.005 the issue allows (measured: ~1e-15)."""
    other = _other()
    paths = {"default": "default", "other": other}
    replayed_on = other if recorded_on == "default" else "default"
    recorded = _under(paths[recorded_on], RECORD, str(SCENARIO), str(tmp_path), "3")
    replayed = _under(replayed_on, REPLAY, str(tmp_path))
    assert set(replayed) == set(recorded)
    for path, mine in replayed.items():
        assert "refused" not in mine, mine
        assert mine["warnings"] == [], (path, mine["warnings"])
        assert mine["differs"] == 0, path
        theirs = recorded[path]
        gap = max(abs(a - b) for a, b in zip(mine["weights"], theirs["weights"], strict=True))  # type: ignore[call-overload]
        assert gap < 1e-6, (path, gap)
        assert mine["gap"] is not None and mine["gap"] < 1e-6  # type: ignore[operator]
        if theirs["p_best"] is not None:
            assert abs(mine["p_best"] - theirs["p_best"]) < 1e-6  # type: ignore[operator]


def test_the_same_seed_asks_the_same_questions_on_every_path(tmp_path: Path) -> None:
    """Every path of this machine (default, AVX-512 off, every dispatched kernel off) asks
    the same questions of the same simulated people, as the screen shows them."""
    paths = list(simd_paths())
    if len(paths) < 2:
        pytest.skip("this machine has a single numeric path")
    runs = {p: _under(p, RECORD, str(SCENARIO), str(tmp_path / p), "2") for p in paths}
    by_person = {p: {Path(k).parent.name: v for k, v in run.items()} for p, run in runs.items()}
    first = by_person[paths[0]]
    assert len(first) == 6
    for p in paths[1:]:
        assert set(by_person[p]) == set(first)
        for who, run in first.items():
            assert run["asked"] == by_person[p][who]["asked"], (p, who)


# -- the branches, one by one ----------------------------------------------------------------


def _ulps(x: float, n: int) -> float:
    for _ in range(abs(n)):
        x = math.nextafter(x, math.inf if n > 0 else -math.inf)
    return x


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=40),
    st.integers(0, 2**32 - 1),
)
def test_stable_order_does_not_see_a_few_ulps(scores: list[float], seed: int) -> None:
    """Scores moved by up to 4 units in the last place order the same, except where a score
    sits within those units of a rounding boundary of the ninth digit, or the largest
    magnitude on a power of two (about one score in 10⁶ drawn at random; but hypothesis
    favours round numbers, and an odd integer under a largest magnitude in [512, 1024) is
    exactly on a boundary: 1 · 10⁹ / 2¹⁰ = 976562.5). Those draws are set aside."""
    top = max(abs(x) for x in scores)
    scale = math.ldexp(1.0, math.frexp(max(top, SCORE_FLOOR))[1])
    keys = [abs(x) / scale * 10.0**DIGITS for x in scores]
    on_edge = any(abs(k - math.floor(k) - 0.5) < 1e-6 for k in keys) or (
        top >= SCORE_FLOOR and math.frexp(top)[0] == 0.5  # a power of two
    )
    assume(not on_edge)
    rng = np.random.default_rng(seed)
    steps = rng.integers(-4, 5, len(scores))
    moved = [_ulps(x, int(k)) for x, k in zip(scores, steps, strict=True)]
    assert stable_order(scores).tolist() == stable_order(moved).tolist()


def test_a_score_on_a_rounding_boundary_is_what_the_few_ulps_test_sets_aside() -> None:
    """The draw hypothesis found: 1 under a largest magnitude of 512 is exactly half a unit of
    the ninth digit, so a few ulps either way round it apart (why it is set aside above)."""
    scores = [1.0, 512.0, 1.0]
    moved = [_ulps(1.0, 1), 512.0, _ulps(1.0, -1)]
    assert stable_order(scores).tolist() != stable_order(moved).tolist()


def test_equal_scores_fall_in_listed_order() -> None:
    """Two options equal in exact arithmetic (0.3 computed two ways) are taken in the order
    they were listed, whichever is larger in the last bit."""
    a, b = 0.1 + 0.2, 0.3
    assert a != b
    assert stable_order([a, b, 0.5]).tolist() == [0, 1, 2]
    assert stable_order([b, a, 0.5]).tolist() == [0, 1, 2]
    assert stable_argmax([0.5, a, b]) == 0 and stable_argmax([a, b]) == 0


def test_a_threshold_met_in_exact_arithmetic_is_met_everywhere() -> None:
    """P(best) of 1,900 particles in 2,000 is 0.95: summed in any order it meets 0.95."""
    weights = np.full(2000, 1 / 2000)
    forward = float(np.cumsum(weights[:1900])[-1])
    pairwise = float(np.sum(weights[:1900]))
    backward = float(np.cumsum(weights[:1900][::-1])[-1])
    assert {settled(x) >= 0.95 for x in (forward, pairwise, backward)} == {True}


def test_canonical_text_is_the_same_for_values_a_few_ulps_apart() -> None:
    values = [0.6035587999986008, 7.5, 376.0, 1e-12, 0.0]
    moved = [_ulps(x, 3) for x in values]
    assert canonical(values) == canonical(moved)


def test_a_far_tail_likelihood_is_not_zero_on_one_machine_only() -> None:
    """σ(−40) is 4e-18: the tanh form gave 0 or 1.1e-16 depending on the CPU's tanh, so the
    same particle was dead (likelihood 0) on one machine and alive on another."""
    from tradeoff.learn.likelihood import answer_log_likelihoods, outcome_probabilities

    delta = np.array([[-0.04], [0.04]])  # two answers, one particle
    outcomes = np.array([0, 1], dtype=np.intp)
    log_p = answer_log_likelihoods(
        delta, outcomes, np.array([0.0]), np.array([0.001]), np.array([0.0])
    )
    assert np.all(np.isfinite(log_p))
    assert log_p[0, 0] == pytest.approx(-40.0, abs=1e-6)
    unsure = answer_log_likelihoods(
        np.array([[-0.05]]),
        np.array([2], dtype=np.intp),
        np.array([0.0]),
        np.array([0.001]),
        np.array([0.002]),
    )
    assert np.isfinite(unsure[0, 0]) and unsure[0, 0] < -40
    p = outcome_probabilities(-0.05, 0.0, 0.001, 0.002)
    assert float(p[2]) > 0 and float(p.sum()) == pytest.approx(1.0)


def test_a_count_on_a_rounding_boundary_reads_the_same_everywhere() -> None:
    """857.5 per 1,000 reads 858 whatever the last bits of the recall carrying it."""
    from tradeoff.ask.shown import per_thousand

    exact = 0.8575
    assert {per_thousand(_ulps(exact, k)) for k in range(-4, 5)} == {858}


# -- replay's words ----------------------------------------------------------------------------


def _record(tmp_path: Path, strategy: str = "joint", answers: int = 6) -> Path:
    from tradeoff.ask.scenario import load_scenario
    from tradeoff.study.opening import start_session

    loaded = load_scenario(SCENARIO)
    spec = loaded.scenario.elicitation.override(strategy=strategy, budget=answers)
    rec = start_session(loaded, "p1", tmp_path, spec=spec, seed=3)
    while rec.engine.next_query() is not None:
        rec.answer(Choice.LEFT if rec.engine.answered % 3 else Choice.RIGHT)
    rec.finish()
    rec.close()
    return rec.path


def test_a_result_that_recomputes_differently_is_shown_as_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A recorded result line that the replay does not reach (here: written by a patched
    engine) is the result shown, and a warning says by how much the recomputation differs."""
    from dataclasses import replace

    from tradeoff.learn import Engine
    from tradeoff.record.log import read_session
    from tradeoff.record.replay import replay
    from tradeoff.record.summary import summarise

    real = Engine.result

    def off(self: Engine) -> object:
        r = real(self)
        w = list(r.weights)
        w[0] += 0.02
        w[1] -= 0.02
        return replace(r, weights=tuple(w))

    monkeypatch.setattr(Engine, "result", off)
    path = _record(tmp_path)
    monkeypatch.setattr(Engine, "result", real)
    log = read_session(path)
    engine = replay(log)
    assert log.result_difference == pytest.approx(0.02, abs=1e-9)
    (warning,) = log.warnings
    assert "differs from the one recorded" in warning and "2.0 percentage points" in warning
    assert re.search(r"\(weight of (malignant|benign)\)", warning), warning
    assert "recorded result is the one shown" in warning
    shown = summarise(path)
    assert shown.result.weights[0] == pytest.approx(real(engine).weights[0] + 0.02)


def test_the_same_version_never_says_another_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Questions recorded by this version that this machine would not ask (here: a patched
    choice, as a machine whose arithmetic tips a near-tie the other way) are applied as
    recorded, counted, and not called "another version"; the result is the recorded one."""
    from tradeoff.learn.joint import JointStrategy
    from tradeoff.record.log import read_session
    from tradeoff.record.replay import replay

    real = JointStrategy._choose

    def second_best(self: JointStrategy, state: object) -> object:
        q = real(self, state)  # type: ignore[arg-type]
        return None if q is None else q.swapped()

    monkeypatch.setattr(JointStrategy, "_choose", second_best)
    path = _record(tmp_path)
    monkeypatch.setattr(JointStrategy, "_choose", real)
    log = read_session(path)
    replay(log)
    assert log.replay_differs > 0
    assert log.warnings == []
    assert log.result_difference is not None and log.result_difference < 1e-9


def test_another_version_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tradeoff.record.recorder as recorder
    from tradeoff.learn.joint import JointStrategy
    from tradeoff.record.log import read_session
    from tradeoff.record.replay import replay

    real = JointStrategy._choose

    def second_best(self: JointStrategy, state: object) -> object:
        q = real(self, state)  # type: ignore[arg-type]
        return None if q is None else q.swapped()

    monkeypatch.setattr(JointStrategy, "_choose", second_best)
    monkeypatch.setattr(recorder, "__version__", "0.2.0")
    path = _record(tmp_path)
    monkeypatch.undo()
    log = read_session(path)
    replay(log)
    assert any("recorded with 0.2.0" in w for w in log.warnings), log.warnings
