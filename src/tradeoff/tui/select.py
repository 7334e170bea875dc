"""Ranking details, the team's screen: which model fits whom and why, in the people's words
and units (each person's recommendation, how sure it is, what change of a weight would alter
it; the group's consensus), the candidates in that order, and a scatter plot of two aspects
with the Pareto front. COPA's ω, p and top-% are one level down (``d``), with the controls
for p and for moving weight between aspects.

Opened by ``tradeoff select POOL --session FILE ... --tui`` and from the stakeholder app's
result screen. All ranking is done by :mod:`tradeoff.pool.copa` /
:mod:`tradeoff.choose.rank` and the
words by :mod:`tradeoff.choose.words`; the screen only shows them.
"""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Label, Static
from textual_plotext import PlotextPlot

from tradeoff.ask.presentation import aspect_cell, aspect_header, table_legend
from tradeoff.ask.scenario import Scenario
from tradeoff.choose.rank import rank_pool
from tradeoff.choose.selection import Selection
from tradeoff.choose.words import omega_note, plain_summary
from tradeoff.pool import Pool, copa
from tradeoff.tui.dialogs import SelectionHelpScreen

P_VALUES = (1.0, 2.0, math.inf)


class SelectionScreen(Screen[None]):
    """Which model fits whom and why; ``d`` shows COPA's ranking and its controls."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "details", "COPA details", id="copa-details"),
        Binding("x", "next_axes", "Plot axes", id="plot-axes"),
        Binding("p", "next_p", "Change p", id="change-p", show=False),
        Binding("o", "next_objective", "α aspect", id="alpha-objective", show=False),
        Binding("plus,equals_sign", "alpha(0.05)", "α +0.05", id="alpha-up", show=False),
        Binding("minus", "alpha(-0.05)", "α −0.05", id="alpha-down", show=False),
        Binding("w", "stakeholder_weights", "People's ω", id="stakeholder-omega", show=False),
        Binding("question_mark", "help", "Help", id="select-help"),
        Binding("q,escape", "close", "Close", id="close-select"),
    ]

    DEFAULT_CSS = """
    SelectionScreen #select-summary { height: auto; max-height: 40%; padding: 0 1; }
    SelectionScreen #select-status { height: auto; padding: 0 1; }
    SelectionScreen #select-top { height: 1fr; min-height: 8; }
    SelectionScreen #select-table { width: 3fr; }
    SelectionScreen #select-plot { width: 2fr; min-width: 30; }
    SelectionScreen #scatter { height: 1fr; }
    SelectionScreen #select-axes { height: auto; }
    SelectionScreen #select-legend { height: auto; padding: 0 1; }
    """

    def __init__(self, selection: Selection, scenario: Scenario | None = None) -> None:
        super().__init__()
        self.selection = selection
        self.scenario = scenario or selection.scenario
        self.pool: Pool = selection.pool
        self.details = False
        self.p_index = 2
        self.objective = 0
        self.alpha: float | None = None
        self.axes = (0, 1)
        self.omega: tuple[float, ...] = tuple(selection.average_pick.weights)

    def compose(self) -> ComposeResult:
        yield Label("Ranking details: which model fits whom, and why", id="title")
        with VerticalScroll(id="select-summary"):
            yield Static("\n".join(plain_summary(self.selection)), id="select-picks")
        yield Static("", id="select-status", classes="muted")
        with Horizontal(id="select-top"):
            yield DataTable(
                id="select-table", cursor_type="row", zebra_stripes=True, header_height=2
            )
            with Vertical(id="select-plot"):
                yield PlotextPlot(id="scatter")
                yield Static("", id="select-axes", classes="muted")
        yield Static("", id="select-legend", classes="muted")
        yield Footer()

    def on_mount(self) -> None:
        self.refresh_ranking()

    @property
    def p(self) -> float:
        return P_VALUES[self.p_index]

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

    def _people_order(self) -> tuple[list[int], str, list[str]]:
        """The candidates as the people's own metrics order them: one person by expected
        value (with the chance best), a group by the largest regret (the consensus rule)."""
        s = self.selection
        if len(s.stakeholders) == 1:
            rec = s.recommendations[0]
            order = sorted(range(self.pool.n), key=lambda i: (-rec.expected[i], i))
            best = [
                "" if rec.p_best is None else f"{rec.p_best[i]:.0%}" for i in range(self.pool.n)
            ]
            return order, "chance\nbest", best
        psis = [np.asarray(r.expected) for r in s.recommendations]
        spread = [max(float(p.max() - p.min()), 1e-300) for p in psis]
        worst = [
            max(float(p.max() - p[i]) / w for p, w in zip(psis, spread, strict=True))
            for i in range(self.pool.n)
        ]
        order = sorted(range(self.pool.n), key=lambda i: (worst[i], i))
        return order, "largest\nregret", [f"{w:.0%}" for w in worst]

    def refresh_ranking(self) -> None:
        weights = self.current_weights()
        outcome = rank_pool(self.pool, weights=weights, p=self.p, top=self.pool.n)
        cols = self.pool.columns
        table = self.query_one("#select-table", DataTable)
        table.clear(columns=True)
        # The details take the room of the people's summary (d brings it back).
        self.query_one("#select-summary").display = not self.details
        headers = [self._header(j) for j in range(len(cols))]
        if self.details:
            table.add_columns("#", "model", *headers, "Pareto")
            for i, row in enumerate(outcome.ranking, 1):
                cells = [f"top-{max(1, round(100 * row.u[c]))}%" for c in cols]
                table.add_row(str(i), row.name, *cells, "yes" if row.pareto else "")
            self._status(weights, outcome.selected.name, outcome.explanation)
        else:
            order, label, extra = self._people_order()
            table.add_columns("#", "model", *headers, label)
            for rank, i in enumerate(order, 1):
                values = [self._cell(j, float(self.pool.values[i, j])) for j in range(len(cols))]
                table.add_row(str(rank), self.pool.names[i], *values, extra[i])
            self.query_one("#select-status", Static).update("")
        legend = table_legend(self.scenario) if self.scenario is not None else ""
        self.query_one("#select-legend", Static).update(
            "COPA's ranking: top-% is the share of candidates doing better on that aspect."
            if self.details
            else f"The candidates in the order the answers put them. {legend} "
            "d: COPA's ranking for the practitioner."
        )
        self._plot(self._pick(outcome.selected.index))

    def _pick(self, copa_pick: int) -> int:
        """The model marked on the plot: COPA's pick in the details, else the people's."""
        return copa_pick if self.details else self._people_order()[0][0]

    def _status(self, weights: tuple[float, ...], pick: str, explanation: str) -> None:
        ptxt = "∞" if math.isinf(self.p) else f"{self.p:g}"
        how = (
            f"α = {self.alpha:.2f} on {self._header(self.objective).replace(chr(10), ' ')}"
            if self.alpha is not None
            else "ω fitted to each person's metric, averaged"
        )
        self.query_one("#select-status", Static).update(
            f"COPA, p = {ptxt}; {how}; ω = [{', '.join(f'{w:.2f}' for w in weights)}] → "
            f"pick: {pick}. {omega_note(self.selection)}\n{explanation}"
        )

    def _values(self, j: int) -> tuple[np.ndarray, str]:
        """An aspect's values as the table shows them (a recall per 1,000) and its name."""
        name = self._header(j).replace("\n", " ")
        values = self.pool.values[:, j]
        if self.scenario is not None and j < self.scenario.n_classes:
            return values * 1000, f"{name} (per 1,000)"
        return values, name

    def _plot(self, pick: int) -> None:
        plot = self.query_one("#scatter", PlotextPlot)
        plt = plot.plt
        plt.clear_data()
        plt.clear_figure()
        i, j = self.axes
        (x, xname), (y, yname) = self._values(i), self._values(j)
        pareto = copa.pareto_mask(self.pool.minimisation()[:, [i, j]])
        plt.scatter(x.tolist(), y.tolist(), marker="dot")
        order = np.argsort(x[pareto])
        plt.plot(x[pareto][order].tolist(), y[pareto][order].tolist(), marker="dot")
        plt.scatter([float(x[pick])], [float(y[pick])], marker="X")
        plot.refresh()
        # The axes named in words beside the plot (plotext drops or misplaces its labels
        # when the plot is narrow).
        marked = "COPA's pick" if self.details else "the pick"
        self.query_one("#select-axes", Static).update(
            f"→ across: {xname}\n↑ up: {yname}\n• a model, X {marked}, line: the Pareto front"
        )

    def _to_details(self) -> None:
        self.details = True
        self.refresh_ranking()

    def action_details(self) -> None:
        self.details = not self.details
        self.refresh_ranking()

    def action_next_p(self) -> None:
        self.p_index = (self.p_index + 1) % len(P_VALUES)
        self._to_details()

    def action_next_objective(self) -> None:
        self.objective = (self.objective + 1) % len(self.pool.objectives)
        if self.alpha is None:
            self.alpha = 0.5
        self._to_details()

    def action_alpha(self, step: float) -> None:
        self.alpha = min(1.0, max(0.0, (0.5 if self.alpha is None else self.alpha) + step))
        self._to_details()

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
        self._plot(self._pick(self._current_pick()))

    def _current_pick(self) -> int:
        outcome = rank_pool(self.pool, weights=self.current_weights(), p=self.p, top=1)
        return outcome.selected.index

    def action_help(self) -> None:
        self.app.push_screen(SelectionHelpScreen())

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
