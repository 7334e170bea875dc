"""The one Pareto rule (:mod:`tradeoff.pareto`): against a brute-force O(n²) reading of its
docstring and against moocore, with ties and duplicates; every room that asks for a front
follows it, values apart only in their last bits included."""

from __future__ import annotations

import hypothesis.extra.numpy as hnp
import moocore
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tradeoff.choose import copa
from tradeoff.choose.informed import informed_order
from tradeoff.judge.fronts import hypervolume
from tradeoff.judge.fronts import nondominated as judge_front
from tradeoff.learn.posterior import non_dominated
from tradeoff.pareto import (
    dominated_by_any,
    dominates,
    dominates_reference,
    nondominated,
    pareto_mask,
    settled_columns,
)
from tradeoff.stable import rounded_rows

pytestmark = pytest.mark.core


def brute(y: np.ndarray, duplicates: str) -> np.ndarray:
    """The docstring's rule, pair by pair: a dominates b when no worse on every column and
    better on one; of equal rows, all or the first."""
    n = len(y)
    keep = np.ones(n, dtype=bool)
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            if np.all(y[j] <= y[i]) and np.any(y[j] < y[i]):
                keep[i] = False
            if duplicates == "first" and j < i and np.array_equal(y[j], y[i]):
                keep[i] = False
    return keep


# Small integers: many ties and duplicate rows; settling leaves them as they are.
tied = st.integers(1, 4).flatmap(
    lambda k: hnp.arrays(
        np.float64, st.tuples(st.integers(0, 30), st.just(k)), elements=st.integers(0, 3).map(float)
    )
)
# Any finite values, with some rows copied and some nudged by a last bit.
loose = st.integers(1, 4).flatmap(
    lambda k: hnp.arrays(
        np.float64,
        st.tuples(st.integers(1, 25), st.just(k)),
        elements=st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False),
    )
)


@settings(max_examples=80, deadline=None)
@given(tied, st.sampled_from(["all", "first"]), st.booleans())
def test_the_rule_is_the_brute_force_one_and_moocores_on_ties(
    y: np.ndarray, duplicates: str, maximise: bool
) -> None:
    got = nondominated(y, duplicates=duplicates, maximise=maximise)  # type: ignore[arg-type]
    assert got.tolist() == brute(-y if maximise else y, duplicates).tolist()
    if len(y):
        theirs = moocore.is_nondominated(y, maximise=maximise, keep_weakly=duplicates == "all")
        assert got.tolist() == np.asarray(theirs, dtype=bool).tolist()


@settings(max_examples=80, deadline=None)
@given(loose, st.data())
def test_any_values_follow_the_rule_on_their_settled_columns(
    y: np.ndarray, data: st.DataObject
) -> None:
    copies = data.draw(st.lists(st.integers(0, len(y) - 1), max_size=4))
    y = np.vstack([y, y[copies], np.nextafter(y[copies], np.inf)])  # duplicates, last bits
    settled = settled_columns(y)
    assert np.array_equal(settled, rounded_rows(y.T).T)  # stable.py's rounding, per column
    for duplicates in ("all", "first"):
        got = nondominated(y, duplicates=duplicates)  # type: ignore[arg-type]
        assert got.tolist() == brute(settled, duplicates).tolist()
    mask = pareto_mask(y)
    assert (~mask).tolist() == dominated_by_any(y, range(len(y))).tolist()
    i, j = data.draw(st.integers(0, len(y) - 1)), data.draw(st.integers(0, len(y) - 1))
    pair = settled_columns(y[[i, j]])
    assert dominates(y[i], y[j]) == bool(np.all(pair[0] <= pair[1]) and np.any(pair[0] < pair[1]))


def test_equal_rows_neither_dominate_and_first_keeps_the_earliest() -> None:
    y = np.array([[2.0, 2.0], [1.0, 3.0], [2.0, 2.0], [3.0, 3.0]])
    assert not dominates(y[0], y[2]) and not dominates(y[2], y[0])
    assert nondominated(y).tolist() == [True, True, True, False]
    assert nondominated(y, duplicates="first").tolist() == [True, True, False, False]


def test_values_apart_in_their_last_bits_are_equal_in_every_room() -> None:
    """0.1 + 0.2 and 0.3 differ in the last bit only: the row better on the other
    objective dominates, for the front shown, the engine's candidates, the judge's fronts
    and the reference point alike (before, each room compared the bits and kept both)."""
    y = np.array([[0.3, 1.0], [0.1 + 0.2, 0.5]])  # minimised: row 1 is as good, and better
    assert pareto_mask(y).tolist() == [False, True]
    assert judge_front(y).tolist() == [False, True]
    assert non_dominated(-y).tolist() == [1]  # the engine maximises
    assert dominates_reference(np.array([[0.1 + 0.2, 0.0]]), np.array([0.3, 1.0])).tolist() == [
        False
    ]


def test_the_copa_superset_compares_exactly() -> None:
    """COPA's candidates are a superset scored with its own tolerance: exact dominance
    (``settle=False``), so a model better by a last bit stays a candidate."""
    phi = np.array([[0.1 + 0.2, 0.5], [0.3, 0.6]])
    assert copa.candidates(phi).tolist() == [0, 1]
    assert nondominated(phi).tolist() == [True, False]


def test_the_informed_order_breaks_a_tie_by_the_rule() -> None:
    """An unasked aspect breaks a practical tie by dominance as shown: the first model of
    the tie that no other dominates (the docstring example of :func:`informed_order`)."""
    from tradeoff.ask.scenario import load_scenario

    sc = load_scenario("scenarios/breast-cancer-triage.toml").scenario
    values = np.array(
        [[0.90, 0.95, 1.0, 2.0], [0.90, 0.95 + 1e-5, 1.0, 600.0], [0.99, 0.95, 1.0, 700.0]]
    )
    o = informed_order(
        sc, values, [0.37, 0.63], (1, 1, 1, 0), [0, 1, 2], weights=[0.5, 0.3, 0.002, 0.0]
    )
    assert o.order == (2, 0, 1)


def test_a_hypervolume_keeps_its_value_with_duplicates_and_dominated_points() -> None:
    front = np.array([[1.0, 3.0], [2.0, 2.0], [3.0, 1.0]])
    more = np.vstack([front, front[[1]], [[2.5, 2.5]]])
    assert hypervolume(more, [4.0, 4.0]) == hypervolume(front, [4.0, 4.0]) == 6.0
