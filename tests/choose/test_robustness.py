"""Robustness of the pick (`tradeoff.choose.robustness`): rank acceptability against a brute-force
count over the same draws, the smallest weight change against a scan of the factor, the
consensus's acceptability against a count by the selection's rule, and both in
`select --json` and its text."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tradeoff.choose.change_words import change_dict, change_sentence
from tradeoff.choose.robustness import (
    consensus_acceptability,
    consensus_changes,
    rank_acceptability,
    weight_changes,
)
from tradeoff.cli import main
from tradeoff.stable import stable_argmax

from ..conftest import ROOT

pytestmark = [pytest.mark.core, pytest.mark.other_path]

EXAMPLES = sorted((ROOT / "sessions" / "examples").glob("*/*.jsonl"))


def brute_ranks(draws: np.ndarray, vectors: np.ndarray, ranks: int) -> np.ndarray:
    """Each draw's ranking by plain Python sorting (ψ high first, then the earlier row)."""
    n = len(vectors)
    counts = np.zeros((n, ranks))
    for w in draws:
        psi = [sum(float(v[k]) * float(w[k]) for k in range(len(w))) for v in vectors]
        order = sorted(range(n), key=lambda m: (-psi[m], m))
        for r in range(min(ranks, n)):
            counts[order[r], r] += 1
    return counts / len(draws)


# Small integers make ties common, so the tie rule is exercised too.
small_ints = st.integers(0, 3).map(float)


@given(
    st.integers(2, 4).flatmap(
        lambda k: st.tuples(
            hnp.arrays(np.float64, st.tuples(st.integers(1, 40), st.just(k)), elements=small_ints),
            hnp.arrays(np.float64, st.tuples(st.integers(2, 7), st.just(k)), elements=small_ints),
        )
    )
)
def test_rank_acceptability_is_a_count_over_the_draws(arrays: tuple[np.ndarray, ...]) -> None:
    draws, vectors = arrays
    got = rank_acceptability(draws, vectors, ranks=3)
    want = brute_ranks(draws, vectors, 3)[:, : got.shape[1]]
    np.testing.assert_allclose(got, want, atol=1e-12)
    np.testing.assert_allclose(got.sum(axis=0), 1.0)


@pytest.mark.stats  # a statistical run in a file of the core tier
def test_the_first_column_is_the_recommendations_p_best(capsys: pytest.CaptureFixture[str]) -> None:
    """On recorded sessions: P(rank = 1) is the P(best) of the recommendation, and the
    acceptability of every model is the brute-force count over the stakeholder's draws."""
    from tradeoff.choose.decide import decide
    from tradeoff.choose.pool_metric import metric_vectors

    decision = decide(EXAMPLES)
    selection = decision.selection
    for s, rec, table in zip(
        selection.stakeholders, selection.recommendations, selection.acceptability, strict=True
    ):
        assert s.draws is not None and table is not None and rec.p_best is not None
        np.testing.assert_allclose(table[:, 0], rec.p_best, atol=1e-12)
        vectors = metric_vectors(decision.scenario, decision.pool, s.priors)
        subset = s.draws[:300]
        np.testing.assert_allclose(
            rank_acceptability(subset, vectors), brute_ranks(subset, vectors, 3), atol=1e-12
        )

    assert main(["select", *map(str, EXAMPLES), "--json"]) == 2  # sessions need --session
    capsys.readouterr()
    assert main(["select", "--session", *map(str, EXAMPLES), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    for person, rec in zip(data["stakeholders"], selection.recommendations, strict=True):
        first = person["rank_acceptability"][0]
        assert first["name"] == rec.name and first["p_rank_1"] == pytest.approx(rec.probability)
        changes = person["what_would_change_the_pick"]
        assert [c["aspect"] for c in changes] == [
            "flagged malignant lumps",
            "cleared benign lumps",
            "latency",
            "memory",
        ]
        for c in changes:
            assert c["sentence"].startswith(("If ", "No change"))
    assert data["consensus"]["rank_acceptability"][0]["name"] == data["consensus"]["name"]
    assert len(data["consensus"]["what_would_change_it"]) == 4

    assert main(["select", "--session", *map(str, EXAMPLES)]) == 0
    text = capsys.readouterr().out
    assert "Chance of being best, over the weights the answers allow:" in text
    assert "What would change the pick:" in text
    assert "Chance of being the consensus" in text


def argmax(psi: np.ndarray) -> int:
    """The pick by the engine's one tie rule (rounded, then the earlier row): grid values
    make exact ties whose last bits differ between BLAS kernels."""
    return stable_argmax(psi)


@pytest.mark.stats  # a statistical run in a file of the core tier
@given(
    hnp.arrays(np.float64, (6, 3), elements=st.integers(0, 40).map(lambda x: x / 40)),
    hnp.arrays(np.float64, 3, elements=st.integers(1, 20).map(lambda x: x / 20)),
)
def test_the_smallest_change_is_where_a_scan_first_sees_another_pick(
    vectors: np.ndarray, weights: np.ndarray
) -> None:
    """Every factor on a fine grid closer to 1 than the one found keeps the pick; just
    beyond it, the model named wins (a scan over the factor, independent of the formula)."""
    base = argmax(vectors @ weights)
    for change in weight_changes(weights, vectors, ["a", "b", "c"]):
        j = change.index
        for way, found, grid in (
            (+1, change.more, np.geomspace(1, 100, 2001)),
            (-1, change.less, np.geomspace(1, 0.01, 2001)),
        ):
            scaled = [weights.copy() for _ in grid]
            for w, t in zip(scaled, grid, strict=True):
                w[j] *= t
            picks = [argmax(vectors @ w) for w in scaled]
            moved = [t for t, p in zip(grid, picks, strict=True) if p != base]
            if found is None:
                assert not moved
                continue
            factor, winner = found
            inside = [t for t in grid if abs(math.log(t)) < abs(math.log(factor)) * (1 - 1e-9)]
            assert all(p == base for t, p in zip(grid, picks, strict=True) if t in inside)
            beyond = weights.copy()
            beyond[j] *= factor * (1 + way * 1e-7)
            psi = vectors @ beyond
            assert psi[winner] >= psi[base] - 1e-12
            if moved:
                first = moved[0]
                assert abs(math.log(first)) >= abs(math.log(factor)) - 1e-9


@pytest.mark.parametrize("first", [(0.0, 0.375), (0.025, 0.4), (0.625, 1.0)])
def test_a_change_exactly_at_the_end_of_the_range_is_in_it(first: tuple[float, float]) -> None:
    """Scaled by exactly 1/100, the first weight makes the two rows tie (the earlier row
    then wins), though the factor's arithmetic comes out a few last bits below 0.01."""
    weights = np.array([1.0, 0.05, 0.05])
    vectors = np.array([[first[0], 0.0, 0.85], [first[1], 0.0, 0.775]])
    scaled = weights * [0.01, 1, 1]
    assert argmax(vectors @ weights) == 1 and argmax(vectors @ scaled) == 0
    change = weight_changes(weights, vectors, ["a", "b", "c"])[0]
    assert change.less is not None
    assert change.less[0] == pytest.approx(0.01, rel=1e-12) and change.less[1] == 0
    noisy = weight_changes(weights, vectors, ["a", "b", "c"], measured=vectors[None])[0]
    assert noisy.less is not None and noisy.less[0] == pytest.approx(0.01, rel=1e-12)


def brute_consensus(people: list[tuple[np.ndarray, np.ndarray]], ranks: int) -> np.ndarray:
    """Count over paired draws by the consensus rule, written with Python loops."""
    count = min(len(d) for d, _ in people)
    n = len(people[0][1])
    out = np.zeros((n, ranks))
    for d in range(count):
        regrets = []
        for draws, vectors in people:
            psi = [float(np.dot(v, draws[d])) for v in vectors]
            spread = max(psi) - min(psi)
            regrets.append([(max(psi) - p) / spread if spread > 0 else 0.0 for p in psi])
        key = [(max(r[m] for r in regrets), sum(r[m] for r in regrets), m) for m in range(n)]
        order = [m for *_, m in sorted(key)]
        for r in range(ranks):
            out[order[r], r] += 1
    return out / count


def test_consensus_acceptability_is_a_count_by_the_consensus_rule() -> None:
    rng = np.random.default_rng(7)
    vectors = rng.random((8, 3))
    people = [
        (rng.dirichlet([4, 2, 1], 120), vectors),
        (rng.dirichlet([1, 3, 2], 150), vectors * [1.0, 1.1, 0.9]),
        (rng.dirichlet([1, 1, 5], 130), vectors),
    ]
    got = consensus_acceptability([d for d, _ in people], [v for _, v in people])
    np.testing.assert_allclose(got, brute_consensus(people, 3), atol=1e-12)

    means = [d.mean(axis=0) for d, _ in people]
    base = int(
        np.argmax(
            brute_consensus([(m[None, :], v) for m, (_, v) in zip(means, people, strict=True)], 1)[
                :, 0
            ]
        )
    )
    for change in consensus_changes(means, [v for _, v in people], ["a", "b", "c"]):
        for found in (change.more, change.less):
            if found is None:
                continue
            factor, winner = found
            for t, expect_base in ((factor**0.999, True), (factor, False)):
                scaled = [m.copy() for m in means]
                for m in scaled:
                    m[change.index] *= t
                table = brute_consensus(
                    [(m[None, :], v) for m, (_, v) in zip(scaled, people, strict=True)], 1
                )
                pick = int(np.argmax(table[:, 0]))
                assert (pick == base) == expect_base
                if not expect_base:
                    assert pick == winner


def test_a_zero_weight_cannot_change_the_pick_and_says_so() -> None:
    vectors = np.array([[1.0, 0.0, 0.2], [0.0, 1.0, 0.9], [0.5, 0.5, 0.1]])
    a, b, c = weight_changes([0.7, 0.3, 0.0], vectors, ["x", "y", "z"])
    assert c.more is None and c.less is None
    assert change_sentence(c, ["m0", "m1", "m2"]).startswith("No change in how much z matters")
    assert b.more is not None and b.more[1] in (1, 2)
    assert change_sentence(b, ["m0", "m1", "m2"]).startswith("If y mattered ")
    said = change_dict(c, ["m0", "m1", "m2"])
    assert said["sentence"] == change_sentence(c, ["m0", "m1", "m2"])
    assert said["more"] is None and "sentence" not in c.to_dict(["m0", "m1", "m2"])
    assert a.less is not None and a.more is None  # more of x only helps m0, the pick
