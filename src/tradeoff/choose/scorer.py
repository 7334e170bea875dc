"""A person's (or a group's) metric as a scikit-learn scorer: :func:`person_scorer`,
:func:`group_scorer`.

A scorer is a callable ``(estimator, X, y) -> float`` (what ``scoring=`` takes in
``cross_validate`` and ``GridSearchCV``; higher is better); ``TunedThresholdClassifierCV``
takes :meth:`PersonScorer.sklearn_scorer`, the same metric made by ``make_scorer``.
Its value is the metric the app ranks a pool by, in the same normalisation:

* one person (:class:`PersonScorer`): E[ψ] over their posterior, with
  ψ = Σ_i a_i·ζ_i·recall_i + Σ_j s_j·a_j·x_j (paper 004 §2; the rows of
  :func:`~tradeoff.choose.pool_metric.metric_vectors`: ζ the class priors the weights were
  elicited with, s_j = −1 for a cost and +1 for a reward, x_j in the scenario's units). ψ is
  linear in the weights, so E[ψ] is ψ of the posterior mean weights
  (:func:`expected_weights`): the value :func:`~tradeoff.choose.recommend.recommend` gives
  the model as ``expected``;
* a group (:class:`GroupScorer`): minus the largest relative regret over the people, each
  in their own E[ψ] against the best and worst model of the decision's pool, which the
  consensus minimises (:func:`~tradeoff.choose.selection.select_for_stakeholders`).

Recall per class is counted on the cases ``y`` holds, the estimator's predictions against
them. A cost or reward is a constant per case (``attributes={"memory": 2.0}``) or, for a
time (unit ``ms``, ``s`` or ``µs``), ``"measured"``: the median wall time of single-case
``predict`` calls on rows of ``X``.

scikit-learn is needed only by the estimators a scorer is called with and by
:meth:`PersonScorer.sklearn_scorer`; this module imports none of it (an estimator is
anything with ``predict``).
"""

from __future__ import annotations

import statistics
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from tradeoff.arrays import FloatArray
from tradeoff.ask.population import scenario_priors
from tradeoff.ask.scenario import Scenario, load_scenario
from tradeoff.choose.decide import decide, load_stakeholders
from tradeoff.choose.pool_metric import metric_vectors
from tradeoff.choose.scorer_inputs import (
    check_attribute,
    check_cases,
    check_labels,
    check_named,
    check_priors,
    check_weights,
)
from tradeoff.choose.settled import UnsettledWeights, WeightsCertainty, weights_certainty
from tradeoff.choose.stakeholder import Stakeholder, expected_weights
from tradeoff.errors import InputError
from tradeoff.pool.measuring import Dataset, Tuning, class_column

__all__ = [
    "GroupScorer",
    "PersonScorer",
    "group_scorer",
    "person_scorer",
    "session_certainty",
    "tuning_for",
]


#: Single-case predictions timed for a ``"measured"`` time.
TIMED_CASES = 20

#: A time attribute's unit → milliseconds per unit.
_TIME_UNITS = {"ms": 1.0, "s": 1000.0, "µs": 1e-3, "us": 1e-3}

Attribute = float | Literal["measured"]


def _timed_ms(estimator: Any, x: NDArray[Any]) -> float:
    """Median wall time (ms) of single-case ``predict`` calls, after one to warm up."""
    estimator.predict(x[:1])
    times = []
    for i in range(min(TIMED_CASES, len(x))):
        start = time.perf_counter()
        estimator.predict(x[i : i + 1])
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


@dataclass(frozen=True)
class PersonScorer:
    """One person's expected metric as a scorer (the module docstring).

    ``weights`` are the posterior mean weights in natural units (scenario order),
    ``priors`` the class priors ζ they were elicited with, ``labels`` the label of each of
    the scenario's classes in ``y`` (``None``: ``y`` holds the classes' names, and any
    other label is refused, :func:`~tradeoff.choose.scorer_inputs.check_named`),
    ``attributes`` each cost's or reward's value per case or ``"measured"``;
    ``certainty``, for a session's weights, how sure they are
    (:class:`~tradeoff.choose.settled.WeightsCertainty`).
    """

    scenario: Scenario
    weights: tuple[float, ...]
    priors: tuple[float, ...]
    labels: tuple[Any, ...] | None
    attributes: tuple[Attribute, ...]
    who: str = "explicit weights"
    named: bool = False
    certainty: WeightsCertainty | None = None

    def __post_init__(self) -> None:
        """Refuse priors or labels that do not fit the scenario (:mod:`.scorer_inputs`);
        no labels: the classes' names, which ``y`` must then hold."""
        object.__setattr__(self, "priors", check_priors(self.scenario, self.priors))
        if self.labels is None:
            object.__setattr__(self, "named", True)
        object.__setattr__(self, "labels", check_labels(self.scenario, self.labels))

    def __repr__(self) -> str:
        """Who it scores for, on which scenario, the weights and the classes' labels in
        ``y`` (not the whole scenario, which a dataclass would print).

        >>> from tradeoff.ask.scenario import load_scenario
        >>> sc = load_scenario("breast-cancer-triage").scenario
        >>> PersonScorer(sc, (0.5, 0.5, 0.01, 0.0), (0.4, 0.6), (1, 0), (0.2, 100.0))
        PersonScorer(explicit weights, scenario 'breast-cancer-triage', weights malignant=0.5, \
benign=0.5, latency=0.01, memory=0, labels malignant=1, benign=0)
        """
        weights = ", ".join(
            f"{n}={w:.3g}" for n, w in zip(self.scenario.weight_names, self.weights, strict=True)
        )
        classes = [c.name for c in self.scenario.classes]
        labels = ", ".join(f"{c}={v!r}" for c, v in zip(classes, self.class_labels, strict=True))
        return (
            f"PersonScorer({self.who}, scenario {self.scenario.id!r}, weights {weights}, "
            f"labels {labels})"
        )

    @property
    def class_labels(self) -> tuple[Any, ...]:
        """The label in ``y`` of each class, in the scenario's order."""
        assert self.labels is not None
        return self.labels

    def row(
        self, y_true: ArrayLike, y_pred: ArrayLike, times_ms: float | None = None
    ) -> FloatArray:
        """The pool row of these predictions: each class's recall (scenario order), then
        each attribute's value (a measured time from ``times_ms``, in the attribute's unit)."""
        if self.named:
            check_named(self.scenario, y_true)
        truth, pred = check_cases(self.class_labels, y_true, y_pred)
        recalls = []
        for label, spec in zip(self.class_labels, self.scenario.classes, strict=True):
            cases = truth == label
            if not cases.any():
                raise InputError.single(
                    "y",
                    f"class {spec.name!r} (label {label!r})",
                    "no case of this class is among the cases scored, so its recall is unknown.",
                    "score on folds that hold every class (stratified folds), or give labels=.",
                )
            recalls.append(float(np.mean(pred[cases] == label)))
        values: list[float] = []
        for value, attribute in zip(self.attributes, self.scenario.attributes, strict=True):
            if value == "measured":
                assert times_ms is not None
                values.append(times_ms / _TIME_UNITS[attribute.unit])
            else:
                values.append(float(value))
        return np.asarray(recalls + values, dtype=np.float64)

    def value(self, row: ArrayLike) -> float:
        """E[ψ] of a pool row (recalls, then attributes): ``metric_vectors @ weights``."""
        values = np.asarray(row, dtype=np.float64)[None, :]
        return float(
            (metric_vectors(self.scenario, values, self.priors) @ np.asarray(self.weights))[0]
        )

    def metric(self, y_true: ArrayLike, y_pred: ArrayLike) -> float:
        """E[ψ] of predictions, every attribute a constant (``make_scorer``'s score
        function; a ``"measured"`` time needs the estimator: call the scorer)."""
        if "measured" in self.attributes:
            raise InputError.single(
                "attributes",
                "measured",
                "a measured time needs the estimator, which a score function of predictions "
                "does not see.",
                "use the scorer itself as scoring=, or give the time as a number per case.",
            )
        return self.value(self.row(y_true, y_pred))

    def sklearn_scorer(self) -> Any:
        """The same metric as scikit-learn's own scorer, ``make_scorer(self.metric)``, for
        what needs one made by ``make_scorer`` (``TunedThresholdClassifierCV``, which scores
        every threshold from one set of probabilities). Every attribute must be a constant
        (a threshold does not change a model's time per case); scikit-learn is imported
        here, its absence an :class:`~tradeoff.errors.InputError`."""
        if "measured" in self.attributes:
            self.metric([], [])  # raises the located error
        try:
            from sklearn.metrics import make_scorer
        except ImportError:
            raise InputError.single(
                "scorer",
                "",
                "a scikit-learn scorer needs scikit-learn, which is not installed.",
                "install the extra: pip install 'tradeoff[sklearn]'",
            ) from None
        return make_scorer(self.metric)

    def __call__(self, estimator: Any, x: ArrayLike, y: ArrayLike) -> float:
        """E[ψ] of ``estimator`` on the cases ``x``, ``y``."""
        xs = np.asarray(x)
        times = _timed_ms(estimator, xs) if "measured" in self.attributes else None
        return self.value(self.row(y, estimator.predict(xs), times))


@dataclass(frozen=True)
class GroupScorer:
    """A group's consensus as a scorer: minus the largest relative regret over the people.

    For person i, regret = (best_i − E[ψ_i]) / spread_i, with ``best`` and ``spread`` their
    largest E[ψ] over the decision's pool and its range (the consensus's rule:
    :func:`~tradeoff.choose.selection.select_for_stakeholders`). 0 is as good as every
    person's best model of the pool; above 0, better for all of them.
    """

    people: tuple[PersonScorer, ...]
    best: tuple[float, ...]
    spread: tuple[float, ...]

    def value(self, row: ArrayLike) -> float:
        """Minus the largest relative regret of a pool row over the people."""
        regrets = [
            (b - p.value(row)) / s if s > 0 else 0.0
            for p, b, s in zip(self.people, self.best, self.spread, strict=True)
        ]
        return -max(regrets)

    def __call__(self, estimator: Any, x: ArrayLike, y: ArrayLike) -> float:
        xs = np.asarray(x)
        first = self.people[0]
        times = _timed_ms(estimator, xs) if "measured" in first.attributes else None
        return self.value(first.row(y, estimator.predict(xs), times))


def _classifying(scenario: Scenario, where: str) -> None:
    """Refuse a scenario without classes (options described by their aspects alone): a
    scorer weighs a classifier's predictions, class by class."""
    if not scenario.classes:
        raise InputError.single(
            where,
            "",
            f"is on scenario {scenario.id!r}, whose options are described by their aspects "
            "alone (no [[classes]]): a scorer weighs a classifier's predictions class by "
            "class, so there is nothing here for it to score.",
            "rank such options with tradeoff pick POOL.csv --session FILE; use a scorer with "
            "a scenario that has [[classes]].",
        )


def _attributes(scenario: Scenario, given: Mapping[str, Attribute] | None) -> tuple[Attribute, ...]:
    given = dict(given or {})
    names = [a.name for a in scenario.attributes]
    unknown = [n for n in given if n not in names]
    if unknown:
        raise InputError.single(
            "attributes",
            unknown[0],
            "the scenario has no such cost or reward.",
            f"name one of its costs and rewards: {', '.join(names)}.",
        )
    out: list[Attribute] = []
    for spec in scenario.attributes:
        if spec.name not in given:
            raise InputError.single(
                "attributes",
                spec.name,
                f"no value given for this {spec.kind} ({spec.unit}), which the metric counts.",
                f'give its value per case (attributes={{"{spec.name}": 1.0}})'
                + (', or "measured"' if spec.unit in _TIME_UNITS else "")
                + ".",
            )
        value = given[spec.name]
        if value == "measured":
            if spec.unit not in _TIME_UNITS:
                raise InputError.single(
                    "attributes",
                    spec.name,
                    f'"measured" is a time, but its unit is {spec.unit!r}.',
                    "give its value per case as a number.",
                )
            out.append("measured")
        else:
            out.append(check_attribute(spec, value))
    return tuple(out)


def _said_certainty(scenario: Scenario, person: Stakeholder) -> WeightsCertainty | None:
    """How sure a session's weights are, warned (:class:`~tradeoff.choose.settled.
    UnsettledWeights`) when the answers did not settle them."""
    certainty = weights_certainty(scenario, person)
    if certainty is not None and not certainty.settled:
        warnings.warn(f"{person.participant}: {certainty.words()}", UnsettledWeights, stacklevel=3)
    return certainty


def session_certainty(session: str | Path) -> WeightsCertainty | None:
    """How sure the weights of a session file's person are
    (:func:`~tradeoff.choose.settled.weights_certainty`; ``pool from-sklearn --for``)."""
    scenario, (person,) = load_stakeholders([session])
    return weights_certainty(scenario, person)


def person_scorer(
    source: str | Path | Sequence[float],
    *,
    attributes: Mapping[str, Attribute] | None = None,
    scenario: str | Path | Scenario | None = None,
    priors: Sequence[float] | None = None,
    labels: Sequence[Any] | Mapping[str, Any] | None = None,
) -> PersonScorer:
    """A person's expected metric as a scikit-learn scorer.

    Parameters
    ----------
    source
        A session file (its posterior mean weights, :func:`expected_weights`, and its
        priors), or metric weights in natural units, one per class and attribute in the
        scenario's order (then ``scenario`` is needed).
    attributes
        Each cost's or reward's value per case by name, or ``"measured"`` for a time.
    scenario
        The scenario (a file, a shipped id or a loaded one) of explicit weights; with a
        session, the recorded one is used.
    priors
        The class priors ζ of explicit weights (default: the scenario population's): one
        per class, each strictly between 0 and 1, summing to 1.
    labels
        The label in ``y`` of each class by class name (``{"fraud": 1, "legit": 0}``) or
        in the scenario's order, no two equal; every label of ``y`` must be one of them.
        Not given, ``y`` must hold the classes' names: labels are never matched by
        position unasked (with the usual ``y = 1`` for the positive class that would score
        the swapped metric), and any other ``y`` is an :class:`InputError` naming the fix.

    Warns
    -----
    UnsettledWeights
        For a session whose answers did not settle its weights (the interval of the
        threshold they imply is wide, :mod:`tradeoff.choose.settled`): how many answers
        they rest on, the interval, and to answer more questions. The scorer's
        ``certainty`` holds the same.

    Raises
    ------
    InputError
        Naming the argument (``weights``, ``priors``, ``labels``, ``attributes``, and when
        scoring ``y`` or ``y_pred``) and the fix, for every input that does not fit the
        scenario (:mod:`tradeoff.choose.scorer_inputs`).

    Examples
    --------
    >>> score = person_scorer([0.5, 0.5, 0.0, 0.0], scenario="breast-cancer-triage",
    ...                       priors=[0.4, 0.6], attributes={"latency": 1.0, "memory": 2.0},
    ...                       labels={"malignant": 1, "benign": 0})
    >>> round(score.metric([1, 1, 0, 0], [1, 0, 0, 0]), 6)  # ½·0.4·½ + ½·0.6·1
    0.4
    """
    if isinstance(source, str | Path):
        recorded, (person,) = load_stakeholders([source])
        _classifying(recorded, str(source))
        return PersonScorer(
            recorded,
            expected_weights(person),
            person.priors,
            None if labels is None else check_labels(recorded, labels),
            _attributes(recorded, attributes),
            person.participant,
            certainty=_said_certainty(recorded, person),
        )
    if scenario is None:
        raise InputError.single(
            "scenario", "", "explicit weights need their scenario.", "give scenario=."
        )
    if not isinstance(scenario, Scenario):
        scenario = load_scenario(scenario).scenario
    _classifying(scenario, "scenario")
    weights = check_weights(scenario, source)
    if priors is None:
        priors = scenario_priors(scenario)
    return PersonScorer(
        scenario,
        weights,
        check_priors(scenario, priors),
        None if labels is None else check_labels(scenario, labels),
        _attributes(scenario, attributes),
    )


def group_scorer(
    sessions: Sequence[str | Path],
    *,
    attributes: Mapping[str, Attribute] | None = None,
    pool: str | Path | None = None,
    labels: Sequence[Any] | Mapping[str, Any] | None = None,
) -> GroupScorer:
    """A group's consensus as a scikit-learn scorer (:class:`GroupScorer`).

    ``sessions`` are the group's session files (a study's complete sessions, as
    ``tradeoff study report`` counts them, are
    ``tradeoff.study.report.study_sessions(folder).sessions``), decided on ``pool`` or the
    scenario's
    (:func:`tradeoff.choose.decide.decide`); ``attributes`` and ``labels`` as for
    :func:`person_scorer`.
    """
    decision = decide(sessions, pool)
    scenario = decision.scenario
    _classifying(scenario, str(sessions[0]))
    people, best, spread = [], [], []
    for person in decision.stakeholders:
        scorer = PersonScorer(
            scenario,
            expected_weights(person),
            person.priors,
            None if labels is None else check_labels(scenario, labels),
            _attributes(scenario, attributes),
            person.participant,
            certainty=_said_certainty(scenario, person),
        )
        psi = metric_vectors(scenario, decision.pool, person.priors) @ np.asarray(scorer.weights)
        people.append(scorer)
        best.append(float(psi.max()))
        spread.append(float(psi.max() - psi.min()))
    return GroupScorer(tuple(people), tuple(best), tuple(spread))


def tuning_for(session: str | Path, dataset: Dataset) -> Tuning:
    """The person of ``session`` as a :class:`~tradeoff.pool.measuring.Tuning` of
    ``dataset``'s classes (matched by name, :func:`~tradeoff.pool.measuring.class_column`):
    their posterior mean class weights (:func:`expected_weights`) and class priors ζ. The
    metric is linear in the weights, so the rule of the posterior mean weights is the rule
    that maximises the posterior expected metric (``tradeoff pool from-sklearn --for``)."""
    scenario, (person,) = load_stakeholders([session])
    mean = expected_weights(person)
    by_column = {
        class_column(c.name): (mean[i], person.priors[i]) for i, c in enumerate(scenario.classes)
    }
    names = [dataset.classes[label] for label in dataset.classes]
    if sorted(class_column(n) for n in names) != sorted(by_column):
        raise _other_classes(session, scenario, dataset, names)
    pairs = [by_column[class_column(n)] for n in names]
    return Tuning(person.participant, tuple(w for w, _ in pairs), tuple(z for _, z in pairs))


def _other_classes(
    session: str | Path, scenario: Scenario, dataset: Dataset, names: Sequence[str]
) -> InputError:
    """The dataset's classes are not the session's: for a file whose target holds other
    values for as many classes (text labels such as 'M' and 'B'), the fix is to rename
    them, each to the class it stands for (guessed when each is the start of one class's
    name and no other's); for a bundled dataset, a session of its classes."""
    wanted = [c.name for c in scenario.classes]
    theirs, ours = ", ".join(names), ", ".join(wanted)
    if dataset.source.startswith("sklearn:") or len(names) != len(wanted):
        return InputError.single(
            session,
            "header",
            f"the session's scenario {scenario.id!r} has the classes {ours}; the dataset "
            f"({dataset.description}) {theirs}.",
            "give --for a session recorded on a scenario of the dataset's classes, or a "
            "dataset of the scenario's classes.",
        )
    guess = {n: [w for w in wanted if w.lower().startswith(n.strip().lower())] for n in names}
    unique = all(len(g) == 1 for g in guess.values())
    if unique and len({g[0] for g in guess.values()}) == len(names):
        renames = ", ".join(f"{n!r} → {g[0]!r}" for n, g in guess.items())
    else:
        renames = f"each of {theirs} to the one of {ours} it stands for"
    where = dataset.description.partition(", ")[2] or "target"
    return InputError.single(
        dataset.source,
        where,
        f"holds the classes {theirs}, but the session to tune for ({session}) was recorded "
        f"on the scenario {scenario.id!r}, whose classes are {ours}: a class is matched by "
        "its name.",
        f"rename the values of the target column ({renames}) and measure again; the session "
        "need not be recorded again.",
    )
