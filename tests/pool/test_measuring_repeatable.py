"""`pool from-sklearn` measures the same numbers again: an estimator that leaves its
``random_state`` as ``None`` (a forest's bootstraps, a tree's order of features, a
guesser's guesses) drew from numpy's global generator unseeded, so the same command wrote
other recalls each time (a depth-3 tree's benign recall 0.9524 once, 0.9496 the next). It
is seeded with ``--seed`` while each estimator is fitted, and left as it was for the
caller."""

from __future__ import annotations

import numpy as np
import pytest

from tradeoff.pool import load_dataset
from tradeoff.pool.measuring import measure

pytestmark = pytest.mark.core

COLUMNS = ["recall_malignant", "recall_benign", "accuracy"]


def test_an_unseeded_estimator_measures_the_same_whatever_the_global_generator() -> None:
    dummy = pytest.importorskip("sklearn.dummy", reason="the sklearn extra is not installed")
    dataset = load_dataset("breast_cancer")
    # guesses at random, from the global generator: every draw shows in its recalls
    bayes = pytest.importorskip("sklearn.naive_bayes")
    guesser = {"guesser": dummy.DummyClassifier(strategy="uniform"), "nb": bayes.GaussianNB()}

    def recalls() -> list[float]:
        frame = measure(guesser, dataset, seed=0, latency_repeats=1).frame
        return [float(frame[c].iloc[0]) for c in COLUMNS]

    np.random.seed(123)  # noqa: NPY002 - the caller's own use of the global generator
    state = np.random.get_state()  # noqa: NPY002
    first = recalls()
    after = np.random.get_state()  # noqa: NPY002
    assert after[0] == state[0] and (after[1] == state[1]).all() and after[2] == state[2]
    assert recalls() == first  # the generator has moved on since: the same numbers
    np.random.seed(999)  # noqa: NPY002
    assert recalls() == first
