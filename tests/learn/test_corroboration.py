"""Whether one answer holds the pick up (`corroboration.holding_up`) weighs the answers
with the engine's whole answer model at the noisy end of the posterior
(`corroboration.noisy_end`), checked against a direct computation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tradeoff.learn.corroboration import HOLD_DROP, holding_up, noisy_end
from tradeoff.learn.joint_state import JointRecord
from tradeoff.learn.likelihood import outcome_probabilities

pytestmark = pytest.mark.core

#: Weights a of two statistics on a fine grid (the first candidate best while a₀ > 0.5).
DRAWS = np.array([[a, 1 - a] for a in np.linspace(0.005, 0.995, 199)])
FRONT = np.array([[1.0, 0.0], [0.0, 1.0]])


def trade(cut: float, outcome: int) -> JointRecord:
    """An answer about whether a₀ exceeds ``cut``: 0 ("left") says it does."""
    return JointRecord((1.0 - cut, -cut), outcome, "trade", ())


@given(
    st.lists(st.integers(0, 8), min_size=1, max_size=12),
    st.sampled_from([0.25, 0.5, 1.0]),
)
def test_noisy_end_is_the_mean_of_the_upper_share_of_equally_weighted_values(
    values: list[int], share: float
) -> None:
    """Each value repeated 4 times, equal weights: the upper ``share`` is whole values
    when 4·n·share is whole, and the brute force takes its mean."""
    v = np.repeat(np.asarray(values, dtype=np.float64) / 10, 4)
    k = len(v) * share
    if k != int(k) or k == 0:
        return
    want = float(np.sort(v)[::-1][: int(k)].mean())
    assert noisy_end(v, np.ones(len(v)), share) == pytest.approx(want, abs=1e-12)


def brute(records: list[JointRecord], noise: tuple[float, float, float]) -> list[bool]:
    """Leave each answer out and take P(pick 0 is best) over the grid directly."""
    best0 = DRAWS[:, 0] >= 0.5  # a tie goes to the first, as the engine counts it

    def p(rs: list[JointRecord]) -> float:
        w = np.ones(len(DRAWS))
        for r in rs:
            delta = DRAWS @ np.asarray(r.diff)
            w = w * np.maximum(outcome_probabilities(delta, *noise)[:, r.outcome], 1e-12)
        return float(w[best0].sum() / w.sum())

    whole = p(records)
    out = []
    for i in range(len(records)):
        without = p(records[:i] + records[i + 1 :])
        out.append(without < 0.95 and whole - without >= HOLD_DROP)
    return out


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(0.3, 0.7), st.integers(0, 2)),
        min_size=1,
        max_size=6,
    ),
    st.sampled_from([(0.0, 0.0, 0.0), (0.1, 0.0, 0.0), (0.4, 0.0, 0.0), (0.2, 0.01, 0.005)]),
)
def test_holding_up_agrees_with_leaving_each_answer_out_by_hand(
    answers: list[tuple[float, int]], noise: tuple[float, float, float]
) -> None:
    """Each cut lies half a thousandth off the grid of draws (multiples of 0.005): a draw
    exactly on a cut has Δ = 0 in exact arithmetic, and the sign of what the arithmetic
    leaves (±1e-17, which differs between a product of one row and of two) decides a step
    answer there; that tie is another matter than what is checked here."""
    records = [trade(round(c, 3) + 0.0005, o) for c, o in answers]
    got = holding_up(records, DRAWS, FRONT, 0, noise, 0.95).tolist()
    assert got == brute(records, noise)


def test_two_agreeing_answers_hold_the_pick_up_for_a_person_who_slips_often() -> None:
    """Two answers that a₀ > 0.6: at a lapse rate of 0.05 each settles the pick alone; at
    0.4 (one answer in five reversed) neither does, so each holds it up."""
    two = [trade(0.6, 0), trade(0.6, 0)]
    assert holding_up(two, DRAWS, FRONT, 0, (0.05, 0.0, 0.0), 0.95).tolist() == [False, False]
    assert holding_up(two, DRAWS, FRONT, 0, (0.4, 0.0, 0.0), 0.95).tolist() == [True, True]


def test_a_cant_tell_from_a_person_with_no_band_weighs_a_floor_not_minus_infinity() -> None:
    records = [trade(0.6, 0), trade(0.6, 0), trade(0.55, 2)]
    out = holding_up(records, DRAWS, FRONT, 0, (0.05, 0.0, 0.0), 0.95)
    assert out.dtype == bool and out.shape == (3,)
