"""A person's own decision rule as variants of a measured pool's models (``pool from-sklearn
--for``): :class:`Tuning`, the variants added (:func:`with_variants`) and what is said
about them (:func:`collapsed_notes`).

Two things a variant can get wrong without a word, now said:

- **One variant per set of probabilities.** A threshold wrapper
  (``FixedThresholdClassifier``, ``TunedThresholdClassifierCV``) changes a model's
  decisions, not its ``predict_proba``, and the person's rule reads only the probabilities:
  its variant would be a second row identical to the variant of the model it wraps. Such a
  variant is measured once, under the first model's name, and a note names the models it
  stands for.
- **A rule that gives up a class.** The rule assumes probabilities calibrated to the
  training shares; a model trained with ``class_weight="balanced"`` gives probabilities
  for balanced classes, so its variant can call almost nothing the rarer class's
  opposite (a recall of 0.09). A variant whose recall of some class is below
  :data:`COLLAPSED_RECALL` while its model's is at least twice as high is named in a note,
  with the cause when the model weighs its classes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from tradeoff.errors import InputError

__all__ = ["COLLAPSED_RECALL", "THRESHOLD_WRAPPERS", "Tuning", "collapsed_notes", "with_variants"]

#: A tuned variant's recall of a class below this, where its model's is at least twice as
#: high, is a collapsed class.
COLLAPSED_RECALL = 0.2

#: scikit-learn's meta-estimators that move a model's threshold and keep its probabilities
#: (the wrapped model is their ``estimator``).
THRESHOLD_WRAPPERS = ("FixedThresholdClassifier", "TunedThresholdClassifierCV")


@dataclass(frozen=True)
class Tuning:
    """A person's own decision rule, as plain numbers, for :func:`~tradeoff.pool.measure`.

    ``weights`` are the metric's weight of each class (on d_k = π_k·recall_k, paper 004 §2)
    and ``prevalences`` the scenario's class shares π_k, both in the dataset's class order
    (``Dataset.classes``); ``participant`` names whom the variants are for. Every candidate
    with ``predict_proba`` gains the variant
    ``PersonalRule(candidate, weights, prevalences)`` (:mod:`tradeoff.pool.rule`), named
    ``"<model> (tuned for <participant>)"`` and measured as every other model (the same
    folds or split, latency and size), with the columns ``variant_of`` (the model it is a
    variant of; empty for the others) and ``tuned_for``. For a posterior over the weights
    give the posterior mean: the metric is linear in the weights, so the rule that
    maximises the posterior expected metric is the rule of the mean weights.
    """

    participant: str
    weights: tuple[float, ...]
    prevalences: tuple[float, ...]

    def variant_name(self, model: str) -> str:
        """The name of ``model``'s variant.

        >>> Tuning("dr-kim", (1.0, 1.0), (0.5, 0.5)).variant_name("knn-5")
        'knn-5 (tuned for dr-kim)'
        """
        return f"{model} (tuned for {self.participant})"


def probabilities_of(estimator: Any) -> Any:
    """The estimator whose ``predict_proba`` ``estimator`` gives: through every threshold
    wrapper (:data:`THRESHOLD_WRAPPERS`) to the model it wraps.

    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import FixedThresholdClassifier
    >>> lr = LogisticRegression(C=0.5)
    >>> probabilities_of(FixedThresholdClassifier(lr, threshold=0.3)) is lr
    True
    """
    while type(estimator).__name__ in THRESHOLD_WRAPPERS and hasattr(estimator, "estimator"):
        estimator = estimator.estimator
    return estimator


def _same_key(estimator: Any) -> str:
    """Equal for two estimators that give the same probabilities: the class and the
    parameters of the model under any threshold wrapper."""
    inner = probabilities_of(estimator)
    try:
        params = sorted((k, repr(v)) for k, v in inner.get_params(deep=True).items())
    except Exception:  # not a scikit-learn estimator: only itself is the same
        return f"id:{id(inner)}"
    return f"{type(inner).__module__}.{type(inner).__qualname__}:{params!r}"


def with_variants(
    named: dict[str, Any], tuned: Tuning | None, labels: Sequence[Any]
) -> tuple[dict[str, Any], dict[str, str], list[str]]:
    """The estimators with each probabilistic one's variant right after it, the variant →
    model map (:class:`Tuning`), and notes: one variant per set of probabilities (the
    module docstring), the models that share it named."""
    if tuned is None:
        return named, {}, []
    for what, values in (("weights", tuned.weights), ("prevalences", tuned.prevalences)):
        if len(values) != len(labels):
            raise InputError.single(
                "tuned",
                what,
                f"{len(values)} values for {len(labels)} classes.",
                "give one per class of the dataset, in its order.",
            )
    from tradeoff.pool.rule import PersonalRule

    weights = dict(zip(labels, tuned.weights, strict=True))
    prevalences = dict(zip(labels, tuned.prevalences, strict=True))
    out: dict[str, Any] = {}
    variants: dict[str, str] = {}
    first: dict[str, str] = {}  # probabilities' key → the model whose variant is measured
    shared: dict[str, list[str]] = {}
    for name, est in named.items():
        out[name] = est
        if not hasattr(est, "predict_proba"):
            continue
        key = _same_key(est)
        if key in first:
            shared[first[key]].append(name)
            continue
        first[key] = name
        shared[name] = []
        variant = tuned.variant_name(name)
        out[variant] = PersonalRule(probabilities_of(est), weights, prevalences)
        variants[variant] = name
    if not variants:
        raise InputError.single(
            "estimators",
            "",
            "no candidate gives class probabilities (predict_proba), so none can be tuned.",
            "add probabilistic models (e.g. SVC(probability=True)), or leave out --for.",
        )
    notes = [
        f"{tuned.variant_name(name)!r} is also the tuned variant of "
        f"{', '.join(repr(o) for o in others)}: a threshold on the same probabilities, "
        "which the person's rule replaces, so it is measured once."
        for name, others in shared.items()
        if others
    ]
    return out, variants, notes


def _weighs_classes(estimator: Any) -> bool:
    """Whether the model (under any threshold wrapper) weighs its classes
    (``class_weight`` set), so its probabilities are not those of the training shares."""
    try:
        params = probabilities_of(estimator).get_params(deep=True)
    except Exception:
        return False
    return any(k.endswith("class_weight") and v is not None for k, v in params.items())


def collapsed_notes(
    frame: pd.DataFrame,
    variants: Mapping[str, str],
    columns: Sequence[str],
    named: Mapping[str, Any],
) -> list[str]:
    """A note for each tuned variant that gives up a class: its recall of the class below
    :data:`COLLAPSED_RECALL` where its model's is at least twice as high.

    >>> frame = pd.DataFrame({"model": ["lr", "lr (tuned for kim)"],
    ...                       "recall_fraud": [0.7, 0.98], "recall_legit": [0.85, 0.09]})
    >>> print(collapsed_notes(frame, {"lr (tuned for kim)": "lr"},
    ...                       ["recall_fraud", "recall_legit"], {}))
    ... # doctest: +NORMALIZE_WHITESPACE
    ["'lr (tuned for kim)' finds 9% of legit, where 'lr' finds 85%: the rule nearly gives
    up that class. Check that the model's probabilities are calibrated to its training
    shares before choosing it."]
    """
    rows = {str(m): row for m, row in zip(frame["model"], frame.to_dict("records"), strict=True)}
    notes = []
    for variant, model in variants.items():
        if variant not in rows or model not in rows:
            continue
        for column in columns:
            mine, theirs = float(rows[variant][column]), float(rows[model][column])
            if mine < COLLAPSED_RECALL and theirs >= 2 * mine:
                cause = (
                    " It weighs its classes (class_weight), so its probabilities are for "
                    "reweighted classes, not the training shares the rule assumes: tune a "
                    "model trained without class_weight, or leave this variant out."
                    if _weighs_classes(named.get(model))
                    else " Check that the model's probabilities are calibrated to its "
                    "training shares before choosing it."
                )
                notes.append(
                    f"{variant!r} finds {mine:.0%} of {column.removeprefix('recall_')}, where "
                    f"{model!r} finds {theirs:.0%}: the rule nearly gives up that class." + cause
                )
    return notes
