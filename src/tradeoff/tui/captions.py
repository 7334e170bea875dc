"""The words under a table the terminal may be too narrow to show whole: which of its
columns are in view, what their numbers mean, and which lie further right
(:func:`ranking_caption`, the ranking details' caption)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from textual import events
from textual.message import Message
from textual.widgets import DataTable

from tradeoff.ask.scenario import Scenario
from tradeoff.ask.words import table_legend
from tradeoff.text import and_list


def in_view(widths: Sequence[int], room: int) -> int:
    """How many of a table's columns (``widths``, each with its padding, in order) show
    whole in ``room`` characters: the others lie to the right, out of view.

    >>> in_view([4, 26, 7, 8, 8], 50), in_view([4, 26, 7], 50)
    (4, 3)
    """
    ends = itertools.accumulate(widths)
    return sum(1 for end in ends if end <= room)


def out_of_view_note(names: Sequence[str]) -> str:
    """The sentence that names the columns out of view to the right, and how to see them.

    >>> out_of_view_note(["BBH", "MATH", "chance best"])
    'Further right (Tab, then →): BBH, MATH and chance best.'
    """
    return f"Further right (Tab, then →): {and_list(names)}." if names else ""


def ranking_caption(
    table: DataTable[str],
    headers: Sequence[str],
    scenario: Scenario | None,
    noun: str,
    about: str | None,
) -> str:
    """The words under the ranking's table (its columns after the number and the name are
    ``headers``): what the numbers of the columns in view mean (``about``: what orders
    the list; ``None``: COPA's ranking is shown), and which columns lie further right (a
    narrow terminal shows the table's left part only)."""
    widths = [c.get_render_width(table) for c in table.columns.values()]
    room = table.scrollable_content_region.width + table.cell_padding  # a last pad
    seen = max(0, in_view(widths, room) - 2)  # after the number and the name
    out = list(headers[seen:])  # the last one is "chance best" or "Pareto", said whole
    names = [h.split("\n")[0] for h in out[:-1]] + [h.replace("\n", " ") for h in out[-1:]]
    hidden = out_of_view_note(names)
    if about is None:
        copa = f"COPA's ranking: top-x%: x% of {noun}s are better on it (none: top-1%)."
        return f"{copa} {hidden}" if hidden else copa
    aspects = len(scenario.weight_names) if scenario is not None else 0
    legend = "" if scenario is None else table_legend(scenario, range(min(seen, aspects)))
    said = " ".join(x for x in (legend, about, hidden) if x)
    practitioner = "d: COPA's ranking for the practitioner."
    return f"The {noun}s in the order the answers put them. {said} {practitioner}"


class SizedTable(DataTable[str]):
    """A table that tells its screen when its size changes (:class:`Resized`): the caption
    under it names the columns in view, and the table's width follows what lies beside it."""

    class Resized(Message):
        """The table's size changed."""

    def on_resize(self, event: events.Resize) -> None:
        self.post_message(self.Resized())
