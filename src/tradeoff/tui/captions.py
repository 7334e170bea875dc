"""The words under a table the terminal may be too narrow to show whole: which of its
columns are in view, what their numbers mean, and which lie further left or right
(:func:`ranking_caption`, the ranking details' caption)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from textual import events
from textual.message import Message
from textual.widgets import DataTable

from tradeoff.ask.scenario import Scenario
from tradeoff.ask.words import table_legend
from tradeoff.choose.words import top_words
from tradeoff.text import and_list
from tradeoff.tui.cells import COPA_ORDER


def out_of_view(
    widths: Sequence[int], room: int, scroll: int, fixed: int = 0
) -> tuple[list[int], list[int]]:
    """Which of a table's columns (``widths``, each with its padding) lie out of view to
    the left and to the right, when it shows ``room`` characters scrolled ``scroll`` to the
    right, its first ``fixed`` columns staying in place.

    >>> out_of_view([4, 26, 7, 8, 8], 50, 0, 2), out_of_view([4, 26, 7, 8, 8], 50, 8, 2)
    (([], [4]), ([2, 3], []))
    """
    starts = [0, *itertools.accumulate(widths)]
    left = scroll + sum(widths[:fixed])  # where the scrolled part starts
    right = scroll + room
    hidden = range(fixed, len(widths))
    return (
        [j for j in hidden if starts[j] < left],
        [j for j in hidden if starts[j] >= left and starts[j + 1] > right],
    )


def out_of_view_note(left: Sequence[str], right: Sequence[str]) -> str:
    """The sentences that name the columns out of view, and how to see them.

    >>> out_of_view_note([], ["BBH", "MATH", "chance best"])
    'Further right (Tab, then →): BBH, MATH and chance best.'
    >>> out_of_view_note(["CO2"], [])
    'Further left (←): CO2.'
    """
    notes = (
        f"Further left (←): {and_list(left)}." if left else "",
        f"Further right (Tab, then →): {and_list(right)}." if right else "",
    )
    return " ".join(n for n in notes if n)


def ranking_caption(
    table: DataTable[str],
    headers: Sequence[str],
    scenario: Scenario | None,
    about: str | None,
    noun: str,
) -> str:
    """The words under the ranking's table (its columns after the number and the name are
    ``headers``; those two stay in place when it scrolls sideways): what the numbers of
    the columns in view mean (``about``: what orders the list; ``None``: COPA's ranking is
    shown), and which columns lie further left or right (a narrow terminal shows part of
    the table only)."""
    widths = [c.get_render_width(table) for c in table.columns.values()]
    room = table.scrollable_content_region.width + table.cell_padding  # a last pad
    left, right = out_of_view(widths, room, round(table.scroll_x), table.fixed_columns)
    out = {j - 2 for j in left + right}  # after the number and the name
    lead = 1 if about is None else 0  # COPA's score comes before the aspects
    classes = scenario.n_classes if scenario is not None else 0
    whole = {len(headers) - 1, *range(lead, lead + classes)}

    def name(j: int) -> str:  # "chance best", "malignant flagged"; "latency" (not its unit)
        return headers[j].replace("\n", " ") if j in whole else headers[j].split("\n")[0]

    hidden = out_of_view_note([name(j - 2) for j in left], [name(j - 2) for j in right])
    if about is None:
        copa = f"COPA's ranking. {COPA_ORDER} {top_words(noun)}"
        return f"{copa} {hidden}" if hidden else copa
    aspects = len(scenario.weight_names) if scenario is not None else 0
    shown = [j for j in range(aspects) if j not in out]
    legend = "" if scenario is None or not shown else table_legend(scenario, shown)
    legend = legend[:1].upper() + legend[1:]  # "Latency in ms." when no counts are in view
    said = " ".join(x for x in (legend, about, hidden) if x)
    practitioner = "d: COPA's ranking for the practitioner."
    return f"The {noun}s in the order the answers put them. {said} {practitioner}"


class SizedTable(DataTable[str]):
    """A table that tells its screen when its size or its sideways scroll changes
    (:class:`Resized`): the caption under it names the columns in view, and the table's
    width follows what lies beside it. Its first two columns (the number and the name)
    stay in place when it scrolls sideways."""

    class Resized(Message):
        """The table's size, or how far it is scrolled sideways, changed."""

    def on_mount(self) -> None:
        self.fixed_columns = 2

    def on_resize(self, event: events.Resize) -> None:
        self.post_message(self.Resized())

    def watch_scroll_x(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_x(old_value, new_value)
        if round(old_value) != round(new_value):
            self.post_message(self.Resized())
