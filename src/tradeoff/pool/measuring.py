"""Pools measured from scikit-learn estimators: :func:`measure`.

Given estimators and a dataset, every estimator is measured the same way: recall of every
class from cross-validated predictions (each case predicted by the fold model that did not
see it; stratified folds, shuffled with the given seed), or on a stratified hold-out split
when ``test_size`` is given; the median time to predict one case; and the size of the fitted
model, pickled. The result is a pool table in the format :func:`tradeoff.pool.load_pool`
reads (one row per model, a ``model`` column, ``recall_<class>`` columns, ``accuracy``,
``latency_ms``, ``size_kb``) and its provenance (dataset, split, seed, machine, library
versions, each estimator's parameters), written as ``<pool>.provenance.json`` beside it.

Recall is reproducible from the seed; latency and size are measurements of the machine
and library versions named in the provenance.

scikit-learn is an optional dependency (``pip install 'tradeoff[sklearn]'``); it is imported
only when something is measured, and its absence is an :class:`~tradeoff.errors.InputError`
that says how to install it.
"""

from __future__ import annotations

import contextlib
import pickle
import platform
import statistics
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from tradeoff.errors import InputError
from tradeoff.pool.meaning import class_meaning
from tradeoff.pool.measured import Measured
from tradeoff.pool.sklearn_inputs import (
    MAX_FOLDS,
    MAX_LATENCY_REPEATS,
    SHIPPED_DATASETS,
    Dataset,
    _estimator_name,
    _named,
    _sklearn,
    _user_code_failed,
    class_column,
    load_dataset,
    load_estimators,
)
from tradeoff.pool.tuned import Tuning, collapsed_notes, with_variants

__all__ = [
    "SHIPPED_DATASETS",
    "Dataset",
    "Measured",
    "Tuning",
    "class_column",
    "load_dataset",
    "load_estimators",
    "measure",
]


def _fit(
    est: Any,
    dataset: Dataset,
    fit: tuple[Any, Any],
    held: tuple[Any, Any] | None,
    folds: int,
    seed: int,
) -> tuple[NDArray[Any], NDArray[Any], Any]:
    """One estimator's predictions, the true classes they are read against, and the model
    fitted on the training cases ``fit``: out of fold by stratified cross-validation
    (shuffled with ``seed``), or on the held-out cases ``held``."""
    from sklearn.base import clone
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    if held is None:
        cv = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
        pred = np.asarray(cross_val_predict(clone(est), dataset.x, dataset.y, cv=cv))
        truth = np.asarray(dataset.y)
    else:
        pred = np.asarray(clone(est).fit(*fit).predict(held[0]))
        truth = np.asarray(held[1])
    return pred, truth, clone(est).fit(*fit)


@contextlib.contextmanager
def _global_numpy_seeded(seed: int) -> Iterator[None]:
    """numpy's global generator seeded with ``seed`` inside, and put back as it was after:
    an estimator whose ``random_state`` is ``None`` (a tree's split order, a forest's
    bootstrap) draws from it, so without a seed its numbers change from run to run."""
    # The legacy global generator on purpose: it is what scikit-learn's
    # check_random_state(None) hands an estimator.
    before = np.random.get_state()  # noqa: NPY002
    np.random.seed(seed % 2**32)  # noqa: NPY002
    try:
        yield
    finally:
        np.random.set_state(before)  # noqa: NPY002


def _latency_ms(model: Any, x: NDArray[np.float64], repeats: int) -> float:
    """Median wall time to predict one case (ms), after one call to warm up."""
    model.predict(x[:1])
    times = []
    for i in range(repeats):
        row = x[i % len(x) : i % len(x) + 1]
        start = time.perf_counter()
        model.predict(row)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _recalls(y: NDArray[Any], pred: NDArray[Any], labels: Sequence[Any]) -> list[float]:
    return [float(np.mean(pred[y == label] == label)) for label in labels]


def _marked(measured: Measured, variants: Mapping[str, str], tuned: Tuning | None) -> Measured:
    """The measured pool with its variants marked: ``variant_of``, ``tuned_for`` and each
    variant's family its model's; the tuning in the provenance."""
    if tuned is None:
        return measured
    frame = measured.frame.copy()
    base = frame["model"].map(variants)
    family = dict(zip(frame["model"], frame["family"], strict=True))
    frame["family"] = [
        family[b] if isinstance(b, str) else f for b, f in zip(base, frame["family"], strict=True)
    ]
    frame["variant_of"] = base.fillna("")
    frame["tuned_for"] = np.where(base.notna(), tuned.participant, "")
    provenance = dict(measured.provenance)
    provenance["tuned"] = {
        "participant": tuned.participant,
        "weights": list(tuned.weights),
        "prevalences": list(tuned.prevalences),
        "rule": "argmax_k weight_k·prevalence_k·p_k(x)/training share_k on each model's "
        "predict_proba (paper 004 §2, Proposition 2 over all classes)",
        "variants": dict(variants),
    }
    return Measured(frame, provenance, measured.meanings, measured.notes)


def _noise_columns(
    truth: NDArray[Any],
    pred: NDArray[Any],
    labels: Sequence[Any],
    columns: Sequence[str],
    folds: Sequence[NDArray[np.intp]] | None,
) -> dict[str, float | int]:
    """How exactly each recall was measured (:mod:`tradeoff.pool.uncertainty`): the cases
    of each class it was measured on (``<column>_cases``) and, with cross-validation, the
    standard error of the recall over the folds (``<column>_se``: the folds' recalls'
    standard deviation over √folds).

    >>> truth = np.array([0, 0, 1, 1, 0, 0, 1, 1])
    >>> pred = np.array([0, 1, 1, 1, 0, 0, 1, 0])
    >>> folds = [np.arange(4), np.arange(4, 8)]
    >>> _noise_columns(truth, pred, [0, 1], ["recall_a", "recall_b"], folds)
    {'recall_a_cases': 4, 'recall_b_cases': 4, 'recall_a_se': 0.25, 'recall_b_se': 0.25}
    """
    out: dict[str, float | int] = {
        f"{c}_cases": int(np.sum(truth == label)) for c, label in zip(columns, labels, strict=True)
    }
    if folds is not None:
        per_fold = np.array([_recalls(truth[f], pred[f], labels) for f in folds])
        spread = per_fold.std(axis=0, ddof=1) / np.sqrt(len(folds))
        out.update({f"{c}_se": round(float(x), 6) for c, x in zip(columns, spread, strict=True)})
    return out


def measure(
    estimators: Mapping[str, Any] | Sequence[Any],
    dataset: Dataset,
    *,
    folds: int = 5,
    test_size: float | None = None,
    seed: int = 0,
    latency_repeats: int = 60,
    progress: Callable[[int, int], None] | None = None,
    tuned: Tuning | None = None,
) -> Measured:
    """Measure every estimator on ``dataset`` into a pool table with provenance.

    Parameters
    ----------
    estimators
        A dict of name → estimator, or a list (named by class, see
        :func:`load_estimators`). Each is cloned before it is fitted.
    dataset
        The cases and their classes (:func:`load_dataset`).
    folds
        Folds of the stratified cross-validation (shuffled with ``seed``) whose pooled
        predictions give each class's recall.
    test_size
        Instead of cross-validation, fit on a stratified split and measure recall on the
        held-out share ``test_size`` (split seeded with ``seed``).
    seed
        Seeds the folds or the split; an estimator keeps its own ``random_state``, and one
        that leaves it ``None`` draws from numpy's global generator, seeded with ``seed``
        while it is fitted and put back after, so that the same command measures the
        same numbers again.
    latency_repeats
        Single-case predictions timed per model (the median is reported).
    progress
        Called with the models measured so far and how many there are (variants included),
        after each (``tradeoff.cli.common.Progress`` takes them).
    tuned
        A person's weights and prevalences: every candidate with ``predict_proba`` gains a
        variant with the person's own rule (:class:`Tuning`), measured the same way.

    Returns
    -------
    Measured
        Columns ``model``, ``family`` (the estimator's class), ``recall_<class>`` per class
        in ``dataset.classes`` order (:func:`class_column`), ``accuracy``, ``latency_ms``
        (median of ``latency_repeats`` single-case ``predict`` calls of the model fitted on
        the training data) and ``size_kb`` (the fitted model pickled); then how exactly each
        recall was measured: ``recall_<class>_cases`` (the cases of that class it was
        measured on) and, with cross-validation, ``recall_<class>_se`` (its standard error
        over the folds), which :func:`tradeoff.pool.load_pool` reads
        (:mod:`tradeoff.pool.uncertainty`).
    """
    _sklearn(dataset.source or "dataset")
    from sklearn.model_selection import StratifiedKFold, train_test_split

    named = _named(estimators, "estimators")
    labels = list(dataset.classes)
    named, variants, notes = with_variants(named, tuned, labels)
    counts = {label: int(np.sum(dataset.y == label)) for label in labels}
    columns = [class_column(dataset.classes[label]) for label in labels]
    if len(set(columns)) != len(columns):
        raise InputError.single(
            dataset.source, "classes", "two classes give the same column name.", "rename one."
        )
    if not 1 <= latency_repeats <= MAX_LATENCY_REPEATS:
        raise InputError.single(
            "latency_repeats",
            "",
            f"is {latency_repeats:,}; it must be between 1 and {MAX_LATENCY_REPEATS:,}.",
            f"time 60 single-case predictions (the default), or up to {MAX_LATENCY_REPEATS:,}.",
        )
    if test_size is None:
        if not 2 <= folds <= MAX_FOLDS:
            raise InputError.single(
                dataset.source,
                "folds",
                f"is {folds}; cross-validation needs between 2 and {MAX_FOLDS} folds.",
                "use 5 folds (the default), or give --test-size to hold out a share instead.",
            )
        if min(counts.values()) < folds:
            raise InputError.single(
                dataset.source,
                "folds",
                f"{folds} folds, but the smallest class has {min(counts.values())} cases.",
                "use at least 2 folds and no more than the smallest class's cases.",
            )
        x_fit, y_fit, x_time = dataset.x, dataset.y, dataset.x
        held = None
        how = f"{folds}-fold stratified cross-validation, shuffled with seed {seed}"
    else:
        if not 0.0 < test_size < 1.0:
            raise InputError.single(
                dataset.source, "test_size", f"is {test_size}.", "give a share in (0, 1)."
            )
        x_fit, x_test, y_fit, y_test = train_test_split(
            dataset.x, dataset.y, test_size=test_size, stratify=dataset.y, random_state=seed
        )
        x_time, held = x_test, (x_test, y_test)
        how = (
            f"{1 - test_size:.0%} train / {test_size:.0%} test, stratified, seed {seed} "
            f"({len(y_test)} test cases)"
        )
    meanings = {
        c: class_meaning(dataset.classes[label]) for c, label in zip(columns, labels, strict=True)
    }
    rows = []
    for name, est in named.items():
        try:
            with _global_numpy_seeded(seed):  # its predictions timed too: they may draw
                pred, truth, fitted = _fit(est, dataset, (x_fit, y_fit), held, folds, seed)
                latency = _latency_ms(fitted, x_time, latency_repeats)
            size = len(pickle.dumps(fitted)) / 1024
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # the estimator's own code: sys.exit included
            raise _user_code_failed(
                "estimators",
                f"estimator {name!r}",
                "failed to fit, predict or pickle",
                exc,
                "fix the estimator, or leave it out.",
            ) from None
        recalls = _recalls(np.asarray(truth), pred, labels)
        rows.append(
            {
                "model": name,
                "family": _estimator_name(est),
                **{c: round(r, 4) for c, r in zip(columns, recalls, strict=True)},
                "accuracy": round(float(np.mean(pred == truth)), 4),
                "latency_ms": round(latency, 4),
                "size_kb": round(size, 2),
            }
        )
        fold_tests = None  # the folds' test cases, as cross_val_predict made them
        if test_size is None:
            split = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
            fold_tests = [test for _, test in split.split(dataset.x, dataset.y)]
        rows[-1].update(_noise_columns(np.asarray(truth), pred, labels, columns, fold_tests))
        if progress is not None:
            progress(len(rows), len(named))
    sklearn = _sklearn("estimators")
    provenance = {
        "dataset": dataset.description,
        "cases": len(dataset.y),
        "classes": {dataset.classes[label]: counts[label] for label in labels},
        "recall": how,
        "seed": seed,
        "measured": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}, Python "
        f"{platform.python_version()}, scikit-learn {sklearn.__version__}, numpy "
        f"{np.__version__}",
        "latency": f"median of {latency_repeats} single-case predict calls, ms",
        "size": "pickled fitted model, KB",
        "estimators": {name: repr(est) for name, est in named.items()},
    }
    marked = _marked(Measured(pd.DataFrame(rows), provenance, meanings), variants, tuned)
    notes += collapsed_notes(marked.frame, variants, columns, named)
    if notes and isinstance(marked.provenance.get("tuned"), dict):
        marked.provenance["tuned"]["notes"] = list(notes)
    return Measured(marked.frame, marked.provenance, meanings, tuple(notes))
