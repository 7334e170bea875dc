"""Ranking details, the team's screen: which model fits whom and why, in the people's words
and units (each person's recommendation, how sure it is, what change of a weight would alter
it; the group's consensus), the candidates in that order, and a scatter plot of two aspects
with the Pareto front; for two classes, ``c`` shows the decision curves
(:mod:`tradeoff.tui.curves`). COPA's ω, p and top-% are one level down (``d``), with the
controls for p and for moving weight between aspects.

Opened from the stakeholder app's result screen, and on its own by ``tradeoff pick POOL
--session FILE ... --tui`` (:mod:`tradeoff.tui.select_app`). All ranking is done by
:mod:`tradeoff.choose.copa` / :mod:`tradeoff.choose.rank`, the words by
:mod:`tradeoff.choose.words`; the screen only shows them.
"""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.geometry import Size
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Label, Static

from tradeoff.ask.scenario import Scenario
from tradeoff.ask.shown import aspect_cell
from tradeoff.ask.words import aspect_header, option_noun
from tradeoff.choose import copa
from tradeoff.choose.informed import PeopleList, people_list
from tradeoff.choose.rank import rank_pool
from tradeoff.choose.selection import Selection
from tradeoff.choose.words import omega_note, order_words, plain_summary
from tradeoff.pareto import pareto_mask
from tradeoff.pool import Pool
from tradeoff.tui.captions import SizedTable, ranking_caption
from tradeoff.tui.cells import copa_rows
from tradeoff.tui.common import fit_names, name_room
from tradeoff.tui.curves import DecisionCurvesScreen, curve_view
from tradeoff.tui.dialogs import SelectionHelpScreen
from tradeoff.tui.scatter import LEGEND, MIN_ROWS, Points, ScatterPlot

P_VALUES = (1.0, 2.0, math.inf)
#: The lines under the plot that name its axes and its markers.
AXES_ROWS = 3
#: The fewest characters of a model's name the table shows.
NAME_ROOM = 24


class SelectionScreen(Screen[None]):
    """Which model fits whom and why; ``d`` shows COPA's ranking and its controls."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "details", "COPA details", id="copa-details"),
        Binding("x", "next_axes", "Plot axes", id="plot-axes"),
        Binding("c", "curves", "Decision curves", id="decision-curves"),
        Binding("p", "next_p", "Change p", id="change-p", show=False),
        Binding("o", "next_objective", "α aspect", id="alpha-objective", show=False),
        Binding("plus,equals_sign", "alpha(0.05)", "α +0.05", id="alpha-up", show=False),
        Binding("minus", "alpha(-0.05)", "α −0.05", id="alpha-down", show=False),
        Binding("w", "stakeholder_weights", "People's ω", id="stakeholder-omega", show=False),
        Binding("question_mark", "help", "Help", id="select-help"),
        Binding("q,escape", "close", "Close", id="close-select"),
    ]

    def __init__(self, selection: Selection, scenario: Scenario | None = None) -> None:
        super().__init__()
        self.alone = False  # the app's only screen (tradeoff pick --tui): closing ends it
        self.selection = selection
        self.scenario = scenario or selection.scenario
        self.pool: Pool = selection.pool
        self.details = False
        self.p_index = 2
        self.objective = 0
        self.alpha: float | None = None
        self.axes = (0, 1)
        self.omega: tuple[float, ...] = tuple(selection.average_pick.weights)
        self.axis_names = ("", "")  # the plot's (up, across), named as the table names them
        # the table's columns after the number and the name, the scenario, what orders it
        self._caption_of: tuple[list[str], Scenario | None, str | None] = ([], None, None)
        self._said: tuple[str, Size] = ("", Size(0, 0))  # the caption, for the table's size
        self.curves = curve_view(selection, self.scenario)
        self._noun = option_noun(self.scenario)

    def compose(self) -> ComposeResult:
        yield Label(f"Ranking details: which {self._noun} fits whom, and why", id="title")
        with VerticalScroll(id="select-summary"):
            yield Static("\n".join(plain_summary(self.selection)), id="select-picks")
        with VerticalScroll(id="select-status-box"):
            yield Static("", id="select-status", classes="muted")
        with Horizontal(id="select-top"):
            yield SizedTable(
                id="select-table", cursor_type="row", zebra_stripes=True, header_height=2
            )
            with Vertical(id="select-plot"):
                yield ScatterPlot(id="scatter")
                yield Static("", id="select-axes", classes="muted")
        yield Static("", id="select-legend", classes="muted")
        yield Footer()

    def on_mount(self) -> None:
        self.refresh_ranking()

    def on_resize(self) -> None:
        self.call_after_refresh(self.fit)

    def on_sized_table_resized(self) -> None:  # the caption names the columns in view
        self.call_after_refresh(self.fit)

    def _rows_needed(self) -> tuple[int, int]:
        """The rows the title, the legend and the footer take, and the screen's height the
        plot needs besides them (with three rows of the words above)."""
        parts = ("#title", "#select-legend", "Footer")
        used = sum(self.query_one(w).outer_size.height for w in parts)
        return used, used + 3 + MIN_ROWS + AXES_ROWS

    def fit(self) -> None:
        """Let the words above scroll in the rows the title, the table with its plot, the
        legend and the footer leave them (at most 40% of the screen); in a terminal too
        short for that, the plot gives way to a note saying so."""
        table = self.query_one("#select-table", DataTable)
        said = (ranking_caption(table, *self._caption_of, self._noun), table.size)
        if said != self._said:  # again once laid out with it: the table's width may change
            self._said = said
            self.query_one("#select-legend", Static).update(said[0])
            self.call_after_refresh(self.fit)
        used, needed = self._rows_needed()
        plot = self.query_one("#scatter", ScatterPlot)
        if (self.size.height >= needed) != plot.display:
            plot.display = self.size.height >= needed
            self._caption()
            self.call_after_refresh(self.fit)  # with the caption's new height
        top = (MIN_ROWS if plot.display else 0) + self.query_one("#select-axes").outer_size.height
        self.query_one("#select-top").styles.min_height = max(top, 5)
        rows = max(3, min(self.size.height - used - top, self.size.height * 2 // 5))
        for box in ("#select-summary", "#select-status-box"):
            self.query_one(box).styles.max_height = rows

    def _caption(self) -> None:
        """Under the plot, its axes and markers in words (plotext drops or misplaces its
        labels when the plot is narrow); or, when it has no room, how much it needs."""
        yname, xname = self.axis_names
        self.query_one("#select-axes", Static).update(
            f"↑ {yname}\n→ {xname}\n{LEGEND % self._noun}"
            if self.query_one("#scatter").display
            else f"The plot of {yname} against {xname} needs a terminal "
            f"{self._rows_needed()[1]} rows tall; this one has {self.size.height}."
        )

    @property
    def p(self) -> float:
        return P_VALUES[self.p_index]

    def _header(self, j: int) -> str:
        return self.pool.columns[j] if self.scenario is None else aspect_header(self.scenario, j)

    def _cell(self, j: int, value: float) -> str:
        return f"{value:.4g}" if self.scenario is None else aspect_cell(self.scenario, j, value)

    def current_weights(self) -> tuple[float, ...]:
        if self.alpha is None:
            return self.omega
        w = copa.alpha_weights(len(self.pool.objectives), [self.objective], [self.alpha])[0]
        return tuple(float(x) for x in w)

    def _people_order(self) -> PeopleList:
        """The candidates as the people's own metrics order them
        (:func:`~tradeoff.choose.informed.people_list`)."""
        s = self.selection
        return people_list(self.scenario, self.pool, s.stakeholders, s.recommendations)

    def refresh_ranking(self) -> None:
        weights = self.current_weights()
        outcome = rank_pool(self.pool, weights=weights, p=self.p, top=self.pool.n)
        cols = self.pool.columns
        table = self.query_one("#select-table", DataTable)
        table.clear(columns=True)
        # The details take the room of the people's summary (d brings it back).
        self.query_one("#select-summary").display = not self.details
        self.query_one("#select-status-box").display = self.details
        headers = [self._header(j) for j in range(len(cols))]
        if self.details:  # the score first, as pool rank shows it
            headers = ["score", *headers, "Pareto"]
            rows = copa_rows(outcome.ranking, cols)
            self._status(weights, outcome.selected.name, outcome.explanation)
        else:
            people = self._people_order()
            headers.append(people.label)
            rows = [
                (
                    people.names[i],
                    [
                        *(self._cell(j, float(self.pool.values[i, j])) for j in range(len(cols))),
                        people.extra[i],
                    ],
                )
                for i in people.order
            ]
            self.query_one("#select-status", Static).update("")
        # Long names give way to the numbers (never below NAME_ROOM characters).
        numbered = [[str(n), *cells] for n, (_, cells) in enumerate(rows, 1)]
        room = max(NAME_ROOM, name_room(table.size.width, ["#", *headers], numbered))
        table.add_columns("#", self._noun, *headers)
        shown = fit_names([name for name, _ in rows], room)
        for n, ((_, cells), name) in enumerate(zip(rows, shown, strict=True), 1):
            table.add_row(str(n), name, *cells)
        self._caption_of = (headers, self.scenario, None if self.details else people.words)
        self._plot(self._pick(outcome.selected.index))

    def _pick(self, copa_pick: int) -> int:
        """The model marked on the plot: COPA's pick in the details, else the people's."""
        return copa_pick if self.details else self._people_order().order[0]

    def _status(self, weights: tuple[float, ...], pick: str, explanation: str) -> None:
        ptxt = "∞" if math.isinf(self.p) else f"{self.p:g}"
        how = (
            f"α = {self.alpha:.2f} on {self._header(self.objective).replace(chr(10), ' ')}"
            if self.alpha is not None
            else "ω fitted to each person's metric, averaged"
        )
        # what fitted ω is, said only while ω is the fitted one (α sets it otherwise)
        note = f" {omega_note(self.selection)}" if self.alpha is None else ""
        self.query_one("#select-status", Static).update(
            f"COPA, p = {ptxt}; {how}; ω = [{', '.join(f'{w:.2f}' for w in weights)}] → "
            f"pick: {pick}.{note}\n{explanation}\n{order_words()}"  # as pool rank says it
        )

    def _values(self, j: int) -> tuple[np.ndarray, str, bool]:
        """An aspect's values as the table shows them (per 1,000), its name, whether whole."""
        name = self._header(j).replace("\n", " ")
        values = self.pool.values[:, j]
        if self.scenario is not None and j < self.scenario.n_classes:
            return values * 1000, f"{name} per 1,000", True
        return values, name, False

    def _plot(self, pick: int) -> None:
        i, j = self.axes
        (x, xname, x_whole), (y, yname, y_whole) = self._values(i), self._values(j)
        front = pareto_mask(self.pool.minimisation()[:, [i, j]])
        self.query_one("#scatter", ScatterPlot).show(Points(x, y, front, pick, x_whole, y_whole))
        self.axis_names = (yname, xname)
        self._caption()
        self.call_after_refresh(self.fit)  # the words may now take more or fewer rows

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

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return action != "curves" or self.curves is not None  # two classes only

    def action_curves(self) -> None:
        if self.curves is not None:
            self.app.push_screen(DecisionCurvesScreen(self.curves))

    def action_help(self) -> None:
        self.app.push_screen(SelectionHelpScreen(self.curves is not None, self._noun))

    def action_close(self) -> None:
        self.app.exit() if self.alone else self.app.pop_screen()
