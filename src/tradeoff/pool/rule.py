"""A person's own decision rule on a model's class probabilities: :class:`PersonalRule`.

The metric a person's answers give is linear (paper 004 §2): over the classes
ψ = ⟨aᵈ, d⟩ = Σ_k a_k·d_k with d_k = C_kk = P(Y = k, h = k) = π_k·recall_k, plus costs and
rewards that a decision rule on one model's probabilities does not change (the model's
latency and memory stay its own, up to the argmax). For such a metric the best rule on
calibrated probabilities η_k(x) = P(Y = k | x) is the Bayes rule

    h(x) = argmax_k a_k·η_k(x),

paper 004's Proposition 2 (the restricted Bayes optimal classifier, there between two
classes k₁, k₂: k₁ when a_{k₁}·η_{k₁}(x) ≥ a_{k₂}·η_{k₂}(x)) taken over all k classes at once:
ψ = Σ_k a_k·E[η_k(X)·1{h(X) = k}] is maximised case by case. The paper numbers no
equations; §2 defines ψ and C_ij, §4.2.1 states Proposition 2.

In terms of recall (ψ = Σ_k w_k·recall_k with w_k = a_k·π_k, the weights per unit of recall
that :func:`tradeoff.choose.pool_metric.metric_coefficients` gives) that is
h(x) = argmax_k w_k·η_k(x)/π_k. A model's probabilities are calibrated to the class shares it
was trained on, π′; under the scenario's prevalences π they are η_k ∝ p_k(x)·π_k/π′_k (a
shift of the prior), so the rule on the model's own probabilities p is

    h(x) = argmax_k a_k·π_k·p_k(x)/π′_k = argmax_k w_k·p_k(x)/π′_k.

This module needs scikit-learn (``pip install 'tradeoff[sklearn]'``): importing it without
raises an :class:`~tradeoff.errors.InputError` that says how to install it. Measuring a
pool imports it only when a rule is asked for (:func:`tradeoff.pool.measure`, ``tuned``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from tradeoff.arrays import FloatArray
from tradeoff.errors import InputError
from tradeoff.stable import stable_argmax_rows

try:
    from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
except ImportError:  # pragma: no cover - the extra is installed where the tests run
    raise InputError.single(
        "tradeoff.pool.rule",
        "",
        "a person's own decision rule needs scikit-learn, which is not installed.",
        "install the extra: pip install 'tradeoff[sklearn]'",
    ) from None

__all__ = ["PersonalRule", "personal_decisions"]


def personal_decisions(
    proba: ArrayLike,
    weights: ArrayLike,
    prevalences: ArrayLike,
    trained_on: ArrayLike,
) -> NDArray[np.intp]:
    """The column of each row of ``proba`` that the person's Bayes rule picks.

    ``proba`` holds a model's class probabilities (cases × classes, calibrated to the class
    shares ``trained_on``), ``weights`` the metric's weight a_k of each class (on
    d_k = π_k·recall_k), ``prevalences`` the scenario's class shares π_k, all in the
    columns' order. The pick is argmax_k a_k·π_k·p_k(x)/π′_k (the module docstring; paper
    004 §2 and Proposition 2); of scores equal to 9 significant digits, the first column
    (:func:`~tradeoff.stable.stable_argmax_rows`), so no pick hinges on a float's last bits.

    Examples
    --------
    Equal weights at the training shares: the class of highest probability.

    >>> p = [[0.7, 0.3], [0.2, 0.8], [0.45, 0.55]]
    >>> personal_decisions(p, [0.5, 0.5], [0.5, 0.5], [0.5, 0.5]).tolist()
    [0, 1, 1]

    Class 0 weighted three times as much: a case is class 0 from p₀ = ¼ on.

    >>> personal_decisions(p, [0.75, 0.25], [0.5, 0.5], [0.5, 0.5]).tolist()
    [0, 1, 0]
    """
    p = np.asarray(proba, dtype=np.float64)
    scale = (
        np.asarray(weights, dtype=np.float64)
        * np.asarray(prevalences, dtype=np.float64)
        / np.asarray(trained_on, dtype=np.float64)
    )
    if p.ndim != 2 or p.shape[1] != scale.size:
        raise ValueError(f"proba has {p.shape} but there are {scale.size} class weights")
    return stable_argmax_rows(p * scale)


def _per_class(
    values: Mapping[Any, float] | Sequence[float] | None,
    classes: NDArray[Any],
    what: str,
) -> FloatArray | None:
    """``values`` (by class label, or one per class in ``classes`` order) as an array in
    ``classes`` order, checked: finite, ≥ 0 (prevalences > 0), not all zero."""
    if values is None:
        return None
    if isinstance(values, Mapping):
        missing = [c for c in classes.tolist() if c not in values]
        if missing:
            raise ValueError(f"{what}: no value for class {missing[0]!r}")
        out = np.array([float(values[c]) for c in classes.tolist()])
    else:
        out = np.asarray(values, dtype=np.float64)
        if out.shape != (len(classes),):
            raise ValueError(f"{what}: {out.size} values for {len(classes)} classes")
    positive = out > 0 if what == "prevalences" else out >= 0
    if not (np.isfinite(out).all() and positive.all() and out.sum() > 0):
        raise ValueError(f"{what} must be finite, ≥ 0 and not all zero (prevalences > 0)")
    return out


class PersonalRule(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):  # type: ignore[misc]
    """A classifier whose decisions maximise a person's expected metric, on the class
    probabilities of ``estimator``.

    ``predict`` is :func:`personal_decisions` on ``estimator.predict_proba``;
    ``predict_proba`` is the estimator's, unchanged. The class shares the probabilities are
    calibrated to are those of ``y`` in :meth:`fit` (``trained_on_``).

    Parameters
    ----------
    estimator
        A scikit-learn classifier with ``predict_proba`` (cloned in :meth:`fit`).
    weights
        The metric's weight a_k of each class (on d_k = π_k·recall_k; paper 004 §2), by class
        label or one per class in sorted label order (``classes_``). For a posterior over
        the weights give the posterior mean: ψ is linear in the weights, so the rule that
        maximises the posterior expected metric is the rule of the mean weights.
    prevalences
        The scenario's class shares π_k (same form); ``None``: the training shares (then
        the rule is argmax_k a_k·p_k(x)).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.naive_bayes import GaussianNB
    >>> x, y = load_breast_cancer(return_X_y=True)  # 0 malignant, 1 benign
    >>> rule = PersonalRule(GaussianNB(), {0: 0.9, 1: 0.1}).fit(x, y)
    >>> plain = GaussianNB().fit(x, y)
    >>> bool((rule.predict(x) == 0).sum() > (plain.predict(x) == 0).sum())
    True
    """

    def __init__(
        self,
        estimator: Any,
        weights: Mapping[Any, float] | Sequence[float],
        prevalences: Mapping[Any, float] | Sequence[float] | None = None,
    ) -> None:
        self.estimator = estimator
        self.weights = weights
        self.prevalences = prevalences

    def fit(self, x: ArrayLike, y: ArrayLike, **fit_params: Any) -> PersonalRule:
        """Fit a clone of ``estimator`` on ``x``, ``y`` and note the class shares of ``y``."""
        labels = np.asarray(y)
        fitted = clone(self.estimator).fit(x, labels, **fit_params)
        if not hasattr(fitted, "predict_proba"):
            raise TypeError(f"{type(fitted).__name__} has no predict_proba: no rule on it")
        self.estimator_ = fitted
        self.classes_ = np.asarray(fitted.classes_)
        counts = np.array([np.sum(labels == c) for c in self.classes_], dtype=np.float64)
        self.trained_on_ = counts / counts.sum()
        weights = _per_class(self.weights, self.classes_, "weights")
        assert weights is not None
        self.weights_ = weights
        prevalences = _per_class(self.prevalences, self.classes_, "prevalences")
        self.prevalences_ = (
            self.trained_on_ if prevalences is None else prevalences / prevalences.sum()
        )
        if hasattr(fitted, "n_features_in_"):
            self.n_features_in_ = fitted.n_features_in_
        return self

    def predict_proba(self, x: ArrayLike) -> FloatArray:
        """The estimator's class probabilities (columns in ``classes_`` order)."""
        out: FloatArray = np.asarray(self.estimator_.predict_proba(x), dtype=np.float64)
        return out

    def predict(self, x: ArrayLike) -> NDArray[Any]:
        """The person's Bayes decision for every case (:func:`personal_decisions`)."""
        picks = personal_decisions(
            self.predict_proba(x), self.weights_, self.prevalences_, self.trained_on_
        )
        out: NDArray[Any] = self.classes_[picks]
        return out
