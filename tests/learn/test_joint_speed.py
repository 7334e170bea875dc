"""Strategy `joint` does per answer only the work its question needs: what it builds and
keeps between answers gives the same numbers as building it afresh."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest

import tradeoff.learn.joint_questions as joint_questions
from tradeoff.ask.queries import Query, profile_key
from tradeoff.ask.scenario import parse_scenario
from tradeoff.learn import lookahead
from tradeoff.learn.base import asked_aspects
from tradeoff.learn.joint import JointStrategy
from tradeoff.learn.joint_questions import Questions
from tradeoff.learn.joint_state import JointRecord, JointState
from tradeoff.learn.likelihood import (
    NOISE_PRIOR,
    answer_log_likelihoods,
    answer_probabilities,
    answer_signs,
    outcome_probabilities,
    signed_log_likelihoods,
)
from tradeoff.learn.swing_prior import log_sum, swing_log_prior

from ..conftest import spec
from .test_joint import CHOICES, SMALL, profile, slow_scores, small_space

pytestmark = pytest.mark.core


def test_a_trade_reads_its_cards_only_when_asked_what_differs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Building a trade to score it does not lay out its cards (most trades built are
    only scored); what differs on them is read on first use, as it reads afresh."""
    calls: list[Any] = []

    def counted(*args: Any) -> tuple[bool, ...]:
        calls.append(args)
        return asked_aspects(*args)

    monkeypatch.setattr(joint_questions, "asked_aspects", counted)
    monkeypatch.setattr(joint_questions, "_TRADES", {})
    space = small_space()
    trade = Questions(space, True).trade(0, 2, 0.37, 0.6)
    assert calls == []
    assert trade.differs == asked_aspects(space.scenario, (trade.query,))
    assert trade.differs == asked_aspects(space.scenario, (trade.query,))
    assert len(calls) == 1


def test_trades_that_read_the_same_are_built_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Trades aimed at neighbouring exchange rates often read the same once rounded as
    shown: the first one's keys and differences serve the others (one trade, keyed once),
    and each is what building it afresh gives."""
    keyed: list[Any] = []

    def counted(profile: Any) -> str:
        keyed.append(profile)
        return profile_key(profile)

    monkeypatch.setattr(joint_questions, "profile_key", counted)
    monkeypatch.setattr(joint_questions, "_TRADES", {})
    monkeypatch.setattr(joint_questions, "_SHOWN_TRADES", {})
    questions = Questions(small_space(), True)
    aims = [round(0.30 + 0.01 * k, 2) for k in range(12)]
    trades = [questions.trade(0, 2, aim, 0.6) for aim in aims]
    distinct = {t.keys for t in trades}
    assert len(distinct) < len(trades)  # some read the same
    assert len(keyed) == 2 * len(distinct)
    for aim, t in zip(aims, trades, strict=True):
        monkeypatch.setattr(joint_questions, "_TRADES", {})
        monkeypatch.setattr(joint_questions, "_SHOWN_TRADES", {})
        fresh = Questions(small_space(), True).trade(0, 2, aim, 0.6)
        assert fresh.query == t.query and fresh.keys == t.keys
        np.testing.assert_allclose(fresh.diff, t.diff, rtol=0, atol=0)


def _after_answers(seed: int = 7) -> tuple[JointStrategy, JointState]:
    """A strategy on the small space with six candidates, after six answers that
    contradict each other (so the noise parameters' tails differ)."""
    space = small_space()
    rng = np.random.default_rng(4)
    candidates = np.column_stack(
        (rng.uniform(0.15, 0.3, 6), rng.uniform(0.35, 0.7, 6), rng.uniform(-1, 0, 6))
    )
    strategy = JointStrategy(space, spec(parse_scenario(SMALL)), seed, candidates=candidates)
    state = strategy.initial()
    for i, j, outcome in [(0, 1, 0), (1, 2, 0), (0, 2, 1), (3, 4, 0), (4, 3, 0), (2, 5, 2)]:
        left, right = profile(space, candidates[i]), profile(space, candidates[j])
        query = Query(left, right, (0, 1), (0.5, 0.5))
        state = strategy.update(state, query, CHOICES[outcome])
    return strategy, state


@pytest.mark.parametrize("aims_at_decision", [True, False])
def test_the_look_ahead_skips_particles_without_weight(
    monkeypatch: pytest.MonkeyPatch, aims_at_decision: bool
) -> None:
    """The look-ahead computes answer probabilities only for particles with weight (the
    summary's weights leave about two in five at 0), and scores every question as it
    does with every particle in."""
    strategy, state = _after_answers()
    summary = strategy.posterior.summary(state)
    options = strategy._options(summary)
    assert len(options) > 3
    weighed = int(np.count_nonzero(summary.weights > 0))
    assert 0 < weighed < len(summary.weights)
    seen: list[int] = []

    def counted(delta: np.ndarray, *args: Any, **kwargs: Any) -> np.ndarray:
        seen.append(delta.shape[1])
        return answer_probabilities(delta, *args, **kwargs)

    monkeypatch.setattr(lookahead, "answer_probabilities", counted)
    got = lookahead.scores(summary, state, options, strategy.noise_grid, aims_at_decision)
    assert seen == [weighed]
    # Every particle in: the weights nudged off 0 by far less than the scores' rounding.
    nudged = replace(summary, weights=np.where(summary.weights > 0, summary.weights, 1e-300))
    every = lookahead.scores(nudged, state, options, strategy.noise_grid, aims_at_decision)
    assert seen[-1] == len(summary.weights)
    assert got == pytest.approx(every, rel=1e-9, abs=1e-12)


def test_the_verdict_is_kept_for_the_state() -> None:
    """The stop and the choice of a question read the same verdict: it is worked out once
    per state, and is what a strategy that never saw the state works out."""
    strategy, state = _after_answers()
    verdict = strategy.verdict(state)
    assert verdict is not None
    assert strategy.verdict(state) is verdict
    fresh, _ = _after_answers()
    again = fresh.verdict(state)
    assert again is not None and again is not verdict
    assert (again.pick, again.tied) == (verdict.pick, verdict.tied)
    assert (again.p_best, again.p_near, again.regret) == pytest.approx(
        (verdict.p_best, verdict.p_near, verdict.regret)
    )


def test_the_move_likelihood_with_signs_and_looked_up_logs_is_the_likelihood() -> None:
    """The move takes the answers' signs once and looks each noise cell's logarithms up
    (:func:`~tradeoff.learn.likelihood.signed_log_likelihoods`): the same log likelihood
    as :func:`~tradeoff.learn.likelihood.answer_log_likelihoods` and as the documented
    probabilities, for every kind of answer and every cell of the shipped grid."""
    rng = np.random.default_rng(3)
    grid = NOISE_PRIOR
    cells = np.arange(len(grid.cell_lapse), dtype=np.intp)
    outcomes = rng.integers(0, 3, size=7).astype(np.intp)
    delta = rng.normal(0.0, 0.01, size=(7, len(cells)))
    lapse, temp, band = grid.values(cells)
    signed = signed_log_likelihoods(
        delta * answer_signs(outcomes)[:, None],
        np.flatnonzero(outcomes == 2),
        lapse,
        temp,
        band,
        grid.cell_log_hit[cells],
        grid.cell_log_miss[cells],
        grid.cell_log_within[cells],
    )
    plain = answer_log_likelihoods(delta, outcomes, lapse, temp, band)
    np.testing.assert_allclose(signed, plain, rtol=1e-12, atol=0)
    documented = outcome_probabilities(delta, lapse, temp, band)
    rows = np.take_along_axis(documented, outcomes[:, None, None], axis=2)[:, :, 0]
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(signed, np.log(rows), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("cell", [0, 9, 60, 100, 287, 431])
def test_the_likelihood_of_draws_sharing_one_noise_is_the_likelihood(cell: int) -> None:
    """The stop's check weighs its draws with one (ε, T, δ) for all of them: the logistic
    then runs on whole rows, nothing gathered; the same log likelihood as with the draws
    among particles of another noise (gathered) and as the documented probabilities, for
    every kind of answer, at cells with and without a temperature and a band."""
    rng = np.random.default_rng(cell)
    grid = NOISE_PRIOR
    outcomes = np.array([0, 1, 2, 0, 2, 1, 0], dtype=np.intp)
    delta = rng.normal(0.0, 0.01, size=(7, 400))
    delta[:, :4] = (0.0, 1e-4, -1e-4, 0.003)  # within and at the edge of the bands
    each = tuple(np.full(400, v[0]) for v in grid.values(np.array([cell])))
    alone = answer_log_likelihoods(delta, outcomes, *each)
    other = int(np.flatnonzero(grid.cell_temperature != grid.cell_temperature[cell])[0])
    others = grid.values(np.array([other]))
    among = tuple(np.append(v, o) for v, o in zip(each, others, strict=True))
    gathered = answer_log_likelihoods(np.column_stack((delta, delta[:, :1])), outcomes, *among)
    np.testing.assert_allclose(alone, gathered[:, :400], rtol=1e-12, atol=0)
    documented = outcome_probabilities(delta, *(v[None, :] for v in each))
    rows = np.take_along_axis(documented, outcomes[:, None, None], axis=2)[:, :, 0]
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(alone, np.log(rows), rtol=1e-9, atol=1e-12)


def test_the_logistic_written_over_its_argument_is_the_logistic() -> None:
    """The move's likelihood writes the logistic over its argument
    (:func:`~tradeoff.learn.likelihood._sigmoid_into` with ``out`` its argument): the same
    operations as :func:`~tradeoff.stable.sigmoid`, so the same numbers to the last bit, in
    both tails."""
    from tradeoff.learn.likelihood import _sigmoid_into
    from tradeoff.stable import sigmoid

    a = np.random.default_rng(9).normal(0.0, 30.0, size=(7, 1001))
    a[0, :3] = (0.0, -0.0, -800.0)
    out = a.copy()
    _sigmoid_into(out, out, np.empty_like(a))
    assert np.array_equal(out, sigmoid(a))
    assert float(sigmoid(0.0)) == 0.5 and float(sigmoid(-800.0)) == 0.0


def test_the_move_weighs_each_kind_of_particle_as_one_block(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The move's likelihood takes the particles answering from the numbers and those with
    a temperature as two blocks (no work on a column that the other formula overwrites):
    per particle, the log likelihood of every answer as all particles at once give it."""
    from tradeoff.learn import particle_move
    from tradeoff.learn.joint_state import JointRecord

    strategy, _ = _after_answers()
    kernel = strategy.posterior.kernel
    rng = np.random.default_rng(11)
    cells = rng.integers(0, len(NOISE_PRIOR.cell_lapse), size=500).astype(np.intp)
    outcomes = np.array([0, 1, 2, 0, 1], dtype=np.intp)
    records = [JointRecord(tuple(rng.normal(size=3)), int(o), "trade", ((), ())) for o in outcomes]
    natural = rng.dirichlet(np.ones(3), size=500) * 0.01
    delta = np.array([r.diff for r in records]) @ natural.T
    powers = np.array([1.0, 1.0, 1.0, 1.0, 0.4])
    expected = kernel._log_likelihood_of(delta, cells, records, powers)
    kinds: list[set[bool]] = []

    def seen(d: np.ndarray, unsure: Any, lapse: Any, temp: np.ndarray, *args: Any) -> Any:
        kinds.append(set((temp > 0).tolist()))
        return signed_log_likelihoods(d, unsure, lapse, temp, *args)

    monkeypatch.setattr(particle_move, "signed_log_likelihoods", seen)
    got = kernel._signed_log_likelihood(
        delta * answer_signs(outcomes)[:, None], cells, np.flatnonzero(outcomes == 2), powers
    )
    assert kinds == [{False}, {True}]
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0)


def test_a_state_is_looked_up_without_hashing_its_answers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The summaries and verdicts kept per state find it by the digest of its answers:
    a long session does not hash every answer again at each look-up."""
    strategy, state = _after_answers()

    def refuse(self: JointRecord) -> int:
        raise AssertionError("an answer was hashed")

    monkeypatch.setattr(JointRecord, "__hash__", refuse)
    first = strategy.posterior.summary(state)
    assert strategy.posterior.summary(state) is first
    assert strategy.verdict(state) is strategy.verdict(state)
    again = JointState(state.records, state.key, state.swing, state.noise, state.log_weights)
    assert again == state and hash(again) == hash(state)


def test_the_prior_takes_the_weights_logarithms_once() -> None:
    """The move hands the prior the Σ log s it needs for the Jacobian too
    (:func:`~tradeoff.learn.swing_prior.log_sum`): the same density as the prior's own."""
    s = np.random.default_rng(2).dirichlet(np.ones(4), size=50)
    spans = [0.3, 0.7, 1.0, 2.0]
    for sparse, natural in ((0.0, 0.0), (0.25, 0.0), (0.25, 0.2)):
        plain = swing_log_prior(s, spans, sparse, natural)
        given = swing_log_prior(s, spans, sparse, natural, logs=log_sum(s))
        np.testing.assert_allclose(given, plain, rtol=1e-12)
        columns = swing_log_prior(s.T, spans, sparse, natural, axis=0, logs=log_sum(s.T, axis=0))
        np.testing.assert_allclose(columns, plain, rtol=1e-12)


def test_the_look_ahead_hands_the_logistic_one_block_of_particles(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The look-ahead orders its particles with those answering with a temperature first
    (:func:`~tradeoff.learn.lookahead.graded_first`), so the logistic runs on one block of
    columns, and scores every question as the particles in their own order do (the slow
    particle-by-particle version is checked in test_joint.py)."""
    strategy, _ = _after_answers()
    state = strategy.initial()  # the prior: half the particles answer from the numbers
    summary = strategy.posterior.summary(state)
    options = strategy._options(summary)
    temps: list[np.ndarray] = []

    def seen(
        delta: np.ndarray, lapse: Any, temp: np.ndarray, *args: Any, **kwargs: Any
    ) -> np.ndarray:
        temps.append(temp)
        return answer_probabilities(delta, lapse, temp, *args, **kwargs)

    monkeypatch.setattr(lookahead, "answer_probabilities", seen)
    got = lookahead.scores(summary, state, options, strategy.noise_grid, True)
    (temp,) = temps
    graded = temp > 0
    assert 0 < graded.sum() < len(temp)
    assert graded[: graded.sum()].all()  # one block, first
    # The same scores from the particles in their own order (the probabilities gathered).
    monkeypatch.setattr(lookahead, "graded_first", lambda order, *_: order)
    plain = lookahead.scores(summary, state, options, strategy.noise_grid, True)
    assert got == pytest.approx(plain, rel=1e-9, abs=1e-12)


def test_answer_probabilities_on_a_block_of_graded_particles_as_gathered() -> None:
    """:func:`~tradeoff.learn.likelihood.answer_probabilities` gives every particle the
    same probabilities whether those with a temperature come first (one block) or not."""
    rng = np.random.default_rng(5)
    cells = rng.integers(0, len(NOISE_PRIOR.cell_lapse), size=300)
    delta = rng.normal(0.0, 0.005, size=(9, 300))
    weights = rng.random(300)
    lapse, temp, band = NOISE_PRIOR.values(cells)
    order = np.argsort(temp == 0, kind="stable")  # the graded first
    assert not (temp == 0)[order][:1].any() and (temp[order] == 0).any()
    mixed = answer_probabilities(delta, lapse, temp, band, weights)
    block = answer_probabilities(
        delta[:, order], lapse[order], temp[order], band[order], weights[order]
    )
    np.testing.assert_allclose(block, mixed[:, :, order], rtol=1e-12, atol=0)


@pytest.mark.parametrize("unsure", [True, False])
def test_the_look_aheads_block_mixes_in_forced_choice_without_gathering(
    monkeypatch: pytest.MonkeyPatch, unsure: bool
) -> None:
    """With the particles in the look-ahead's order (:func:`~tradeoff.learn.lookahead.
    graded_first` with their bands), the forced-choice part of the answer model is mixed in
    on blocks of columns, not gathered by band: the same probabilities as the particles in
    any order, and as the documented ones."""
    from tradeoff.learn import likelihood

    rng = np.random.default_rng(6)
    cells = rng.integers(0, len(NOISE_PRIOR.cell_lapse), size=400)
    delta = rng.normal(0.0, 0.005, size=(9, 400))
    delta[:, :5] = (0.0, -0.0, 1e-4, -1e-4, 0.003)
    weights = rng.random(400)
    lapse, temp, band = NOISE_PRIOR.values(cells)
    order = lookahead.graded_first(np.arange(400), temp, band)
    gathered = answer_probabilities(delta, lapse, temp, band, weights, unsure=unsure)

    def refused(*args: Any) -> None:
        raise AssertionError("gathered by band")

    monkeypatch.setattr(likelihood, "_mix_forced", refused)
    block = answer_probabilities(
        delta[:, order], lapse[order], temp[order], band[order], weights[order], unsure=unsure
    )
    np.testing.assert_allclose(block, gathered[:, :, order], rtol=1e-12, atol=0)
    documented = outcome_probabilities(delta, lapse, temp, band) * weights[None, :, None]
    np.testing.assert_allclose(
        block, np.moveaxis(documented, 2, 0)[: len(block)][:, :, order], rtol=1e-9, atol=1e-15
    )


def test_the_logistic_written_into_the_look_aheads_block_is_the_logistic() -> None:
    """The look-ahead writes the logistic straight into its array
    (:func:`~tradeoff.learn.likelihood._sigmoid_into`): the same operations as
    :func:`~tradeoff.stable.sigmoid`, so the same numbers to the last bit, in both tails."""
    from tradeoff.learn.likelihood import _sigmoid_into
    from tradeoff.stable import sigmoid

    a = np.random.default_rng(8).normal(0.0, 30.0, size=(7, 1001))
    a[0, :3] = (0.0, -0.0, -800.0)
    out = np.empty_like(a)
    _sigmoid_into(a, out, np.empty_like(a))
    assert np.array_equal(out, sigmoid(a))


def test_the_noisy_tails_are_found_by_sorting_the_cells_ranks() -> None:
    """The summaries' weights find each noise parameter's upper tail by sorting its index
    in the grid (:meth:`~tradeoff.learn.likelihood.NoiseGrid.ranks`) instead of its value:
    the same order, so the same weights to the last bit."""
    from tradeoff.learn import particles

    strategy, state = _after_answers()
    grid = strategy.noise_grid
    ranks = grid.ranks(state.noise)
    assert ranks is not None
    w = state.weights()
    for rank, values in zip(ranks, grid.values(state.noise), strict=True):
        assert rank.dtype.itemsize <= 2  # sorted by radix
        assert np.array_equal(np.argsort(-rank, kind="stable"), np.argsort(-values, kind="stable"))
    got = strategy.posterior.robust_weights(state)
    parts = []
    for values in grid.values(state.noise):
        tail = particles._upper_tail(values, w, particles.NOISE_TAIL)
        parts.append(w if tail is None else tail)
    assert np.array_equal(got, np.mean(parts, axis=0))


def test_the_look_ahead_takes_both_sides_logistic_from_one_exp(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A particle answering with a temperature takes σ(Δ/T) and σ(−Δ/T) from one exp
    (with δ = 0 for both sides, with δ > 0 for the forced-choice part): the look-ahead
    exponentiates (questions × (particles with δ = 0 + 3 × those with δ > 0)) numbers
    where it took (2 + 2) per particle with a band, and scores every question as before."""
    from tradeoff.learn import likelihood

    strategy, _ = _after_answers()
    state = strategy.initial()  # the prior: both kinds of graded particles
    summary = strategy.posterior.summary(state)
    options = strategy._options(summary)
    plain = lookahead.scores(summary, state, options, strategy.noise_grid, True)
    taken: list[int] = []
    for name in ("_sigmoid_into", "_sigmoid_pair_into", "sigmoid"):
        original = getattr(likelihood, name)

        def counted(a: Any, *args: Any, _f: Any = original, **kwargs: Any) -> Any:
            taken.append(np.asarray(a).size)
            return _f(a, *args, **kwargs)

        monkeypatch.setattr(likelihood, name, counted)
    got = lookahead.scores(summary, state, options, strategy.noise_grid, True)
    w = summary.weights
    _, temp, band = strategy.noise_grid.values(state.noise)
    graded = (w > 0) & (temp > 0)
    exact, banded = int((graded & (band == 0)).sum()), int((graded & (band > 0)).sum())
    assert exact and banded
    assert sum(taken) == len(options) * (exact + 3 * banded)
    assert got == pytest.approx(plain, rel=1e-9, abs=1e-12)


def test_the_deciding_look_ahead_takes_cant_tell_as_the_rest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Aiming at the pick, the look-ahead works out P(left) and P(right) per particle and
    takes "can't tell" as the rest of each particle's weight (two rows per question, not
    three), with the scores of the particle-by-particle version that works out all three."""
    strategy, state = _after_answers()
    summary = strategy.posterior.summary(state)
    options = strategy._options(summary)
    rows: list[int] = []

    def counted(*args: Any, **kwargs: Any) -> np.ndarray:
        out = answer_probabilities(*args, **kwargs)
        rows.append(out.shape[0])
        return out

    monkeypatch.setattr(lookahead, "answer_probabilities", counted)
    got = lookahead.scores(summary, state, options, strategy.noise_grid, True)
    assert rows == [2]
    # The particle-by-particle version, with all three answers (test_joint.py).
    assert got == pytest.approx(slow_scores(strategy, state, options), rel=1e-9, abs=1e-12)
