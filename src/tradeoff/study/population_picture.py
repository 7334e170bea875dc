"""The population picture of a study: how its participants' weights spread, and the groups
of people who want different models (how many in each, how sure, which model each would
pick), for ``study report``, the coordinator's page and the export.

The spread is of *swing shares*, the numbers a participant's review ("What we learned")
and ``session show`` give: the part of a person's weight that goes to an aspect over its
whole range in the scenario, among the aspects their answers informed
(:func:`tradeoff.learn.shares.asked_shares`). Natural-unit weights (per ms, per case) are
not comparable between aspects, nor readable beside ``session show``'s, once normalised
across units; a share is both.

The groups are :func:`tradeoff.study.groups.find_groups`'s (its docstring says why a
Gaussian mixture over posterior-mean swing weights, in log-ratio coordinates, with BIC);
each group's model is the Bayes pick of the study's pool at the group's mean weights (with a
measurement noise, the likeliest best there once the noise is counted).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from tradeoff.arrays import FloatArray
from tradeoff.ask.population import PopulationSource
from tradeoff.ask.scenario import load_scenario
from tradeoff.ask.words import aspect_names
from tradeoff.choose.candidates import scenario_pool
from tradeoff.choose.recommend import recommend
from tradeoff.learn.shares import asked_shares
from tradeoff.record.log import read_session
from tradeoff.record.replay import replay, shown_result
from tradeoff.study.groups import Groups, find_groups
from tradeoff.text import markdown_text

__all__ = ["Picture", "Spread", "percent", "picture_of", "picture_text", "shares_sentence"]


class Spread(NamedTuple):
    """One aspect's swing shares across the participants: the 10th percentile, median and
    90th percentile (``None`` when no participant's answers informed the aspect), and how
    many participants' answers informed it (``asked``) of how many (``of``)."""

    name: str
    low: float | None
    median: float | None
    high: float | None
    asked: int
    of: int


def percent(share: float | None) -> str:
    """A share as the reviews show it, in whole percent ("—" for none).

    >>> percent(0.3549), percent(0.004), percent(None)
    ('35%', '0%', '—')
    """
    return "—" if share is None else f"{round(100 * share)}%"


@dataclass(frozen=True)
class Picture:
    """The aspects as the reviews name them (``names``); per participant (in
    ``participants``' order) their posterior-mean natural-unit weights (``weights``),
    swing weights (``swing``, of all aspects: an unasked aspect's is the starting guess)
    and swing shares as their review shows them (``shares``, of the asked aspects only;
    NaN for an aspect no answer informed); the groups found; each group's pick (a model's
    name, or ``None`` without a pool); whether the scenario's options are described by
    their aspects alone (no classes)."""

    names: tuple[str, ...]
    participants: tuple[str, ...]
    weights: FloatArray
    swing: FloatArray
    groups: Groups
    picks: tuple[str | None, ...]
    shares: FloatArray
    aspects_only: bool = False

    def spread(self) -> list[Spread]:
        """Per aspect, the 10th percentile, median and 90th percentile of the
        participants' swing shares (:attr:`shares`), over those whose answers informed
        the aspect; of one such participant, their share as the median and no spread.

        >>> from tradeoff.study.groups import find_groups
        >>> shares = np.array([[0.6, 0.4, np.nan], [0.2, 0.5, 0.3], [np.nan, 1.0, np.nan]])
        >>> p = Picture(("a", "b", "c"), ("p1", "p2", "p3"), shares, shares,
        ...     find_groups(np.array([[0.6, 0.4], [0.2, 0.8], [0.5, 0.5]])), (None,), shares)
        >>> [(s.name, percent(s.median), s.asked, s.of) for s in p.spread()]
        [('a', '40%', 2, 3), ('b', '50%', 3, 3), ('c', '30%', 1, 3)]
        >>> p.spread()[2].low is None and p.spread()[0].low is not None
        True
        """
        rows = []
        for j, name in enumerate(self.names):
            column = self.shares[:, j]
            known = column[~np.isnan(column)]
            if known.size == 0:
                rows.append(Spread(name, None, None, None, 0, len(column)))
                continue
            if known.size == 1:  # one person: a share, no spread
                rows.append(Spread(name, None, float(known[0]), None, 1, len(column)))
                continue
            lo, mid, hi = (float(v) for v in np.quantile(known, (0.1, 0.5, 0.9)))
            rows.append(Spread(name, lo, mid, hi, int(known.size), len(column)))
        return rows

    def membership(self) -> dict[str, tuple[int, float]]:
        """Per participant: (their group, numbered from 1; its probability)."""
        g = self.groups
        return {
            pid: (int(g.labels[i]) + 1, float(g.probabilities[i, g.labels[i]]))
            for i, pid in enumerate(self.participants)
        }


def picture_of(
    sessions: Sequence[Path], scenario_path: Path, populations: PopulationSource | None = None
) -> Picture | None:
    """The picture of the complete ``sessions`` (one per participant), or ``None`` with
    fewer than two."""
    if len(sessions) < 2:
        return None
    participants, weights, swing, shares = [], [], [], []
    priors: Sequence[float] | None = None
    for path in sessions:
        log = read_session(path)
        population = None if populations is None else populations(log.header.scenario)
        engine = replay(log, population=population, check=False)
        result = shown_result(log, engine)  # as session show and the review have it
        participants.append(log.header.participant)
        weights.append(result.weights)
        swing.append(result.swing_weights or result.weights)
        shown = asked_shares(result, engine.space.spans).values
        shares.append([np.nan if v is None else v for v in shown])
        priors = result.priors
    loaded = load_scenario(scenario_path)
    names = tuple(aspect_names(loaded.scenario))  # as the reviews name them
    groups = find_groups(np.asarray(swing, dtype=np.float64))
    natural = np.asarray(weights, dtype=np.float64)
    picks: list[str | None] = [None] * groups.count
    if loaded.scenario.pool is not None and priors is not None:
        pool = scenario_pool(loaded.scenario, Path(loaded.path).parent)
        noisy = pool.uncertainty is not None and pool.uncertainty.any
        for g in range(groups.count):
            mean = natural[groups.labels == g].mean(axis=0)
            # With a measurement noise, the likeliest best at the group's mean weights over
            # the plausible measurements, as each member's own pick counts it (the model
            # best at the measured numbers may be best there by luck).
            draws = mean[None, :] if noisy else None
            picks[g] = recommend(loaded.scenario, pool, list(mean), list(priors), draws=draws).name
    return Picture(
        names,
        tuple(participants),
        natural,
        np.asarray(swing),
        groups,
        tuple(picks),
        np.asarray(shares, dtype=np.float64),
        loaded.scenario.aspects_only,
    )


def shares_sentence(picture: Picture) -> str:
    """What a share is and what the spread table gives, said above it.

    The same words as the review's: an aspect's share is the part of a person's weight
    that goes to it over its whole range.
    """
    ranges = (
        "each cost or reward from one end of its range to the other"
        if picture.aspects_only
        else "finding none to all of a class's cases; each cost or reward from one end of "
        "its range to the other"
    )
    return (
        "An aspect's share is the part of a person's weight that goes to it over its whole "
        f'range in the scenario ({ranges}), as their review ("What we learned") and '
        '"tradeoff session show" give it; a person\'s shares add up to 100% among the '
        "aspects their answers informed. Per aspect: the 10th percentile, median and 90th "
        "percentile of the shares of the participants whose answers informed it."
    )


def picture_text(picture: Picture) -> str:
    """The picture as Markdown (the study report's section)."""
    lines = ["## The population", "", textwrap.fill(shares_sentence(picture), 79), ""]
    lines += [
        "| aspect | 10th percentile | median | 90th percentile | informed by |",
        "|---|---|---|---|---|",
    ]
    lines += [
        f"| {markdown_text(s.name)} | {percent(s.low)} | {percent(s.median)} | "
        f"{percent(s.high)} | {s.asked} of {s.of} |"
        for s in picture.spread()
    ]
    g = picture.groups
    lines += [
        "",
        textwrap.fill(
            (
                f"{g.count} groups of people who weigh the aspects alike"
                if g.count > 1
                else "The weights do not separate into groups (with few participants, "
                "groups can seldom be told apart)"
            )
            + " (a Gaussian mixture over each participant's posterior-mean swing weights, "
            "its number of groups chosen by BIC):",
            79,
        ),
        "",
        "| group | participants | mean probability of membership | model it would pick |",
        "|---|---|---|---|",
    ]
    for k, (size, sure, pick) in enumerate(
        zip(g.sizes(), g.sureness(), picture.picks, strict=True), start=1
    ):
        model = "(no pool)" if pick is None else markdown_text(pick)
        lines.append(f"| {k} | {size} | {sure:.2f} | {model} |")
    lines += ["", textwrap.fill(GROUP_PICK, 79)]
    return "\n".join(lines) + "\n"


#: What a group's model is, and why it need not be a member's own pick or the consensus.
GROUP_PICK = (
    "A group's model is the best of the pool at its members' mean weights (with a "
    "measurement noise, the likeliest best there); a member's own pick may differ, and "
    "the consensus, which keeps the largest regret over everyone smallest, may be another "
    "model."
)
