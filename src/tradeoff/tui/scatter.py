"""The selection screen's scatter plot of two aspects: every model, the Pareto front and
the pick, each with a marker of its own, on axes with round ticks that increase upwards
and to the right, labelled as the table shows the numbers (a recall per 1,000 as a whole
number, 960, never 958.0 or 811.8).

Ticks and limits are chosen for the plot's size each time it is drawn; a plot too small to
read says how much room it needs instead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from rich.text import Text
from textual.app import RenderResult
from textual_plotext import PlotextPlot

#: The markers, and the legend that names them.
MODEL, FRONT, PICK, FRONT_LINE = "•", "◆", "X", "braille"
#: The smallest plot worth reading: rows (the frame and the tick labels take three of
#: them) and columns (the y labels take up to six).
MIN_ROWS, MIN_COLUMNS = 10, 28


#: The markers in words, short enough for the plot's narrowest column (``%s``: the pool's
#: noun for one option, "model" or "option").
LEGEND = f"{MODEL} %s  {FRONT} Pareto front  {PICK} pick"


def nice_ticks(low: float, high: float, count: int, whole: bool = False) -> list[float]:
    """Round, evenly spaced ticks from at or below ``low`` to at or above ``high``.

    Parameters
    ----------
    low, high
        The range the ticks must cover.
    count
        About how many ticks there is room for (at least 2).
    whole
        Whether the values are whole numbers (a count per 1,000): the step is then a
        whole number too.

    Returns
    -------
    list of float
        Increasing ticks, a step of 1, 2, 2.5 or 5 times a power of ten apart; the first
        and the last are the axis's limits.

    Examples
    --------
    >>> nice_ticks(811.8, 1000.0, 4, whole=True)
    [800.0, 850.0, 900.0, 950.0, 1000.0]
    >>> nice_ticks(0.08, 2.2, 3)
    [0.0, 1.0, 2.0, 3.0]
    >>> nice_ticks(998.0, 1000.0, 5, whole=True)
    [998.0, 999.0, 1000.0]
    >>> nice_ticks(5.0, 5.0, 3, whole=True)
    [4.0, 5.0, 6.0]
    """
    if not high > low:
        pad = 1.0 if whole or low == 0 else abs(low) / 10
        low, high = low - pad, high + pad
    power = math.floor(math.log10((high - low) / max(1, count - 1)))
    steps = [m * 10.0**e for e in range(power - 1, power + 3) for m in (1, 2, 2.5, 5)]
    if whole:
        steps = [s for s in steps if s >= 1 and s == round(s)]

    def span(step: float) -> tuple[int, int]:
        return math.floor(low / step + 1e-9), math.ceil(high / step - 1e-9)

    # The finest step whose ticks are no more than one over the room.
    step = next((s for s in steps if span(s)[1] - span(s)[0] <= max(1, count)), steps[-1])
    first, last = span(step)
    return [round(k * step, 10) + 0.0 for k in range(first, last + 1)]


def tick_labels(ticks: list[float]) -> list[str]:
    """Ticks as the table shows numbers: the decimals their step needs, thousands
    separated.

    >>> tick_labels([800.0, 900.0, 1000.0]), tick_labels([0.0, 0.25, 0.5])
    (['800', '900', '1,000'], ['0.00', '0.25', '0.50'])
    """
    step = ticks[1] - ticks[0] if len(ticks) > 1 else 1.0
    decimals = len(f"{step:.6f}".rstrip("0").partition(".")[2])
    return [f"{t:,.{decimals}f}" for t in ticks]


@dataclass(frozen=True)
class Points:
    """What the plot shows: every model's two values, which of them are on the Pareto
    front, the pick, and whether each axis holds whole numbers."""

    x: np.ndarray
    y: np.ndarray
    front: np.ndarray
    pick: int
    x_whole: bool = False
    y_whole: bool = False


class SizedPlot(PlotextPlot):
    """A plot that says the room it needs when it has less (at least
    :data:`MIN_COLUMNS` × :data:`MIN_ROWS`), and otherwise draws itself (``_draw``) for the
    size it has at each render."""

    @property
    def fits(self) -> bool:
        """Whether the plot has room enough to be read."""
        return self.size.height >= MIN_ROWS and self.size.width >= MIN_COLUMNS

    def render(self) -> RenderResult:
        if not self.fits:
            return Text(
                f"The plot needs {MIN_COLUMNS}×{MIN_ROWS} characters; it has "
                f"{self.size.width}×{self.size.height}. Make the terminal larger to see it.",
                style="italic",
            )
        self._draw()
        return super().render()

    def _draw(self) -> None:
        raise NotImplementedError


class ScatterPlot(SizedPlot):
    """Models as ``•``, the Pareto front as ``◆`` joined by a fine line, the pick as
    ``X``; drawn anew for its size, or a note when it is too small to read."""

    DEFAULT_CSS = f"ScatterPlot {{ height: 1fr; min-height: {MIN_ROWS}; }}"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.points: Points | None = None

    def show(self, points: Points) -> None:
        """Plot ``points`` (drawn at the next refresh, for the size the plot has then)."""
        self.points = points
        self.refresh()

    def _draw(self) -> None:
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        if self.points is None:
            return
        p = self.points
        rows, columns = self.size.height - 3, self.size.width - 8
        xs = nice_ticks(float(p.x.min()), float(p.x.max()), max(2, columns // 9), p.x_whole)
        ys = nice_ticks(float(p.y.min()), float(p.y.max()), max(2, rows // 3 + 1), p.y_whole)
        order = np.argsort(p.x[p.front], kind="stable")
        plt.plot(p.x[p.front][order].tolist(), p.y[p.front][order].tolist(), marker=FRONT_LINE)
        rest = ~p.front
        plt.scatter(p.x[rest].tolist(), p.y[rest].tolist(), marker=MODEL)
        plt.scatter(p.x[p.front].tolist(), p.y[p.front].tolist(), marker=FRONT)
        plt.scatter([float(p.x[p.pick])], [float(p.y[p.pick])], marker=PICK)
        plt.xlim(xs[0], xs[-1])
        plt.ylim(ys[0], ys[-1])
        plt.xticks(xs, tick_labels(xs))
        plt.yticks(ys, tick_labels(ys))
