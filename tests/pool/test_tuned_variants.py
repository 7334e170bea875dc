"""Tuned variants that would mislead without a word: a threshold-wrapped model's variant
was a second row identical to the variant of the model it wraps, and the variant of a
``class_weight="balanced"`` model on fraud-like data (3% positives) gave up the other
class (a recall of 0.11 against its model's 0.74) and entered the pool unremarked."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import FixedThresholdClassifier

from tradeoff.pool.measuring import Dataset, Tuning, measure

pytestmark = pytest.mark.e2e

PERSON = Tuning("kim", (0.96, 0.04), (0.03, 0.97))  # a fraud found outweighs 24 legit flagged


@pytest.fixture(scope="module")
def measured() -> object:
    x, y = make_classification(
        n_samples=1500,
        n_features=8,
        n_informative=4,
        weights=[0.97],
        flip_y=0.01,
        class_sep=0.8,
        random_state=3,
    )
    data = Dataset(x, np.where(y == 1, 0, 1), {0: "fraud", 1: "legit"}, "fraud-like", "toy")
    models = {
        "lr": LogisticRegression(max_iter=1000),
        "lr-t03": FixedThresholdClassifier(LogisticRegression(max_iter=1000), threshold=0.3),
        "lr-balanced": LogisticRegression(max_iter=1000, class_weight="balanced"),
    }
    return measure(models, data, folds=3, latency_repeats=2, tuned=PERSON)


def test_a_threshold_wrapper_shares_its_models_variant(measured: object) -> None:
    frame = measured.frame  # type: ignore[attr-defined]
    assert frame["model"].tolist() == [
        "lr",
        "lr (tuned for kim)",
        "lr-t03",
        "lr-balanced",
        "lr-balanced (tuned for kim)",
    ]
    notes = measured.notes  # type: ignore[attr-defined]
    assert any(
        n.startswith("'lr (tuned for kim)' is also the tuned variant of 'lr-t03'") for n in notes
    )


def test_a_variant_that_gives_up_a_class_is_named_with_its_cause(measured: object) -> None:
    frame = measured.frame.set_index("model")  # type: ignore[attr-defined]
    collapsed = frame.loc["lr-balanced (tuned for kim)", "recall_legit"]
    own = frame.loc["lr-balanced", "recall_legit"]
    assert collapsed < 0.2 <= own / 2
    said = [n for n in measured.notes if "gives up" in n]  # type: ignore[attr-defined]
    assert len(said) == 1  # the plain model's variant keeps both classes
    assert said[0].startswith(
        f"'lr-balanced (tuned for kim)' finds {collapsed:.0%} of legit, where 'lr-balanced' "
        f"finds {own:.0%}"
    )
    assert "class_weight" in said[0]
    provenance = measured.provenance["tuned"]  # type: ignore[attr-defined]
    assert provenance["notes"] == list(measured.notes)  # type: ignore[attr-defined]
