"""How each participant came in, in the export's participants table, from the study's
``entries.jsonl`` (:mod:`tradeoff.study.entries`) as well as their sessions.

For a study recruiting through a panel the table has the quota group each panel entrant
was let in under (``quota_group``, with quotas) and the value of each parameter of the link
the study keeps (``link_<NAME>``: ``link_STUDY_ID``, ``link_SESSION_ID``, ``link_sex``),
as their latest entry recorded them (:func:`entry_columns`), so the answers can be broken
down by quota group and matched to the panel's own sessions; they are empty for everyone
who came in otherwise. ``entry_via`` of a participant without a session comes from there
too (:func:`add_entry_cells`): ``panel`` for a panel entrant who has not consented,
``code`` for one who declined with their access code.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tradeoff.study.entries import EntryState
from tradeoff.study.panel import Panel
from tradeoff.study.table_columns import Column

__all__ = ["QUOTA_COLUMN", "add_entry_cells", "entry_columns", "link_column", "with_entry_columns"]

Row = dict[str, Any]

#: The quota group's column.
QUOTA_COLUMN = "quota_group"


def link_column(name: str) -> str:
    """The column of the link's kept parameter ``name`` (a parameter's name is letters,
    digits and ``_``: :data:`tradeoff.study.panel.PARAM_NAME`).

    >>> link_column("STUDY_ID")
    'link_STUDY_ID'
    """
    return f"link_{name}"


def entry_columns(panel: Panel | None) -> tuple[Column, ...]:
    """The columns of a panel's entries: the quota group (with quotas), then each kept
    parameter in the study's order; none without a panel.

    >>> p = Panel("PROLIFIC_PID", ("STUDY_ID", "sex"), b"k" * 16, cap=4, quota_field="sex",
    ...           quotas={"female": 2, "male": 2})
    >>> [c.name for c in entry_columns(p)]
    ['quota_group', 'link_STUDY_ID', 'link_sex']
    """
    if panel is None:
        return ()
    out: list[Column] = []
    if panel.quota_field is not None:
        groups = ", ".join(repr(g) for g in panel.quotas)
        out.append(
            Column(
                QUOTA_COLUMN,
                "category",
                "The quota group they were let in under by the panel's link: the value of "
                f"its {panel.quota_field} parameter ({groups}), as entries.jsonl recorded it "
                "(their latest entry's, for one who came back after declining); empty for a "
                "participant who came in otherwise (an access code, the pilot link).",
                "str",
            )
        )
    for name in panel.keep_params:
        out.append(
            Column(
                link_column(name),
                "text",
                f"The value of the {name} parameter of the panel's link they came in by, as "
                "entries.jsonl recorded it (their latest entry's, for one who came back "
                "after declining), to match them to the panel's records; empty when the link "
                "did not carry it, and for a participant who came in otherwise (an access "
                "code, the pilot link).",
                "str",
            )
        )
    return tuple(out)


def with_entry_columns(columns: Sequence[Column], panel: Panel | None) -> tuple[Column, ...]:
    """``columns`` (the participants table's) with :func:`entry_columns` right after
    ``entry_via``."""
    names = [c.name for c in columns]
    at = names.index("entry_via") + 1 if "entry_via" in names else len(names)
    return (*columns[:at], *entry_columns(panel), *columns[at:])


def add_entry_cells(people: Sequence[Row], panel: Panel | None, state: EntryState) -> None:
    """Write into each participants row (:mod:`tradeoff.study.export_people`) its panel
    entry's quota group and kept parameters, and, for a row without a session (nothing
    else tells), how the participant came in: ``panel`` (``open`` for the pilot link, as
    the session's entry would say it) or ``code`` for one who declined with their access
    code; an erased participant's row keeps nothing."""
    keep = () if panel is None else panel.keep_params
    for row in people:
        pid = row["participant"]
        entered = None if row["state"] == "erased" else state.people.get(pid)
        link = entered if entered is not None and not entered.pilot else None
        row[QUOTA_COLUMN] = None if link is None else link.group
        for name in keep:
            row[link_column(name)] = None if link is None else link.params.get(name)
        if row["sessions"] or row["state"] == "erased":
            continue
        if entered is not None:
            row["entry_via"] = "panel" if entered.panel_id is not None else "open"
            row["pilot"] = entered.pilot
        elif pid in state.code_declined:
            row["entry_via"] = "code"
