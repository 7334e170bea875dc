"""The practitioner's selection screen: the ranked pool, a scatter plot of two objectives with
the Pareto front and the pick, and controls for p and for moving weight between objectives.

Opened by ``tradeoff select POOL --session FILE ... --tui`` and from the stakeholder app's
result screen. All ranking is done by :mod:`tradeoff.copa` / :mod:`tradeoff.ranking`; the
screen only shows it.
"""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Label, Static
from textual_plotext import PlotextPlot

from tradeoff import copa
from tradeoff.pool import Pool
from tradeoff.presentation import aspect_cell, aspect_header
from tradeoff.ranking import rank_pool
from tradeoff.scenario import Scenario
from tradeoff.selection import Selection, copa_differs

P_VALUES = (1.0, 2.0, math.inf)
#: One line for the practitioner's terms.
LEGEND = (
    "COPA turns each aspect into the share of models doing better (top-%), weights them by "
    "ω and combines them with a p-norm; the recommendation is each person's own metric. "
    "Plot: dots are models, the line joins the Pareto front of the two plotted aspects, "
    "X is COPA's pick; x changes the axes."
)


class SelectionScreen(Screen[None]):
    """Explore the ranking: change p, move weight α to one objective, watch the pick move."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("p", "next_p", "Change p", id="change-p"),
        Binding("o", "next_objective", "α objective", id="alpha-objective"),
        Binding("plus,equals_sign", "alpha(0.05)", "α +0.05", id="alpha-up"),
        Binding("minus", "alpha(-0.05)", "α −0.05", id="alpha-down"),
        Binding("w", "stakeholder_weights", "Stakeholder ω", id="stakeholder-omega"),
        Binding("x", "next_axes", "Plot axes", id="plot-axes"),
        Binding("q,escape", "close", "Close", id="close-select"),
    ]

    DEFAULT_CSS = """
    SelectionScreen #select-top { height: 1fr; }
    SelectionScreen #select-table { width: 3fr; }
    SelectionScreen #select-plot { width: 2fr; min-width: 30; }
    SelectionScreen #select-status { height: auto; padding: 0 1; }
    SelectionScreen #select-picks { height: auto; max-height: 6; padding: 0 1; }
    SelectionScreen #select-legend { height: auto; padding: 0 1; }
    """

    def __init__(self, selection: Selection, scenario: Scenario | None = None) -> None:
        super().__init__()
        self.selection = selection
        self.scenario = scenario or selection.scenario
        self.pool: Pool = selection.pool
        self.p_index = 2
        self.objective = 0
        self.alpha: float | None = None
        self.axes = (0, 1)
        self.omega: tuple[float, ...] = tuple(selection.average_pick.weights)

    def compose(self) -> ComposeResult:
        yield Label("Selection: the candidate pool ranked with the elicited weights", id="title")
        yield Static(self._picks_text(), id="select-picks")
        yield Static("", id="select-status")
        with Horizontal(id="select-top"):
            yield DataTable(
                id="select-table", cursor_type="row", zebra_stripes=True, header_height=2
            )
            with Vertical(id="select-plot"):
                yield PlotextPlot(id="scatter")
        yield Static(LEGEND, id="select-legend", classes="muted")
        yield Footer()

    def on_mount(self) -> None:
        self.refresh_ranking()

    @property
    def p(self) -> float:
        return P_VALUES[self.p_index]

    def _picks_text(self) -> str:
        s = self.selection
        lines = []
        for st, rec, pick in zip(s.stakeholders, s.recommendations, s.picks, strict=True):
            sure = "" if rec.probability is None else f" ({rec.probability:.0%} chance best)"
            line = f"{st.participant}: recommended {rec.name}{sure}"
            if pick.selected.name != rec.name:
                line += f". {copa_differs(s, rec, pick)}"
            if st.consistency is not None and st.consistency.flagged:
                line += " (answers flagged as inconsistent)"
            lines.append(line)
        lines.append(f"consensus (smallest largest regret): {s.consensus_name}")
        return "\n".join(lines)

    def _header(self, j: int) -> str:
        if self.scenario is not None:
            return aspect_header(self.scenario, j)
        return self.pool.columns[j][:14]

    def _cell(self, j: int, value: float) -> str:
        if self.scenario is not None:
            return aspect_cell(self.scenario, j, value)
        return f"{value:.4g}"

    def current_weights(self) -> tuple[float, ...]:
        if self.alpha is None:
            return self.omega
        w = copa.alpha_weights(len(self.pool.objectives), [self.objective], [self.alpha])[0]
        return tuple(float(x) for x in w)

    def refresh_ranking(self) -> None:
        weights = self.current_weights()
        outcome = rank_pool(self.pool, weights=weights, p=self.p, top=self.pool.n)
        cols = self.pool.columns
        table = self.query_one("#select-table", DataTable)
        table.clear(columns=True)
        table.add_columns("#", "model", *[self._header(j) for j in range(len(cols))], "Pareto")
        for i, row in enumerate(outcome.ranking, 1):
            table.add_row(
                str(i),
                row.name,
                *[self._cell(j, row.values[c]) for j, c in enumerate(cols)],
                "yes" if row.pareto else "",
            )
        ptxt = "∞" if math.isinf(self.p) else f"{self.p:g}"
        how = (
            f"α = {self.alpha:.2f} on {self._header(self.objective).replace(chr(10), ' ')}"
            if self.alpha is not None
            else "ω from the stakeholders (averaged)"
        )
        self.query_one("#select-status", Static).update(
            f"COPA, p = {ptxt}; {how}; ω = [{', '.join(f'{w:.2f}' for w in weights)}]  →  "
            f"pick: {outcome.selected.name}. {outcome.explanation}"
        )
        self._plot(outcome.selected.index)

    def _plot(self, pick: int) -> None:
        plot = self.query_one("#scatter", PlotextPlot)
        plt = plot.plt
        plt.clear_data()
        plt.clear_figure()
        i, j = self.axes
        x, y = self.pool.values[:, i], self.pool.values[:, j]
        pareto = copa.pareto_mask(self.pool.minimisation()[:, [i, j]])
        plt.scatter(x.tolist(), y.tolist(), marker="dot", label="models")
        order = np.argsort(x[pareto])
        plt.plot(
            x[pareto][order].tolist(),
            y[pareto][order].tolist(),
            marker="dot",
            label="Pareto front (these two)",
        )
        plt.scatter([float(x[pick])], [float(y[pick])], marker="X", label="pick")
        plt.xlabel(self._header(i).replace("\n", " ")[:24])
        plt.ylabel(self._header(j).replace("\n", " ")[:24])
        plot.refresh()

    def action_next_p(self) -> None:
        self.p_index = (self.p_index + 1) % len(P_VALUES)
        self.refresh_ranking()

    def action_next_objective(self) -> None:
        self.objective = (self.objective + 1) % len(self.pool.objectives)
        if self.alpha is None:
            self.alpha = 0.5
        self.refresh_ranking()

    def action_alpha(self, step: float) -> None:
        self.alpha = min(1.0, max(0.0, (0.5 if self.alpha is None else self.alpha) + step))
        self.refresh_ranking()

    def action_stakeholder_weights(self) -> None:
        self.alpha = None
        self.refresh_ranking()

    def action_next_axes(self) -> None:
        k = len(self.pool.objectives)
        i, j = self.axes
        j = (j + 1) % k
        if j == i:
            i, j = (i + 1) % k, (i + 2) % k
        self.axes = (i, j)
        self._plot(self._current_pick())

    def _current_pick(self) -> int:
        outcome = rank_pool(self.pool, weights=self.current_weights(), p=self.p, top=1)
        return outcome.selected.index

    def action_close(self) -> None:
        if isinstance(self.app, SelectionApp):
            self.app.exit()
        else:
            self.app.pop_screen()


class SelectionApp(App[None]):
    """A stand-alone app around :class:`SelectionScreen`."""

    CSS_PATH = "app.tcss"
    TITLE = "tradeoff select"

    def __init__(self, selection: Selection, scenario: Scenario | None = None) -> None:
        super().__init__()
        self.selection = selection
        self.scenario = scenario

    def on_mount(self) -> None:
        self.push_screen(SelectionScreen(self.selection, self.scenario))


def run_selection_app(selection: Selection, scenario: Scenario | None = None) -> None:
    """Open the practitioner's selection screen on its own (``tradeoff select --tui``)."""
    SelectionApp(selection, scenario).run()
