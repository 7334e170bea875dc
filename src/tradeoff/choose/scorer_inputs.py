"""The inputs of a person's scorer (:mod:`tradeoff.choose.scorer`), checked against the
scenario before anything is scored.

Each mistake is an :class:`~tradeoff.errors.InputError` whose source is the argument
(``weights``, ``priors``, ``labels``, ``attributes``, ``y``, ``y_pred``) and whose fix says
what to give:

- metric weights: one real number per class and attribute (then
  :func:`~tradeoff.choose.pool_metric.check_metric`: finite, ≥ 0, not all zero);
- class priors ζ: one per class, each a real number strictly between 0 and 1, summing to 1
  (as a scenario's ``prevalence``);
- labels: one per class (by class name, or in the scenario's order), each a single value
  equal to itself (not NaN, not a list), no two equal (``[1, 1]`` would count one class's
  cases as both); none given, ``y`` must hold the classes' names
  (:func:`check_named`): labels are never taken by position unasked (with the usual
  ``y = 1`` for the positive class that scores the swapped metric);
- a cost's or reward's value per case: a real number its scenario's meaning allows
  (:func:`~tradeoff.pool.meaning.attribute_meaning`: not a yes/no value, finite, not
  negative when its range starts at 0);
- the cases scored: ``y`` and the predictions one label per case (1-D), as many of one as
  of the other, and every label in ``y`` one of the classes' labels (a third label would
  otherwise be left out of every recall without a word). A prediction that is no class's
  label is a wrong prediction.

Only numpy and the project's own checks: no scikit-learn.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from numbers import Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from tradeoff.ask.scenario import AttributeSpec, Scenario
from tradeoff.choose.pool_metric import check_metric
from tradeoff.errors import InputError
from tradeoff.pool.meaning import attribute_meaning
from tradeoff.text import cut

__all__ = [
    "PRIOR_TOLERANCE",
    "check_attribute",
    "check_cases",
    "check_labels",
    "check_named",
    "check_priors",
    "check_weights",
]

#: How far the priors' sum may be from 1 (a scenario's ``prevalence`` allows the same).
PRIOR_TOLERANCE = 1e-6

#: Labels shown at most in a message.
_SHOWN = 5


def _real(value: object) -> bool:
    """A real number, not a yes/no value (``True`` is no weight, prior or cost)."""
    return isinstance(value, Real | np.integer | np.floating) and not isinstance(
        value, bool | np.bool_
    )


def _items(value: object, what: str, fix: str) -> list[Any]:
    """``value`` as a list, or the error saying it is no sequence."""
    if isinstance(value, str | bytes | Mapping) or not isinstance(
        value, Sequence | np.ndarray | tuple
    ):
        raise InputError.single(what, "", f"is {_shown(value)}, not a list of {what}.", fix)
    items = value.tolist() if isinstance(value, np.ndarray) else list(value)
    return items


def _shown(value: object) -> str:
    text = repr(_plain(value))
    return cut(text, 60)


def check_weights(scenario: Scenario, weights: object) -> tuple[float, ...]:
    """Metric weights in natural units, one real number per class and attribute.

    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("breast-cancer-triage").scenario
    >>> check_weights(sc, [0.5, 0.5, 0, 0])
    (0.5, 0.5, 0.0, 0.0)
    >>> print(InputError.message(_caught(check_weights, sc, [0.5, "x", 0, 0])))
    weights: [1]: is 'x', not a number. Fix: give one real number per class and attribute \
(malignant, benign, latency, memory), in the scenario's order.
    """
    names = ", ".join(scenario.weight_names)
    fix = f"give one real number per class and attribute ({names}), in the scenario's order."
    items = _items(weights, "weights", fix)
    for i, item in enumerate(items):
        if not _real(item):
            raise InputError.single("weights", f"[{i}]", f"is {_shown(item)}, not a number.", fix)
    return check_metric(scenario, [float(x) for x in items])


def check_priors(scenario: Scenario, priors: object) -> tuple[float, ...]:
    """The class priors ζ, one per class: real numbers strictly between 0 and 1 that sum
    to 1 (within :data:`PRIOR_TOLERANCE`).

    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("breast-cancer-triage").scenario
    >>> check_priors(sc, [0.37, 0.63])
    (0.37, 0.63)
    >>> print(InputError.message(_caught(check_priors, sc, [2, -1])))
    ... # doctest: +NORMALIZE_WHITESPACE
    priors: [0] (malignant): is 2, not strictly between 0 and 1. Fix: give each class's
    share of the cases, in the scenario's order (malignant, benign), each above 0 and
    below 1, summing to 1 (0.37, not 37 or 37%).
    """
    names = [c.name for c in scenario.classes]
    fix = (
        f"give each class's share of the cases, in the scenario's order ({', '.join(names)}), "
        "each above 0 and below 1, summing to 1 (0.37, not 37 or 37%)."
    )
    items = _items(priors, "priors", fix)
    if len(items) != len(names):
        raise InputError.single("priors", "", f"{len(items)} priors for {len(names)} classes.", fix)
    for i, (item, name) in enumerate(zip(items, names, strict=True)):
        where = f"[{i}] ({name})"
        if not _real(item):
            raise InputError.single("priors", where, f"is {_shown(item)}, not a number.", fix)
        value = float(item)
        if math.isnan(value) or not 0.0 < value < 1.0:
            said = "NaN" if math.isnan(value) else f"{value:.10g}"
            raise InputError.single(
                "priors", where, f"is {said}, not strictly between 0 and 1.", fix
            )
    total = math.fsum(float(x) for x in items)
    if abs(total - 1.0) > PRIOR_TOLERANCE:
        raise InputError.single("priors", "", f"sum to {total:.10g}, not 1.", fix)
    return tuple(float(x) for x in items)


def _same(a: object, b: object) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # an array's truth: no single label
        return False


def check_labels(
    scenario: Scenario, labels: Sequence[Any] | Mapping[str, Any] | None
) -> tuple[Any, ...]:
    """The label in ``y`` of each of the scenario's classes, in its order: ``labels`` in
    that order or by class name; none given, the classes' names (``y`` then must hold
    them: :func:`check_named`).

    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("breast-cancer-triage").scenario
    >>> check_labels(sc, {"benign": "B", "malignant": "M"})
    ('M', 'B')
    >>> check_labels(sc, None)
    ('malignant', 'benign')
    >>> print(InputError.message(_caught(check_labels, sc, [1, 1])))
    ... # doctest: +NORMALIZE_WHITESPACE
    labels: [1] (benign): is 1, the label of malignant too. Fix: give each class a label
    of its own, in the scenario's order (malignant, benign).
    """
    names = [c.name for c in scenario.classes]
    if labels is None:
        return tuple(names)
    fix = f"give each class a label of its own, in the scenario's order ({', '.join(names)})."
    if isinstance(labels, Mapping):
        unknown = [str(k) for k in labels if k not in names]
        if unknown:
            raise InputError.single(
                "labels", unknown[0], "the scenario has no such class.", f"its classes: {names}."
            )
        missing = [n for n in names if n not in labels]
        if missing:
            raise InputError.single(
                "labels",
                missing[0],
                "no label given for this class.",
                f"give one for each of {names}.",
            )
        items = [labels[n] for n in names]
    else:
        items = _items(labels, "labels", fix)
        if len(items) != len(names):
            raise InputError.single(
                "labels",
                "",
                f"{len(items)} labels for {len(names)} classes ({', '.join(names)}).",
                "give the label of each class in y, in the scenario's class order.",
            )
    for i, (label, name) in enumerate(zip(items, names, strict=True)):
        where = f"[{i}] ({name})"
        if np.ndim(label) != 0 or isinstance(label, Mapping | set | frozenset):
            raise InputError.single(
                "labels", where, f"is {_shown(label)}, not a single label.", fix
            )
        if not _same(label, label):
            raise InputError.single(
                "labels", where, f"is {_shown(label)}, which no case can equal.", fix
            )
        for other, other_name in zip(items[:i], names[:i], strict=False):
            if _same(label, other):
                raise InputError.single(
                    "labels", where, f"is {_shown(label)}, the label of {other_name} too.", fix
                )
    return tuple(items)


def check_attribute(spec: AttributeSpec, value: object) -> float:
    """A cost's or reward's value per case, as its scenario's meaning allows.

    >>> from tradeoff.ask.scenario import load_scenario
    >>> latency = load_scenario("breast-cancer-triage").scenario.attributes[0]
    >>> check_attribute(latency, 1)
    1.0
    >>> print(InputError.message(_caught(check_attribute, latency, True)))
    ... # doctest: +ELLIPSIS
    attributes: latency: True is not a number. Fix: give a number ...
    """
    meaning = attribute_meaning(spec)
    fix = f'give a number or "measured"; {meaning.fix}'
    if not _real(value):
        raise InputError.single("attributes", spec.name, f"{_shown(value)} is not a number.", fix)
    number = float(value)  # type: ignore[arg-type]
    if not meaning.allows(number):
        raise InputError.single(
            "attributes",
            spec.name,
            f"{number:.10g} is not a value {meaning.what} may take.",
            meaning.fix,
        )
    return number


def _one_per_case(values: ArrayLike, what: str) -> NDArray[Any]:
    fix = f"give {what} as one label per case (a 1-D array, such as a column's values)."
    try:
        array = np.asarray(values)
    except (TypeError, ValueError) as exc:
        raise InputError.single(what, "", f"cannot be read as labels ({exc}).", fix) from None
    if array.dtype.kind in "US" and not isinstance(values, np.ndarray):
        array = np.asarray(values, dtype=object)  # [0, "M"] stays 0 and "M", not "0"
    if array.ndim == 2 and array.shape[1] == 1:
        array = array[:, 0]
    if array.ndim != 1:
        raise InputError.single(
            what, "", f"has the shape {array.shape}, not one label per case.", fix
        )
    return array


def check_cases(
    labels: Sequence[Any], y_true: ArrayLike, y_pred: ArrayLike
) -> tuple[NDArray[Any], NDArray[Any]]:
    """``y_true`` and ``y_pred`` as 1-D arrays of as many cases, every label of ``y_true``
    one of ``labels``.

    >>> truth, pred = check_cases((0, 1), [0, 1, 1], [[0], [1], [0]])
    >>> truth.tolist(), pred.tolist()
    ([0, 1, 1], [0, 1, 0])
    >>> print(InputError.message(_caught(check_cases, (0, 1), [0, 1, 2], [0, 1, 1])))
    ... # doctest: +NORMALIZE_WHITESPACE
    y: case 3: holds the label 2, which is no class's label (the labels are 0, 1). Fix:
    give labels= the label in y of each class by name (labels={'a class': 1, …}), or
    score only cases of the scenario's classes.
    """
    truth = _one_per_case(y_true, "y")
    pred = _one_per_case(y_pred, "y_pred")
    if len(pred) != len(truth):
        raise InputError.single(
            "y_pred",
            "",
            f"holds {len(pred)} predictions for {len(truth)} cases.",
            "give one prediction per case of y (the estimator's predict of the same X).",
        )
    known = np.zeros(len(truth), dtype=bool)
    for label in labels:
        same = truth == label
        if not isinstance(same, np.ndarray) or same.shape != truth.shape:
            same = np.array([_same(v, label) for v in truth.tolist()], dtype=bool)
        known |= same.astype(bool)
    if not known.all():
        first = int(np.flatnonzero(~known)[0])
        listed = ", ".join(repr(x) if isinstance(x, str) else str(x) for x in labels[:_SHOWN])
        raise InputError.single(
            "y",
            f"case {first + 1}",
            f"holds the label {_shown(truth[first])}, which is no class's label (the labels "
            f"are {listed}).",
            "give labels= the label in y of each class by name (labels={'a class': 1, …}), "
            "or score only cases of the scenario's classes.",
        )
    return truth, pred


def check_named(scenario: Scenario, y_true: ArrayLike) -> None:
    """With no ``labels`` given, ``y`` must hold the scenario's class names: any other
    label (``0``/``1``, ``"M"``/``"B"``) leaves which class is which unknown, and is refused
    with the fix that names the classes (never a guess by position).

    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("breast-cancer-triage").scenario
    >>> check_named(sc, ["malignant", "benign"])
    >>> print(InputError.message(_caught(check_named, sc, [1, 0, 1])))
    ... # doctest: +NORMALIZE_WHITESPACE
    labels: not given, and y holds 0, 1, not the classes' names (malignant, benign), so
    which label is which class is not known. Fix: name the label in y of each class, e.g.
    labels={'malignant': 1, 'benign': 0} if 1 is a malignant case in y (the usual positive
    class), or give y the classes' names.
    """
    names = [c.name for c in scenario.classes]
    truth = _one_per_case(y_true, "y")
    found: list[Any] = []
    for value in truth.tolist():
        if not any(_same(value, other) for other in found):
            found.append(value)
            if len(found) > _SHOWN:
                break
    strangers = [v for v in found if not (isinstance(v, str) and v in names)]
    if not strangers:
        return
    try:
        shown: list[Any] = sorted(_plain(v) for v in found[:_SHOWN])
    except TypeError:
        shown = sorted((_plain(v) for v in found[:_SHOWN]), key=repr)
    listed = ", ".join(repr(x) if isinstance(x, str) else str(x) for x in shown)
    first = shown[-1]  # y = 1 is the usual positive class: the largest label first
    rest: list[Any] = [first, *shown[:-1]]
    example = ", ".join(
        f"{n!r}: {rest[i]!r}" if i < len(rest) else f"{n!r}: …" for i, n in enumerate(names)
    )
    raise InputError.single(
        "labels",
        "",
        f"not given, and y holds {listed}, not the classes' names ({', '.join(names)}), "
        "so which label is which class is not known.",
        f"name the label in y of each class, e.g. labels={{{example}}} if {first!r} is a "
        f"{names[0]} case in y (the usual positive class), or give y the classes' names.",
    )


def _plain(value: object) -> object:
    """A numpy scalar as the Python value it holds (``2``, not ``np.int64(2)``)."""
    return value.item() if isinstance(value, np.generic) else value


def _caught(check: Any, *args: Any) -> InputError:
    """The error ``check(*args)`` raises (for the examples)."""
    try:
        check(*args)
    except InputError as exc:
        return exc
    raise AssertionError("no error")
