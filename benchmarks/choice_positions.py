"""Held-out choices by their position in the person's sequence (benchmarks/real_choices.py):
do later answers misfit the answer model, and are later questions of another kind?

Per group of positions: the rows' design (how often one option is at least as good on
every aspect, how many aspects differ, how close the options are under the pooled logit),
and per model its mean confidence (the probability of the side it favours) against its hit
rate, and its log loss. A model whose answer model fits is as confident as it is right in
every group; confidence above the hit rate (overconfidence) only in the later groups says
the later answers are noisier than the earlier ones the model learnt from.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from benchmarks._table import markdown
from benchmarks.choice_models import accuracy, fit_conditional_logit, log_loss
from benchmarks.position_lapse import GROWTH

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]
#: A group of rows: its label and which rows (by 0-based position, and position from the
#: person's last choice, 0 for the last) belong to it.
Group = tuple[str, Callable[[IntArray, IntArray], NDArray[np.bool_]]]

LAST = 3


def _before_last(lo: int, hi: int | None) -> Group:
    """Positions lo + 1 to hi (1-based; ``None``: and on) among the rows before the last."""
    if hi is None:
        label = f"{lo + 1}+"
    elif hi == lo + 1:
        label = f"{hi}"
    else:
        label = f"{lo + 1}–{hi}"
    top = 10**9 if hi is None else hi
    return (
        f"{label}, before the last {LAST}",
        lambda pos, end: (pos >= lo) & (pos < top) & (end >= LAST),
    )


#: 5-fold: the positions before each person's last 3 (what the "later questions" split
#: learns from), then the last 3 (what it holds out); each row in exactly one group.
SPREAD: tuple[Group, ...] = (
    _before_last(0, 1),
    _before_last(1, 3),
    _before_last(3, 6),
    _before_last(6, 9),
    _before_last(9, None),
    (f"last {LAST}", lambda pos, end: end < LAST),
)


#: "later questions": the held-out rows, third from last to last.
def _from_end(k: int) -> Group:
    """The k-th row from the person's last (0: the last)."""
    label = ("last", "2nd from last", "3rd from last")[k]
    return (label, lambda pos, end: end == k)


LATE: tuple[Group, ...] = (_from_end(2), _from_end(1), _from_end(0))


def dominated(d: FloatArray) -> NDArray[np.bool_]:
    """Rows (aspect differences A − B, every aspect a cost) where one option is at least
    as good as the other on every aspect and better on one.

    >>> dominated(np.array([[-1.0, 0.0], [1.0, 2.0], [1.0, -1.0], [0.0, 0.0]])).tolist()
    [True, True, False, False]
    """
    a_better = np.all(d <= 0, axis=1) & np.any(d < 0, axis=1)
    b_better = np.all(d >= 0, axis=1) & np.any(d > 0, axis=1)
    out: NDArray[np.bool_] = a_better | b_better
    return out


def overconfidence(y: FloatArray, p: FloatArray) -> float:
    """Mean confidence (probability of the favoured side) minus the hit rate.

    >>> round(overconfidence(np.array([1.0, 0.0]), np.array([0.9, 0.8])), 3)
    0.35
    """
    return float(np.maximum(p, 1 - p).mean()) - accuracy(y, p)


def table(
    groups: Sequence[Group],
    y: FloatArray,
    preds: Sequence[tuple[str, FloatArray]],
    where: tuple[IntArray, IntArray],
    design: tuple[FloatArray, FloatArray],
) -> str:
    """The by-position table: per group its rows, its design (share of dominated pairs,
    aspects that differ, mean |β·d|) and per model (short name, P(A) of every row)
    confidence / hit and log loss."""
    position, from_end = where
    d, u = design
    headers = ["position", "rows", "dominated", "aspects differing", "|β·d|"]
    for short, _ in preds:
        headers += [f"{short}: confidence / hit", f"{short}: log loss"]
    rows = []
    for label, member in groups:
        inside = member(position, from_end)
        if not inside.any():
            continue
        row: list[object] = [
            label,
            int(inside.sum()),
            f"{dominated(d[inside]).mean():.2f}",
            f"{(d[inside] != 0).sum(axis=1).mean():.2f}",
            f"{np.abs(u[inside]).mean():.2f}",
        ]
        for _, p in preds:
            confidence = float(np.maximum(p[inside], 1 - p[inside]).mean())
            row += [
                f"{confidence:.3f} / {accuracy(y[inside], p[inside]):.3f}",
                f"{log_loss(y[inside], p[inside]):.3f}",
            ]
        rows.append(row)
    return markdown(headers, rows)


def trend(
    y: FloatArray, p: FloatArray, position: IntArray, from_end: IntArray
) -> tuple[float, float, float]:
    """Overconfidence on the rows before the last 3 at positions 2–6 and from 7 on (the
    trend the "later questions" split could learn from), and on the last 3."""
    early = (position >= 1) & (position < 6) & (from_end >= LAST)
    middle = (position >= 6) & (from_end >= LAST)
    last = from_end < LAST
    return (
        overconfidence(y[early], p[early]),
        overconfidence(y[middle], p[middle]),
        overconfidence(y[last], p[last]),
    )


def growth_summary(posteriors: Sequence[FloatArray], growth: Sequence[float]) -> str:
    """The experiment's P(g) over the people predicted: its mean g and P(g = 0), medians
    over people."""
    stacked = np.array(posteriors)
    mean_g = stacked @ np.asarray(growth)
    return (
        f"posterior mean g {np.median(mean_g):.3f} (median over people), "
        f"P(no growth) {np.median(stacked[:, 0]):.3f}"
    )


def first_checks(d_all: Sequence[FloatArray], y_all: Sequence[FloatArray]) -> str:
    """Where the dominated pairs are in the people's sequences, and how they were answered
    (``d_all``, ``y_all``: each person's aspects A − B and picks in order)."""
    first = sum(bool(dominated(d[:1])[0]) for d in d_all)
    later = sum(int(dominated(d[1:]).sum()) for d in d_all)
    right = 0
    for d, y in zip(d_all, y_all, strict=True):
        if dominated(d[:1])[0]:
            a_better = bool(np.all(d[0] <= 0))
            right += int(y[0] == (1.0 if a_better else 0.0))
    return (
        f"the first pair is one where a trip is at least as good on every aspect for "
        f"{first} of {len(d_all)} people (the better trip picked by {right} of them); "
        f"{later} later pair{'s are' if later != 1 else ' is'} such"
    )


@dataclass(frozen=True)
class Where:
    """Per split, each held-out row's position (0: the person's first choice) and position
    from the end (0: their last), its aspects A − B, and per person predicted the
    experiment's P(g) learnt from the others."""

    position: dict[str, list[int]]
    from_end: dict[str, list[int]]
    growth: dict[str, list[FloatArray]]
    d: dict[str, list[FloatArray]]


Predictions = Mapping[tuple[str, str], Sequence[float]]


#: The groups of positions the pooled logit is fitted to, each over every person.
KINDS = ("2–6, before the last 3", "7+, before the last 3", f"last {LAST}")


def weights_by_position(
    people: Sequence[tuple[FloatArray, FloatArray]], repeats: int = 100, seed: int = 0
) -> dict[str, tuple[FloatArray, FloatArray]]:
    """The pooled conditional logit's β (price, time, changes, comfort per unit) fitted
    to each group of :data:`KINDS` over everyone's choices, and its bootstrap standard
    error (``repeats`` resamples of the group's rows, seeded)."""
    d = np.vstack([dp for dp, _ in people])
    y = np.concatenate([yp for _, yp in people])
    pos = np.concatenate([np.arange(len(yp)) for _, yp in people])
    end = np.concatenate([np.arange(len(yp))[::-1] for _, yp in people])
    masks = (
        (pos >= 1) & (pos < 6) & (end >= LAST),
        (pos >= 6) & (end >= LAST),
        end < LAST,
    )
    rng = np.random.default_rng(seed)
    out = {}
    for kind, mask in zip(KINDS, masks, strict=True):
        rows = np.flatnonzero(mask)
        beta = fit_conditional_logit(d[rows], y[rows])
        again = [
            fit_conditional_logit(d[s], y[s])
            for s in (rng.choice(rows, len(rows)) for _ in range(repeats))
        ]
        out[kind] = (beta, np.std(again, axis=0))
    return out


def value_of_time(beta: FloatArray) -> float:
    """Guilders per hour the logit trades for travel time: 60·β_time / β_price.

    >>> round(value_of_time(np.array([-0.1, -0.02, 0.0, 0.0])), 6)
    12.0
    """
    return float(60 * beta[1] / beta[0])


def weights_table(fits: Mapping[str, tuple[FloatArray, FloatArray]], names: Sequence[str]) -> str:
    rows = [
        [
            kind,
            *(f"{b:+.3f} ± {e:.3f}" for b, e in zip(beta, se, strict=True)),
            f"{value_of_time(beta):.1f}",
        ]
        for kind, (beta, se) in fits.items()
    ]
    return markdown(["positions", *(f"β {n}" for n in names), "time, ƒ/hour"], rows)


def later_explained(
    fits: Mapping[str, tuple[FloatArray, FloatArray]],
    y: Mapping[str, Sequence[float]],
    preds: Predictions,
    where: Where,
    model: str,
) -> str:
    """Why the later questions' ECE is what it is: the weights the pooled logit finds in
    each group of positions (``fits``), the experiment's growth, and ``model``'s log loss
    on the same last-3 rows with (5-fold) and without (later questions) any of the
    person's late answers to learn from."""
    early, middle, last = (value_of_time(fits[k][0]) for k in KINDS)
    no_growth = float(np.median(np.array(where.growth["later questions"])[:, 0]))
    five = np.array(where.from_end["5-fold"]) < LAST
    seen = log_loss(np.array(y["5-fold"])[five], np.array(preds[("5-fold", model)])[five])
    unseen = log_loss(np.array(y["later questions"]), np.array(preds[("later questions", model)]))
    kind = last < early / 2 and no_growth > 0.9
    verdict = (
        "Why: as people go on, travel time, changes and comfort lose weight faster than "
        "price does (the weights change, not only the noise)"
        if kind
        else "The last 3 are not clearly answered with other weights"
    )
    return (
        f"{verdict}: the pooled logit fitted to each group of positions trades "
        f"ƒ{early:.1f} for an hour of travel time at positions 2–6, ƒ{middle:.1f} from 7 on "
        f"(both before the last 3) and ƒ{last:.1f} in the last 3 (By position); a lapse "
        f"growing with position, learnt from the rows before the last 3, is not there "
        f"(median P(no growth) {no_growth:.3f}). A model learnt from a person's earlier "
        f"answers cannot foresee weights that keep changing: the same last-3 rows score "
        f"log loss {seen:.3f} with the population prior when some of the person's late "
        f"answers are learnt from (5-fold) against {unseen:.3f} here."
    )


def section(
    people: Sequence[tuple[FloatArray, FloatArray]],
    y: Mapping[str, Sequence[float]],
    preds: Predictions,
    closeness: Mapping[str, Sequence[float]],
    where: Where,
    shown: Sequence[tuple[str, str]],
    fitted: tuple[Mapping[str, tuple[FloatArray, FloatArray]], Sequence[str]],
) -> str:
    """The "By position" section: ``people`` each person's aspects A − B and picks in
    order; ``shown`` the models (name, short name) in the tables, the experiment last;
    ``fitted`` :func:`weights_by_position` and the aspects' names."""
    fits, names = fitted
    out = [
        "## By position\n\n"
        "Each person's choices in the order recorded; "
        + first_checks([d for d, _ in people], [picks for _, picks in people])
        + ". Per group of positions: the share of such pairs, how many aspects differ, the "
        "mean |β·d| (pooled logit, as above), and per model confidence / hit and log loss; "
        '"growing" is the experiment (benchmarks/position_lapse.py: the population '
        "prior with a lapse ε_j = 1 − (1 − ε)(1 − g)^j at position j, g learnt from the "
        "other people, prior P(g = 0) = ½; not part of the engine)."
    ]
    for split, groups in (("5-fold", SPREAD), ("later questions", LATE)):
        ys = np.array(y[split])
        pos = np.array(where.position[split])
        end = np.array(where.from_end[split])
        d = np.vstack(where.d[split])
        model_p = [(short, np.array(preds[(split, m)])) for m, short in shown]
        out.append(
            f"{split}:\n\n"
            + table(groups, ys, model_p, (pos, end), (d, np.array(closeness[split])))
        )
        if split == "5-fold":
            trends = []
            for short, p in model_p:
                a, b, c = trend(ys, p, pos, end)
                trends.append(f"{short} {a:+.3f} / {b:+.3f} / {c:+.3f}")
            out.append(
                "Confidence minus hit rate (5-fold) at positions 2–6 and 7 on, both before "
                "the last 3, and in the last 3: " + "; ".join(trends) + "."
            )
        out.append(
            f"The experiment's g ({split}): " + growth_summary(where.growth[split], GROWTH) + "."
        )
    out.append(
        "The pooled conditional logit fitted to each group of positions over every "
        "person's choices (β per guilder, minute, change and comfort step, ± bootstrap "
        "standard error over 100 resamples of the rows): what people weigh as they go on.\n\n"
        + weights_table(fits, names)
    )
    return "\n\n".join(out)
