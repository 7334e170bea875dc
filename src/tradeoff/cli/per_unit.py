"""Weights per unit on the command line (``pool rank --metric``, ``simulate --truth`` and
``--truths``): what they are, and a note on stderr when the numbers given look like swing
shares instead.

A weight per unit is what one unit of an aspect is worth: a class's per unit of the share
of all cases it gets right (recall × prevalence), an attribute's per one of its unit (per
ms, per KB); ``tradeoff session show`` lists them in its first column. A swing share is an
aspect's share of the weight over its whole range (what pick, session show and the review
print in %). Read per unit, swing shares move the weight to the aspects of wide ranges: 2 %
given to memory, read as a weight per KB over 1 KB to 750 KB, becomes most of the person's
weight.

The test (:func:`swing_share_note`), all three must hold:

- the numbers add up to about 100 or about 1, as swing shares do (within the rounding of
  printed shares: half a point a number in %, half a hundredth as fractions);
- each has no digits below a tenth of a percent (60.9 or 0.609), as shares are printed.
  Weights per unit as session show prints them add up to 1 too, but with three significant
  digits: where the scenario's ranges differ enough for the reading to matter, some of them
  are small (0.000461, 0.0325) and off that grid;
- read per unit, they would give one aspect at least :data:`SHIFT` more of the weight over
  its whole range than its share of the numbers given (else the reading hardly matters).

The note says what was given, what is expected, and what to give if they are shares (each
share divided by its aspect's range); weights per unit that pass the test anyway (typed
rounded) are told to ignore it.

A scenario whose weights are measured per natural unit (``precision = "natural"`` in its
``[elicitation]``: the paper scenarios, whose truths are the papers' weights per unit, as
paper 004's Table 1 gives ``0.10,0.05,0.05,0.80``) gets no note: there weights per unit
are what is meant, and round ones are what a person types from the paper.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tradeoff.cli.common import error
from tradeoff.errors import InputError

if TYPE_CHECKING:
    from tradeoff.ask.scenario import Scenario

WHAT = (
    "weights per unit, W1,W2,... in the scenario's order: a class's per unit of recall × "
    "prevalence, an attribute's per one of its unit (e.g. per ms), as the first column of "
    "`tradeoff session show` lists them (not the swing shares in %% that pick prints)"
)
"""What ``--metric`` and ``--truth`` take, for their help (``%%``: argparse's percent sign)."""

SHIFT = 0.25
"""How much more of the weight over its range (a share) reading the numbers per unit must
give one aspect than its share of the numbers, for the numbers to look like swing shares."""


def units_words(scenario: Scenario) -> str:
    """What one unit of each of a scenario's aspects is, in words."""
    parts = []
    if scenario.classes:
        names = ", ".join(c.name for c in scenario.classes)
        parts.append(f"{names} per unit of recall × prevalence")
    parts += [f"{a.name} per {a.unit or 'one of its unit'}" for a in scenario.attributes]
    return "; ".join(parts)


@dataclass(frozen=True)
class Reading:
    """Numbers given per unit that look like swing shares (:func:`swing_reading`)."""

    given: tuple[float, ...]
    """The numbers as given."""
    percent: bool
    """Whether they add up to about 100 (else about 1)."""
    moved: int
    """The aspect reading them per unit gives most more of the weight than it was given."""
    swing: float
    """That aspect's share of the weight over its whole range, read per unit."""
    share: float
    """Its share of the numbers given."""
    instead: str
    """The weights per unit to give if they are swing shares, comma-separated."""

    def listed(self) -> str:
        """The numbers given, as a person typed them: "60.9, 36.8, 1.5, 0.8"."""
        return ", ".join(f"{w:g}" for w in self.given)

    def written(self) -> str:
        return "in %" if self.percent else "as fractions"


def swing_reading(given: Sequence[float], spans: Sequence[float]) -> Reading | None:
    """The test of the module's docstring: a :class:`Reading` when the numbers ``given``
    look like swing shares over aspects of ranges ``spans``; ``None`` when they do not, or
    are wrong in a way the command itself reports."""
    n = len(spans)
    if n < 2 or len(given) != n or not all(w >= 0 for w in given) or min(spans) <= 0:
        return None
    total = sum(given)
    percent = abs(total - 100) <= 0.5 * n
    if not (percent or abs(total - 1) <= 0.005 * n):
        return None
    step = 10 if percent else 1000  # a tenth of a percent, as shares are printed
    if not all(abs(w * step - round(w * step)) <= 1e-6 * max(1.0, w * step) for w in given):
        return None  # a weight per unit as session show prints it (0.000461): not a share
    shares = [w / total for w in given]
    raw = [w * s for w, s in zip(shares, spans, strict=True)]
    swing = [r / sum(raw) for r in raw]
    moved = max(range(n), key=lambda i: swing[i] - shares[i])
    if swing[moved] - shares[moved] < SHIFT:
        return None
    per = [w / s for w, s in zip(shares, spans, strict=True)]
    instead = ",".join(f"{p / sum(per):.3g}" for p in per)
    return Reading(tuple(given), percent, moved, swing[moved], shares[moved], instead)


def per_unit_scenario(scenario: Scenario) -> bool:
    """Whether the scenario's weights are measured per natural unit (``precision =
    "natural"``, as the paper scenarios): numbers given for it are not noted."""
    return scenario.elicitation.precision == "natural"


def _spans(scenario: Scenario, priors: Sequence[float]) -> list[float]:
    """Each aspect's range: a class's is 0 to its prior ζ of all cases."""
    return [*priors, *(a.range[1] - a.range[0] for a in scenario.attributes)]


def swing_share_note(
    given: Sequence[float], scenario: Scenario, priors: Sequence[float], option: str
) -> str | None:
    """The note to write when weights given per unit (``option``) look like swing shares;
    ``None`` when they do not, or are wrong in a way the command itself reports.

    ``priors``: the scenario's class priors ζ (a class's range is 0 to ζ of all cases).
    """
    if per_unit_scenario(scenario):
        return None
    r = swing_reading(given, _spans(scenario, priors))
    if r is None:
        return None
    return (
        f"note: {option} takes weights per unit ({units_words(scenario)}), as the first "
        f"column of `tradeoff session show` lists them. {r.listed()} look like swing shares "
        f"{r.written()} (each aspect's share of the weight over its whole range, as pick and "
        f"session show print them): they add up to {sum(given):g} and are written to a tenth "
        "of a percent; read per unit they give "
        f"{scenario.weight_names[r.moved]} {r.swing:.0%} of the weight over its whole range "
        f"though it was given {r.share:.1%}. If they are swing shares, give {option} "
        f"{r.instead} instead (each share divided by its aspect's range, scaled to add up to "
        "1); if they are weights per unit, ignore this note."
    )


def swing_share_rows_note(
    rows: Sequence[Sequence[float]],
    scenario: Scenario,
    priors: Sequence[float],
    option: str,
    source: str,
) -> str | None:
    """:func:`swing_share_note` for a file (``source``) of weights per unit, one person a
    row (``simulate --truths``): one note for all the rows that look like swing shares,
    with how many they are and the first of them; ``None`` when none does."""
    if per_unit_scenario(scenario):
        return None
    spans = _spans(scenario, priors)
    found = [(i, r) for i, row in enumerate(rows) if (r := swing_reading(row, spans)) is not None]
    if not found:
        return None
    first, r = found[0]
    whose = (
        "the one person's weights"
        if len(rows) == 1
        else f"the weights of all {len(rows):,} people"
        if len(found) == len(rows)
        else f"the weights of {len(found):,} of the {len(rows):,} people"
    )
    return (
        f"note: {option} takes weights per unit ({units_words(scenario)}), one person a "
        "row, as the first column of `tradeoff session show` lists them. In "
        f"{source} {whose} look like swing shares (each aspect's share of the weight over "
        "its whole range, as pick and session show print them): they add up to about 100 "
        "or 1 and have no digits below a tenth of a percent. Read per unit, those of person "
        f"{first + 1:,} (row {first + 1:,} of weights, after any header: {r.listed()}, "
        f"{r.written()}) give {scenario.weight_names[r.moved]} {r.swing:.0%} of the weight "
        f"over its whole range though it was given {r.share:.1%}. If they are swing shares, "
        "give each person's shares divided by their aspect's range, scaled to add up to 1 "
        f"(person {first + 1:,}: {r.instead}); if they are weights per unit, ignore this note."
    )


def _priors(scenario: Scenario) -> list[float] | None:
    from tradeoff.ask.population import scenario_priors

    try:
        return list(scenario_priors(scenario))
    except (InputError, OSError, ValueError):  # the command says what is wrong with it
        return None


def say_swing_shares(given: Sequence[float], scenario: Scenario, option: str) -> None:
    """Write :func:`swing_share_note` to stderr, if there is one."""
    priors = _priors(scenario)
    note = None if priors is None else swing_share_note(given, scenario, priors, option)
    if note is not None:
        error(note)


def say_swing_share_rows(
    rows: Sequence[Sequence[float]], scenario: Scenario, option: str, source: str
) -> None:
    """Write :func:`swing_share_rows_note` to stderr, if there is one."""
    priors = _priors(scenario)
    note = None if priors is None else swing_share_rows_note(rows, scenario, priors, option, source)
    if note is not None:
        error(note)
