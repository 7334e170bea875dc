"""The population picture of a study: how its participants' weights spread, and the groups
of people who want different models (how many in each, how sure, which model each would
pick), for ``study report``, the coordinator's page and the export.

The groups are :func:`tradeoff.study.groups.find_groups`'s (its docstring says why a
Gaussian mixture over posterior-mean swing weights, in log-ratio coordinates, with BIC);
each group's model is the Bayes pick of the study's pool at the group's mean weights.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tradeoff.arrays import FloatArray
from tradeoff.ask.population import PopulationSource
from tradeoff.ask.scenario import load_scenario
from tradeoff.choose.candidates import scenario_pool
from tradeoff.choose.recommend import recommend
from tradeoff.record.log import read_session
from tradeoff.record.replay import replay
from tradeoff.study.groups import Groups, find_groups

__all__ = ["Picture", "picture_of", "picture_text"]


@dataclass(frozen=True)
class Picture:
    """Per participant (in ``participants``' order) their posterior-mean natural-unit
    weights (``weights``) and swing weights; the groups found; each group's pick (a
    model's name, or ``None`` without a pool)."""

    names: tuple[str, ...]
    participants: tuple[str, ...]
    weights: FloatArray
    swing: FloatArray
    groups: Groups
    picks: tuple[str | None, ...]

    def spread(self) -> list[tuple[str, float, float, float]]:
        """Per aspect: (name, 10th percentile, median, 90th percentile) of the
        participants' weights (natural units, ‖a‖₁ = 1)."""
        q = np.quantile(self.weights, (0.1, 0.5, 0.9), axis=0)
        return [
            (name, float(q[0, j]), float(q[1, j]), float(q[2, j]))
            for j, name in enumerate(self.names)
        ]

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
    participants, weights, swing = [], [], []
    priors: Sequence[float] | None = None
    names: tuple[str, ...] = ()
    for path in sessions:
        log = read_session(path)
        population = None if populations is None else populations(log.header.scenario)
        result = replay(log, population=population, check=False).result()
        participants.append(log.header.participant)
        weights.append(result.weights)
        swing.append(result.swing_weights or result.weights)
        priors, names = result.priors, result.names
    groups = find_groups(np.asarray(swing, dtype=np.float64))
    natural = np.asarray(weights, dtype=np.float64)
    picks: list[str | None] = [None] * groups.count
    loaded = load_scenario(scenario_path)
    if loaded.scenario.pool is not None and priors is not None:
        pool = scenario_pool(loaded.scenario, Path(loaded.path).parent)
        for g in range(groups.count):
            mean = natural[groups.labels == g].mean(axis=0)
            picks[g] = recommend(loaded.scenario, pool, list(mean), list(priors)).name
    return Picture(names, tuple(participants), natural, np.asarray(swing), groups, tuple(picks))


def picture_text(picture: Picture) -> str:
    """The picture as Markdown (the study report's section)."""
    lines = ["## The population", "", "How the participants' weights spread (natural units):", ""]
    lines += ["| aspect | 10th percentile | median | 90th percentile |", "|---|---|---|---|"]
    lines += [f"| {n} | {lo:.3g} | {mid:.3g} | {hi:.3g} |" for n, lo, mid, hi in picture.spread()]
    g = picture.groups
    lines += [
        "",
        f"{g.count} group{'' if g.count == 1 else 's'} of people who weigh the aspects "
        "alike (a Gaussian mixture over each participant's posterior-mean swing weights, "
        "its number of groups chosen by BIC):",
        "",
        "| group | participants | mean probability of membership | model it would pick |",
        "|---|---|---|---|",
    ]
    for k, (size, sure, pick) in enumerate(
        zip(g.sizes(), g.sureness(), picture.picks, strict=True), start=1
    ):
        lines.append(f"| {k} | {size} | {sure:.2f} | {pick or '(no pool)'} |")
    return "\n".join(lines) + "\n"
