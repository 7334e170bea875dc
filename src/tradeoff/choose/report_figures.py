"""The decision report's figures: the Pareto front coloured by the α that selects each model
(paper 000 Figs. 1 and 4), the stakeholders' weights with their intervals beside COPA's ω, and
the radar chart of paper 003 when the pool has a ``system`` column
(:func:`tradeoff.choose.report.write_report` embeds them).

A report of many stakeholders (a study's) draws the weights as each aspect's spread over the
people, one dot a person, not a bar and a legend entry each: forty bars to an aspect and a
legend of forty names cannot be read, nor laid out on the page.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from tradeoff.arrays import FloatArray
from tradeoff.ask.words import option_noun
from tradeoff.choose import copa
from tradeoff.choose.informed import person_shares
from tradeoff.choose.robustness import aspect_words
from tradeoff.choose.selection import Selection
from tradeoff.choose.stakeholder import Stakeholder
from tradeoff.judge import indicators, to_minimisation
from tradeoff.judge.render import radar_png
from tradeoff.stable import whole_percents
from tradeoff.text import percent

#: More stakeholders than this: the weights figure draws each aspect's spread over the
#: people (:func:`weights_figure`) instead of a bar per person.
MANY = 8


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def alpha_front_figure(selection: Selection, path: Path, alphas: int = 1000) -> str:
    """Paper 000 Fig. 1/4 style: two objectives, each model selected by some α coloured by
    the average α that selects it (α on the first objective, the rest share 1 − α)."""
    plt = _plt()
    pool = selection.pool
    phi = pool.rank_cdf
    grid = np.linspace(0, 1, alphas)
    picks = copa.sweep(phi, [0], grid, math.inf)
    xi, yi = (2, 0) if pool.values.shape[1] > 2 else (1, 0)
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    ax.scatter(pool.values[:, xi], pool.values[:, yi], c="lightgrey", s=18, label="candidates")
    chosen = sorted(set(picks.tolist()))
    mean_alpha = [float(grid[picks == m].mean()) for m in chosen]
    sc = ax.scatter(
        pool.values[chosen, xi],
        pool.values[chosen, yi],
        c=mean_alpha,
        cmap="viridis",
        vmin=0,
        vmax=1,
        s=46,
        edgecolors="black",
        label="selected for some α",
    )
    consensus = pool.names.index(selection.consensus_name)
    ax.scatter(
        [pool.values[consensus, xi]],
        [pool.values[consensus, yi]],
        marker="*",
        s=220,
        c="crimson",
        label=f"consensus: {selection.consensus_name}",
    )
    fig.colorbar(sc, ax=ax, label=f"α (weight on {pool.columns[0]})")
    ax.set_xlabel(pool.columns[xi])
    ax.set_ylabel(pool.columns[yi])
    if pool.objectives[xi].direction == "min" and _log_scale(pool.values[:, xi]):
        ax.set_xscale("log")
    ax.legend(fontsize=7, loc="best")
    noun = pool_noun(selection)
    ax.set_title(f"{noun[0].upper()}{noun[1:]} selected by COPA (p = ∞) as α moves")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return f"Candidate {noun}; coloured where COPA (p = ∞) selects them for some α."


def pool_noun(selection: Selection, plural: bool = True) -> str:
    """What the pool's options are called (:func:`~tradeoff.ask.words.option_noun`)."""
    return option_noun(selection.scenario, plural)


def _log_scale(values: np.ndarray) -> bool:
    """Whether a cost's axis is drawn on a log scale: when it spans more than a factor of
    20 and every value can be drawn on it (a trip with 0 changes cannot: on a log scale it
    would vanish from the figure, the pick with it).

    >>> _log_scale(np.array([0.5, 3.0, 40.0])), _log_scale(np.array([0.0, 1.0, 4.0]))
    (True, False)
    """
    low = float(values.min())
    return low > 0 and float(values.max()) > 20 * low


def weights_figure(selection: Selection, path: Path) -> str:
    """Each stakeholder's weights as the tables give them: how much each aspect matters
    over its whole range (swing weights, in percent) with 90% credible intervals, and COPA's
    ω for the same person beside them. Every bar carries its value, so a weight of 1% is
    read, not lost; a weight no answer informed has no bar, only the words "not asked".
    With more than :data:`MANY` stakeholders: :func:`_spread_figure`."""
    plt = _plt()
    people = selection.stakeholders
    scenario = selection.scenario
    names = list(aspect_words(scenario)) if scenario is not None else list(people[0].names)
    if len(people) > MANY:
        return _spread_figure(selection, names, path)
    fig, (ax, ax_pool) = plt.subplots(1, 2, figsize=(10.4, 3.9), sharey=True)
    n = len(people)
    width = 0.8 / n
    x = np.arange(len(names))
    top = 0.0
    unasked = False
    for k, (s, pick) in enumerate(zip(people, selection.picks, strict=True)):
        values, ranges = _person_weights(selection, s)
        asked = ~np.isnan(values)
        w = np.nan_to_num(values)
        pos = x + (k - (n - 1) / 2) * width
        err = None
        if ranges is not None:
            iv = np.array(ranges)
            err = np.vstack((np.maximum(w - iv[:, 0], 0), np.maximum(iv[:, 1] - w, 0)))
            err[:, ~asked] = 0.0
            top = max(top, float(iv[asked, 1].max(initial=0.0)))
        shown = np.where(asked, w, 0.0)
        bars = ax.bar(pos, shown, width, yerr=err, capsize=3, label=s.participant)
        labels = [t if a else "" for t, a in zip(whole_percents(shown), asked, strict=True)]
        ax.bar_label(bars, labels=labels, fontsize=7, padding=2)
        for j in np.flatnonzero(~asked):
            unasked = True
            ax.text(pos[j], 0.01, "not asked", rotation=90, ha="center", va="bottom", fontsize=7)
        omega = np.array(pick.weights)
        bars = ax_pool.bar(pos, omega, width, label=s.participant)
        ax_pool.bar_label(bars, labels=list(whole_percents(omega)), fontsize=7, padding=2)
        top = max(top, float(shown.max()), float(omega.max()))
    wrapped = [name.replace(" ", "\n", 1) for name in names]
    for a in (ax, ax_pool):
        a.set_xticks(x, wrapped, fontsize=8)
        a.set_ylim(0, min(1.0, top * 1.15 + 0.05))
        a.yaxis.set_major_formatter(lambda v, _: percent(v))
    ax.set_ylabel("weight")
    ax.set_title("How much each aspect matters over its whole range\n(90% intervals)", fontsize=9)
    ax_pool.set_title("COPA's ω (for the practitioner: fitted to the ranking)", fontsize=9)
    ax_pool.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return (
        "Each stakeholder's weights as in the tables: how much each aspect matters over its "
        "whole range, with 90% credible intervals (left), and COPA's ω for the same person, "
        "the weights under which COPA's rank-based score orders the pool like their metric "
        "(right)."
        + (
            ' An aspect marked "not asked" has no bar: no answer was about it, so its '
            "weight is only the starting guess."
            if unasked
            else ""
        )
    )


def _person_weights(
    selection: Selection, s: Stakeholder
) -> tuple[FloatArray, tuple[tuple[float, float], ...] | None]:
    """One stakeholder's weights as the tables give them: each aspect's share, of the asked
    aspects only as on the review (NaN where no answer informed it: no guess is counted),
    and their 90% intervals ((0, 0) for an aspect not asked; ``None`` when not known)."""
    scenario = selection.scenario
    asked = None if s.asked is None else np.array(s.asked, dtype=bool)
    if scenario is None:
        values = np.array(s.swing_weights or s.weights, dtype=float)
        ranges = s.swing_intervals
    else:
        shares = person_shares(scenario, s)
        values = np.array([np.nan if v is None else v for v in shares.values], dtype=float)
        known = all(iv is not None for iv, v in zip(shares.intervals, shares.values, strict=True)
                    if v is not None)  # fmt: skip
        ranges = tuple(iv or (0.0, 0.0) for iv in shares.intervals) if known else None
    out: FloatArray = values if asked is None else np.where(asked, values, np.nan)
    return out, ranges


def _asked_shares(selection: Selection, aspects: int) -> tuple[FloatArray, FloatArray]:
    """Every stakeholder's share of each aspect as the tables give it (people × aspects;
    NaN where their answers did not inform it: :func:`_person_weights`) and COPA's ω."""
    shares = np.array(
        [_person_weights(selection, s)[0] for s in selection.stakeholders], dtype=float
    ).reshape(len(selection.stakeholders), aspects)
    omega = np.array([pick.weights for pick in selection.picks], dtype=float)
    return shares, omega


def _spread_figure(selection: Selection, names: list[str], path: Path) -> str:
    """:func:`weights_figure` for many stakeholders: for each aspect, one dot a person (a
    fixed sideways offset by their place in the tables, so the figure is the same on every
    run) over a box of the middle half and a line at the median, for their weights (left)
    and COPA's ω (right); an aspect no answer of anyone informed reads "not asked"."""
    plt = _plt()
    shares, omega = _asked_shares(selection, len(names))
    n = len(selection.stakeholders)
    fig, (ax, ax_pool) = plt.subplots(1, 2, figsize=(10.4, 4.2), sharey=True, layout="constrained")
    offsets = (np.arange(n) % 9 - 4) * 0.035
    x = np.arange(len(names))
    top = float(np.nanmax(np.concatenate((shares.ravel(), omega.ravel(), [0.0]))))
    for a, values in ((ax, shares), (ax_pool, omega)):
        for j in x:
            column = values[:, j][~np.isnan(values[:, j])]
            if column.size == 0:
                a.text(j, 0.01, "not asked", rotation=90, ha="center", va="bottom", fontsize=7)
                continue
            a.boxplot(column, positions=[j], widths=0.5, showfliers=False, manage_ticks=False)
            kept = ~np.isnan(values[:, j])
            a.scatter(j + offsets[kept], column, s=9, alpha=0.6, color="tab:blue", zorder=3)
        a.set_xticks(x, [name.replace(" ", "\n", 1) for name in names], fontsize=8)
        a.set_ylim(0, min(1.0, top * 1.1 + 0.05))
        a.yaxis.set_major_formatter(lambda v, _: percent(v))
    ax.set_ylabel("weight")
    ax.set_title(
        f"How much each aspect matters over its whole range\n({n} stakeholders, one dot each)",
        fontsize=9,
    )
    ax_pool.set_title("COPA's ω (for the practitioner: fitted to the ranking)", fontsize=9)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return (
        f"The {n} stakeholders' weights: how much each aspect matters over its whole range "
        "(left) and COPA's ω, the weights under which COPA's rank-based score orders the "
        "pool like their metric (right); one dot a person, the box holds the middle half "
        "and its line is the median. Each person's weights and intervals are in the tables."
        + (
            " Where a person's answers did not inform an aspect, they have no dot there: "
            "their weight would be only the starting guess."
            if bool(np.isnan(shares).any())
            else ""
        )
    )


def radar_figure(selection: Selection, path: Path) -> str | None:
    """The radar chart of paper 003 when the pool has a ``system`` column."""
    frame = selection.pool.frame
    if "system" not in frame.columns:
        return None
    y = to_minimisation(selection.pool.values, selection.pool.maximise)
    systems = {str(s): y[np.asarray(frame["system"] == s)] for s in frame["system"].unique()}
    rows, _ = indicators(systems)
    radar_png(rows, str(path), title="Systems in the pool")
    return "Radar chart of the systems in the pool (paper 003)."
