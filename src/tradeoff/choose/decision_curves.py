"""Decision curves of a decision's pool, and each person's threshold probability in words.

The numbers are :mod:`tradeoff.curves`'; this module reads them for a :class:`Selection`:
each stakeholder's threshold (:func:`stakeholder_threshold`: from their posterior mean
weights and draws, as their pick), the sentence a clinician reads with what net benefit
leaves out (:func:`threshold_lines`), the net benefit of every pool model over the
thresholds as a table (:func:`curve_rows`, the report's ``decision-curves.csv``) and the
figure (:func:`decision_curves_figure`). The pool holds each model's recall per class, not
its probabilities, so every model is a fixed classifier at its operating point: a straight
line in the odds pₜ/(1 − pₜ). The scenario's first class is the positive one and its
prevalence the stakeholder's class prior (the π their metric weighs recall with).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from tradeoff.ask.scenario import Scenario
from tradeoff.choose.selection import Selection
from tradeoff.choose.settled import WeightsCertainty
from tradeoff.choose.stakeholder import Stakeholder, expected_weights, shown_weights
from tradeoff.curves import (
    Threshold,
    fixed_net_benefit,
    person_threshold,
    threshold_percent,
    threshold_words,
)
from tradeoff.curves import treat_all as treat_all_curve
from tradeoff.pool.meaning import pool_cell
from tradeoff.text import Voice, markdown_text, percent

#: The thresholds of the report's table and figure: 0.5% to 99% in steps of ½%.
THRESHOLDS = np.round(np.arange(1, 199) * 0.005, 3)


def stakeholder_threshold(scenario: Scenario, s: Stakeholder) -> Threshold | None:
    """A stakeholder's threshold probability (:func:`tradeoff.curves.person_threshold`):
    the value from their posterior mean weights, the interval over the draws their pick
    came from, weighted as they were; ``None`` for more than two classes."""
    if s.posterior is not None:
        draws, weights = s.posterior
        return person_threshold(scenario, expected_weights(s), draws, weights)
    return person_threshold(scenario, expected_weights(s), s.draws)


def costs_words(scenario: Scenario, s: Stakeholder, whose: str = "their") -> str:
    """What net benefit leaves out for a person who also weighs costs or rewards ("" when
    the scenario has none): the aspects and their share of the person's weights over each
    aspect's whole range, as the review shows them (shares of the aspects the answers
    informed: one never asked is named, with no number).

    >>> from types import SimpleNamespace as Fake
    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/breast-cancer-triage.toml").scenario
    >>> lee = Fake(shares=Fake(values=(0.3, 0.2, 0.5, None)))
    >>> print(costs_words(sc, lee))  # doctest: +NORMALIZE_WHITESPACE
    Net benefit counts only malignant lumps and benign lumps; it leaves out latency, which
    takes 50% of their weights over each aspect's whole range (memory was not asked), so a
    model's net benefit is not the whole of its value to them.
    """
    if not scenario.attributes:
        return ""
    k = scenario.n_classes
    shown = shown_weights(s)[k:]
    asked = [a.name for a, v in zip(scenario.attributes, shown, strict=True) if v is not None]
    unasked = [a.name for a, v in zip(scenario.attributes, shown, strict=True) if v is None]
    them = "you" if whose == "your" else "them"
    lead = f"Net benefit counts only {scenario.classes[0].label} and {scenario.classes[1].label}; "
    if not asked:
        return (
            f"{lead}it leaves out {' and '.join(unasked)}, which {whose} answers have not "
            f"weighed yet, so a model's net benefit may not be the whole of its value to {them}."
        )
    share = float(sum(v for v in shown if v is not None))
    takes = "take" if len(asked) > 1 else "takes"
    left = f" ({' and '.join(unasked)} {'were' if len(unasked) > 1 else 'was'} not asked)"
    return (
        f"{lead}it leaves out {' and '.join(asked)}, which {takes} {percent(share)} of "
        f"{whose} weights over each aspect's whole range{left if unasked else ''}, so a "
        f"model's net benefit is not the whole of its value to {them}."
    )


def _tuned_words(selection: Selection, threshold: Threshold) -> str:
    """That a model tuned to the person is its own curve read at their threshold, when the
    pool holds tuned models."""
    frame = selection.pool.frame
    if "variant_of" not in frame.columns:
        return ""
    if not any(isinstance(v, str) and v for v in frame["variant_of"].tolist()):
        return ""
    return (
        "A model tuned to them acts on a case when its probability (at the scenario's "
        f"prevalences) is at least {percent(threshold.value)}: it is that model's decision "
        "curve read at this threshold."
    )


def threshold_lines(selection: Selection, person: int, whose: str | None = None) -> list[str]:
    """The threshold sentence of stakeholder ``person`` and, when they weigh costs, what
    net benefit leaves out ([] for more than two classes). ``whose`` names the reader
    ("Your"), else the participant's name."""
    scenario = selection.scenario
    if scenario is None:
        return []
    s = selection.stakeholders[person]
    threshold = stakeholder_threshold(scenario, s)
    if threshold is None:
        return []
    said = Voice(s.participant).whose
    owner = whose or said[:1].upper() + said[1:]
    lines = [threshold_words(threshold, scenario, whose=owner, priors=s.priors)]
    if costs := costs_words(scenario, s, "your" if owner == "Your" else "their"):
        lines.append(costs)
    if tuned := _tuned_words(selection, threshold):
        lines.append(tuned)
        certainty = WeightsCertainty(s.answers, threshold)
        if not certainty.settled:  # the tuned rule is built from unsettled weights
            lines.append(certainty.words())
    return lines


def threshold_json(selection: Selection) -> list[dict[str, Any] | None]:
    """Each stakeholder's threshold as JSON (``None`` for more than two classes), with the
    sentence and what net benefit leaves out."""
    scenario = selection.scenario
    out: list[dict[str, Any] | None] = []
    for i, s in enumerate(selection.stakeholders):
        threshold = None if scenario is None else stakeholder_threshold(scenario, s)
        if threshold is None or scenario is None:
            out.append(None)
            continue
        lines = threshold_lines(selection, i)
        out.append(
            {
                **threshold.to_dict(),
                "positive_class": scenario.classes[0].name,
                "sentence": lines[0],
                "left_out": costs_words(scenario, s),
                "weights_settled": WeightsCertainty(s.answers, threshold).to_dict(),
            }
        )
    return out


def two_classes_words(scenario: Scenario) -> str:
    """Why there are no decision curves for a scenario of more than two classes ("" for two,
    and for options described by their aspects alone, where no class is decided)."""
    if scenario.n_classes in (0, 2):
        return ""
    return (
        f"Decision curves apply to a two-class decision (act or do not act); this scenario "
        f"has {scenario.n_classes} classes, so there are none."
    )


def _prevalence(selection: Selection) -> float:
    """The positive class's prevalence: the first stakeholder's class prior (all of one
    scenario share the scenario's)."""
    return float(selection.stakeholders[0].priors[0])


def curve_rows(selection: Selection) -> list[tuple[str, str, float, float]]:
    """Net benefit of every pool model, treat all and treat none at every threshold of
    :data:`THRESHOLDS`: rows (model, kind, threshold, net benefit); kind is
    ``fixed classifier`` (a pool model at its operating point), ``treat all`` or
    ``treat none``."""
    pool, pi = selection.pool, _prevalence(selection)
    rows: list[tuple[str, str, float, float]] = []
    for m, name in enumerate(pool.names):
        nb = fixed_net_benefit(pool.values[m, 0], pool.values[m, 1], pi, THRESHOLDS)
        rows += [
            (name, "fixed classifier", float(t), float(v))
            for t, v in zip(THRESHOLDS, nb, strict=True)
        ]
    everyone = treat_all_curve(pi, THRESHOLDS)
    rows += [
        ("treat all", "treat all", float(t), float(v))
        for t, v in zip(THRESHOLDS, everyone, strict=True)
    ]
    rows += [("treat none", "treat none", float(t), 0.0) for t in THRESHOLDS]
    return rows


def write_curve_table(selection: Selection, path: Path) -> None:
    """:func:`curve_rows` as CSV; a model's name (from a file) as a cell a spreadsheet
    shows as text (:func:`tradeoff.pool.meaning.pool_cell`: no formula is evaluated)."""
    import csv

    with path.open("w", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        out.writerow(["model", "kind", "threshold", "net_benefit"])
        for name, kind, t, v in curve_rows(selection):
            out.writerow([pool_cell(name), kind, f"{t:.3f}", f"{v:.9f}"])


def decision_curves_figure(selection: Selection, path: Path) -> str | None:
    """Net benefit against the threshold probability: every pool model at its operating
    point (the recommended ones in colour, the others grey), treat all and treat none, each
    stakeholder's threshold with its credible interval shaded; ``None`` for more than two
    classes."""
    scenario = selection.scenario
    if scenario is None or scenario.n_classes != 2:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pool, pi = selection.pool, _prevalence(selection)
    thresholds = [stakeholder_threshold(scenario, s) for s in selection.stakeholders]
    right = max([0.5] + [min(0.99, 2 * (t.high or t.value)) for t in thresholds if t])
    x = THRESHOLDS[right >= THRESHOLDS]
    fig, ax = plt.subplots(figsize=(7.2, 4.4))
    named = {r.name for r in selection.recommendations} | {selection.consensus_name}
    for m, name in enumerate(pool.names):
        if name not in named:
            nb = fixed_net_benefit(pool.values[m, 0], pool.values[m, 1], pi, x)
            ax.plot(x, nb, color="lightgrey", lw=0.8, zorder=1)
    for m, name in enumerate(pool.names):
        if name in named:
            nb = fixed_net_benefit(pool.values[m, 0], pool.values[m, 1], pi, x)
            # a name from a file is text, never matplotlib's mathematics
            ax.plot(x, nb, lw=1.8, label=name.replace("$", r"\$"), zorder=3)
    ax.plot(x, treat_all_curve(pi, x), color="black", ls="--", lw=1, label="treat all")
    ax.axhline(0, color="black", lw=1, label="treat none")
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, (s, t) in enumerate(zip(selection.stakeholders, thresholds, strict=True)):
        if t is None:
            continue
        colour = colours[(k + 3) % len(colours)]
        if t.low is not None and t.high is not None:
            ax.axvspan(t.low, t.high, color=colour, alpha=0.15, zorder=0)
        ax.axvline(
            t.value, color=colour, lw=1, ls=":", label=f"{Voice(s.participant).whose} threshold"
        )
    ax.set_xlim(0, float(x[-1]))
    ax.set_ylim(-0.05 * max(pi, 0.1), pi * 1.1)
    ax.xaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
    ax.set_xlabel(f"threshold probability of {scenario.classes[0].name}")
    ax.set_ylabel("net benefit (true positives per case)")
    ax.set_title("Decision curves of the pool's models", fontsize=10)
    # Below the axes, never over a curve or a threshold's shaded interval.
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=3, frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return (
        "Decision curves: net benefit against the threshold probability of "
        f"{scenario.classes[0].name} for the recommended models (in colour) and the rest of "
        "the pool (grey), each a fixed classifier at its operating point, with treat all and "
        "treat none; each person's threshold dotted, its 90% credible interval shaded."
    )


def group_words(selection: Selection) -> str:
    """The group's spread of thresholds ("" for one person or more than two classes): the
    lowest, the median and the highest of the people's, who holds the two ends, and whether
    their 90% intervals overlap at all."""
    scenario = selection.scenario
    if scenario is None or len(selection.stakeholders) < 2:
        return ""
    found = [(s.participant, stakeholder_threshold(scenario, s)) for s in selection.stakeholders]
    held = [(who, t) for who, t in found if t is not None]
    if len(held) < 2:
        return ""
    held.sort(key=lambda x: x[1].value)
    values = [t.value for _, t in held]
    lows = [t.low for _, t in held if t.low is not None]
    highs = [t.high for _, t in held if t.high is not None]
    overlap = ""
    if len(lows) == len(held) and len(highs) == len(held):
        overlap = (
            " Their 90% intervals all overlap."
            if max(lows) <= min(highs)
            else " Their 90% intervals do not all overlap: the people differ in where they "
            "would act, not only in how sure their answers are."
        )
    return (
        f"Across the {len(held)} people the threshold probability runs from "
        f"{threshold_percent(values[0])} ({held[0][0]}) to {threshold_percent(values[-1])} "
        f"({held[-1][0]}), median {threshold_percent(float(np.median(values)))}.{overlap}"
    )


def curves_section(selection: Selection, out: Path) -> list[str]:
    """The report's "Decision curves" section (Markdown lines, text from files escaped):
    what the threshold and the curves are (each person's threshold sentence is in
    their section of the report), the curves' data written as
    ``decision-curves.csv`` in ``out``; for more than two classes, why there are none."""
    scenario = selection.scenario
    if scenario is None or scenario.n_classes == 0:  # options by their aspects: no class
        return []
    md = ["## Decision curves", ""]
    if none := two_classes_words(scenario):
        return [*md, markdown_text(none), ""]
    write_curve_table(selection, out / "decision-curves.csv")
    if spread := group_words(selection):
        md += [markdown_text(spread), ""]
    md += [
        markdown_text(
            "The threshold probability is the chance of "
            f"{scenario.classes[0].name} at which acting and not acting are worth the same "
            "to the person: net benefit at that threshold ranks two models as their own "
            "weights on the two classes do. The pool gives each model's recall, not its "
            "probabilities, so each model is drawn as a fixed classifier at its operating "
            "point. Each person's threshold, with its 90% credible interval, is in their section "
            "(Stakeholders) and shaded in the figure (Figures); the curves' numbers are in "
            "decision-curves.csv (model, kind, threshold, net benefit)."
        ),
        "",
    ]
    return md
