"""Weights per unit on the command line (``pool rank --metric``, ``simulate --truth``): what
they are, and a note on stderr when the numbers given look like swing shares instead.

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
- each is written to at most a tenth of a percent (60.9 or 0.609), as shares are printed.
  Weights per unit as session show prints them add up to 1 too, but with three significant
  digits: where the scenario's ranges differ enough for the reading to matter, some of them
  are small (0.000461, 0.0325) and off that grid;
- read per unit, they would give one aspect at least :data:`SHIFT` more of the weight over
  its whole range than its share of the numbers given (else the reading hardly matters).

The note says what was given, what is expected, and what to give if they are shares (each
share divided by its aspect's range); weights per unit that pass the test anyway (typed
rounded) are told to ignore it.
"""

from __future__ import annotations

from collections.abc import Sequence
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


def swing_share_note(
    given: Sequence[float], scenario: Scenario, priors: Sequence[float], option: str
) -> str | None:
    """The note to write when weights given per unit (``option``) look like swing shares;
    ``None`` when they do not, or are wrong in a way the command itself reports.

    ``priors``: the scenario's class priors ζ (a class's range is 0 to ζ of all cases).
    """
    spans = [*priors, *(a.range[1] - a.range[0] for a in scenario.attributes)]
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
    name = scenario.weight_names[moved]
    listed = ", ".join(f"{w:g}" for w in given)
    written = "in %" if percent else "as fractions"
    return (
        f"note: {option} takes weights per unit ({units_words(scenario)}), as the first "
        f"column of `tradeoff session show` lists them. {listed} look like swing shares "
        f"{written} (each aspect's share of the weight over its whole range, as pick and "
        f"session show print them): they add up to {total:g} and are written to a tenth of "
        "a percent; read per unit they give "
        f"{name} {swing[moved]:.0%} of the weight over its whole range though it was given "
        f"{shares[moved]:.1%}. If they are swing shares, give {option} {instead} instead "
        "(each share divided by its aspect's range, scaled to add up to 1); if they are "
        "weights per unit, ignore this note."
    )


def say_swing_shares(given: Sequence[float], scenario: Scenario, option: str) -> None:
    """Write :func:`swing_share_note` to stderr, if there is one."""
    from tradeoff.ask.population import scenario_priors

    try:
        priors = scenario_priors(scenario)
    except (InputError, OSError, ValueError):  # the command says what is wrong with it
        return
    note = swing_share_note(given, scenario, priors, option)
    if note is not None:
        error(note)
