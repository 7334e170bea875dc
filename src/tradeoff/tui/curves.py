"""Ranking details' decision curves (``c``): net benefit against the threshold probability
for the recommended model, the runner-up and up to three others, each a fixed classifier at
its operating point (the pool gives recalls, not probabilities), with "treat all" and
"treat none", each person's threshold interval marked by two vertical lines, and one line
in words of which model is best there.

Only for a two-class scenario (:func:`curve_view` is ``None`` otherwise). The numbers are
:mod:`tradeoff.curves`' and :mod:`tradeoff.choose.decision_curves`'; this module picks
what to draw and draws it, on round ticks, for the room the plot has.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Label, Static

from tradeoff.arrays import FloatArray
from tradeoff.ask.scenario import Scenario
from tradeoff.choose.decision_curves import stakeholder_threshold
from tradeoff.choose.informed import people_list
from tradeoff.choose.selection import Selection
from tradeoff.curves import Threshold, fixed_net_benefit, threshold_percent, treat_all
from tradeoff.stable import stable_argmax
from tradeoff.text import Voice
from tradeoff.tui.scatter import MIN_ROWS, SizedPlot, nice_ticks, tick_labels

#: The models drawn at most (the recommended one, the runner-up and three others).
MODELS = 5
#: Each model's marker and colour, in the order drawn; treat all, treat none, the people.
MARKERS = ("●", "+", "x", "o", "*")
Colour = tuple[int, int, int]
COLOURS: tuple[Colour, ...] = (
    (0, 175, 215),
    (215, 95, 215),
    (95, 215, 95),
    (255, 175, 0),
    (135, 135, 255),
)
ALL: tuple[str, Colour] = ("-", (230, 230, 230))
NONE: tuple[str, Colour] = ("─", (150, 150, 150))
PEOPLE: tuple[Colour, ...] = ((255, 85, 85), (255, 255, 95), (175, 135, 255))
#: The thresholds drawn: ½% apart.
STEP = 0.005


@dataclass(frozen=True)
class Curve:
    """One line of the plot: its name, the words after it, its net benefit at every
    threshold of the view."""

    name: str
    role: str
    net_benefit: FloatArray


@dataclass(frozen=True)
class CurveView:
    """What the decision-curves view shows: thresholds, the models' curves (recommended
    first), treat all, each person's name and threshold, and the caption."""

    thresholds: FloatArray
    models: tuple[Curve, ...]
    everyone: FloatArray
    people: tuple[tuple[str, Threshold], ...]
    right: float
    prevalence: float
    positive: str
    caption: str


def _best_at(selection: Selection, pt: float) -> tuple[int | None, FloatArray]:
    """The pool model with the highest net benefit at ``pt`` (``None`` when treating all
    or none is higher), and every model's net benefit there."""
    pool, pi = selection.pool, float(selection.stakeholders[0].priors[0])
    nb = np.array([float(fixed_net_benefit(r[0], r[1], pi, [pt])[0]) for r in pool.values[:, :2]])
    best = stable_argmax(nb)
    if nb[best] <= max(0.0, float(treat_all(pi, [pt])[0])) + 1e-12:
        return None, nb
    return best, nb


def _interval(t: Threshold) -> str:
    if t.low is None or t.high is None:
        return threshold_percent(t.value)
    return f"{threshold_percent(t.value)} ({threshold_percent(t.low)}–{threshold_percent(t.high)})"


def curve_view(selection: Selection, scenario: Scenario | None = None) -> CurveView | None:
    """The decision curves of a two-class ``selection`` (``None`` for any other scenario).

    The models drawn: the recommended model (the person's pick, or the group's consensus)
    and the runner-up, the model with the highest net benefit at each person's threshold, then the
    next in the people's order, :data:`MODELS` in all.
    """
    scenario = scenario or selection.scenario
    if scenario is None or scenario.n_classes != 2:
        return None
    people = [
        (s.participant, t)
        for s in selection.stakeholders
        if (t := stakeholder_threshold(scenario, s)) is not None
    ]
    if not people:
        return None
    pool, pi = selection.pool, float(selection.stakeholders[0].priors[0])
    order = list(
        people_list(scenario, pool, selection.stakeholders, selection.recommendations).order
    )
    # The recommended model and its runner-up as the result screen names them (one person's
    # pick, or the group's consensus), not the list's first rows, which are ordered by the
    # asked aspects only and may not start with the pick.
    names = list(pool.names)
    if len(selection.recommendations) == 1:
        rec = selection.recommendations[0]
        pick, runner = rec.index, rec.runner_up
    else:
        pick, runner = names.index(selection.consensus_name), None
    second = names.index(runner) if runner in names else next(m for m in order if m != pick)
    chosen = [pick, second]
    bests = [_best_at(selection, t.value)[0] for _, t in people]
    for m in [b for b in bests if b is not None] + order[2:]:
        if len(chosen) >= MODELS:
            break
        if m not in chosen:
            chosen.append(m)
    highs = [t.high if t.high is not None else t.value for _, t in people]
    right = max(0.5, min(0.99, 2 * max(highs)))
    x = np.round(np.arange(1, round(0.99 / STEP) + 1) * STEP, 3)
    roles = ("recommended", "runner-up")
    models = tuple(
        Curve(
            pool.names[m],
            roles[k] if k < 2 else "",
            fixed_net_benefit(pool.values[m, 0], pool.values[m, 1], pi, x),
        )
        for k, m in enumerate(chosen)
    )
    said = []
    for k, ((who, t), best) in enumerate(zip(people, bests, strict=True)):
        whose = "your" if len(people) == 1 else Voice(who).whose
        what = "treating everyone or no one" if best is None else pool.names[best]
        said.append(
            f"At {whose} threshold of {_interval(t)}, {what} has the highest net benefit"
            if k == 0
            else f"at {whose}, {_interval(t)}, {what}"
        )
    return CurveView(
        x,
        models,
        treat_all(pi, x),
        tuple(people),
        right,
        pi,
        scenario.classes[0].name,
        "; ".join(said) + ".",
    )


def _rich(colour: Colour) -> str:
    return "rgb({},{},{})".format(*colour)


def legend(view: CurveView, width: int | None = None) -> Text:
    """The plot's markers and lines in words, each in its colour; given the ``width`` it
    has, laid out entry by entry, so that a marker never ends a line its words begin the
    next of ("o" at the end of one line, "logreg-C0.1" at the start of the next)."""
    entries: list[tuple[str, str]] = []
    for k, c in enumerate(view.models):
        role = f" ({c.role})" if c.role else ""
        entries.append((f"{MARKERS[k]} {c.name}{role}", _rich(COLOURS[k])))
    entries += [(f"{ALL[0]} treat all", "bold"), (f"{NONE[0]} treat none", "")]
    for k, (who, _) in enumerate(view.people[: len(PEOPLE)]):
        whose = "your" if len(view.people) == 1 else Voice(who).whose
        entries.append((f"│ {whose} 90% interval", _rich(PEOPLE[k])))
    out = Text()
    used = 0
    for text, style in entries:
        if used and width is not None and used + 2 + len(text) > width:
            out.append("\n")
            used = 0
        elif used:
            out.append("  ")
            used += 2
        out.append(text, style=style)
        used += len(text)
    return out


class CurvesLegend(Static):
    """:func:`legend`, laid out anew for the width it has."""

    def __init__(self, view: CurveView, *, id: str | None = None) -> None:
        super().__init__(legend(view), id=id)
        self.view = view

    def on_resize(self) -> None:
        self.update(legend(self.view, self.content_size.width or None))


class CurvesPlot(SizedPlot):
    """The decision curves, drawn anew for its size, or a note when too small to read."""

    DEFAULT_CSS = f"CurvesPlot {{ height: 1fr; min-height: {MIN_ROWS}; }}"

    def __init__(self, view: CurveView, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view = view

    def _draw(self) -> None:
        plt, v = self.plt, self.view
        plt.clear_data()
        plt.clear_figure()
        rows, columns = self.size.height - 3, self.size.width - 8
        low = -0.05 * max(v.prevalence, 0.1)
        ys = nice_ticks(low, v.prevalence * 1.05, max(2, rows // 3 + 1))
        xs = nice_ticks(0.0, v.right * 100, max(2, columns // 8))
        shown = v.thresholds * 100 <= xs[-1]  # the curves run to the axis's end
        x = v.thresholds[shown]
        lines = [(c.net_benefit[shown], MARKERS[k], COLOURS[k]) for k, c in enumerate(v.models)]
        # the recommended model last, on top of the others where the curves meet
        for nb, marker, colour in [
            (v.everyone[shown], *ALL),
            (np.zeros_like(x), *NONE),
            *lines[::-1],
        ]:
            keep = nb >= ys[0]  # each curve falls with the threshold: what is in view
            plt.plot((x[keep] * 100).tolist(), nb[keep].tolist(), marker=marker, color=colour)
        for k, (_, t) in enumerate(v.people[: len(PEOPLE)]):
            for edge in (t.low, t.high) if t.low is not None else (t.value,):
                if edge is not None:
                    plt.vline(edge * 100, PEOPLE[k])
        plt.xlim(xs[0], xs[-1])
        plt.ylim(ys[0], ys[-1])
        plt.xticks(xs, [f"{s}%" for s in tick_labels(xs)])
        plt.yticks(ys, tick_labels(ys))


class DecisionCurvesScreen(Screen[None]):
    """The decision curves with their caption and legend; ``q`` goes back."""

    DEFAULT_CSS = """
    #curves-caption, #curves-axes, #curves-legend { height: auto; padding: 0 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q,escape,c", "close", "Back", id="close-curves"),
    ]

    def __init__(self, view: CurveView) -> None:
        super().__init__()
        self.view = view

    def compose(self) -> ComposeResult:
        v = self.view
        yield Label(
            f"Decision curves: net benefit against the threshold probability of {v.positive}",
            id="title",
        )
        yield Static(v.caption, id="curves-caption")
        yield CurvesPlot(v, id="curves-plot")
        yield Static(
            f"↑ net benefit (true positives per case)   → threshold probability of "
            f"{v.positive}. Each model is a fixed classifier at its operating point.",
            id="curves-axes",
            classes="muted",
        )
        yield CurvesLegend(v, id="curves-legend")
        yield Footer()

    def action_close(self) -> None:
        self.app.pop_screen()
