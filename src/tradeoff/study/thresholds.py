"""Each participant's threshold probability in the study export's participants table.

For a two-class scenario a participant's answers imply the threshold probability at which
acting and not acting are worth the same to them (:mod:`tradeoff.curves`), with its 90%
credible interval: :func:`add_thresholds` writes it into the participants table's rows as
``threshold``, ``threshold_low`` and ``threshold_high`` (:data:`THRESHOLD_COLUMNS`), from
the same stakeholder (posterior draws and their weights) the row's pick comes from, as
:func:`tradeoff.choose.decision_curves.stakeholder_threshold` reads it for ``study report``.
The cells stay empty for a scenario of more or fewer than two classes (options described
by their aspects alone decide no class) and for a participant with no answer.
:func:`median_threshold` is the group's median, for the export's summary.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from tradeoff.study.table_columns import PARTICIPANT_COLUMNS, Column

if TYPE_CHECKING:
    from tradeoff.ask.scenario import Scenario
    from tradeoff.choose.stakeholder import Stakeholder

__all__ = [
    "THRESHOLD_COLUMNS",
    "add_thresholds",
    "median_threshold",
    "participant_columns",
]

Row = dict[str, Any]

_EMPTY = (
    " Empty when the scenario does not decide between two classes, or the participant "
    "has not answered."
)

#: The threshold's columns of the participants table.
THRESHOLD_COLUMNS = (
    Column(
        "threshold",
        "probability",
        "The threshold probability the participant's answers imply, from their posterior "
        "mean weights: the chance of the scenario's first class at which acting on a case "
        "and not acting are worth the same to them (a₀/(a₀ + a₁) of their weights on the "
        "two classes; net benefit at this threshold ranks models as their weights do), as "
        "'tradeoff study report' says it." + _EMPTY,
        "float",
    ),
    Column(
        "threshold_low",
        "probability",
        "The lower end of the threshold's 90% credible interval (the 5% weighted quantile "
        "of the threshold over the posterior draws final_pick was chosen from)." + _EMPTY,
        "float",
    ),
    Column(
        "threshold_high",
        "probability",
        "The upper end of the threshold's 90% credible interval (the 95% weighted "
        "quantile over the same draws)." + _EMPTY,
        "float",
    ),
)


def participant_columns() -> tuple[Column, ...]:
    """The participants table's columns: :data:`~tradeoff.study.table_columns.
    PARTICIPANT_COLUMNS` with :data:`THRESHOLD_COLUMNS` right after ``p_best``.

    >>> [c.name for c in participant_columns()][6:11]
    ['final_pick', 'p_best', 'threshold', 'threshold_low', 'threshold_high']
    """
    names = [c.name for c in PARTICIPANT_COLUMNS]
    at = names.index("p_best") + 1
    return PARTICIPANT_COLUMNS[:at] + THRESHOLD_COLUMNS + PARTICIPANT_COLUMNS[at:]


def add_thresholds(
    scenario: Scenario, people: Sequence[Row], stakeholders: Mapping[str, Stakeholder]
) -> None:
    """Write every row's threshold cells: the threshold of the participant's stakeholder
    (``stakeholders`` by participant id, those with answers) for a two-class scenario,
    else missing (``None``)."""
    from tradeoff.choose.decision_curves import stakeholder_threshold

    for row in people:
        s = stakeholders.get(row["participant"])
        t = None if s is None else stakeholder_threshold(scenario, s)
        row["threshold"] = None if t is None else t.value
        row["threshold_low"] = None if t is None else t.low
        row["threshold_high"] = None if t is None else t.high


def median_threshold(people: Sequence[Row]) -> float | None:
    """The median of the rows' thresholds (``None`` when none has one).

    >>> median_threshold([{"threshold": 0.1}, {"threshold": None}, {"threshold": 0.3}])
    0.2
    """
    values = [r["threshold"] for r in people if r.get("threshold") is not None]
    return float(np.median(values)) if values else None
