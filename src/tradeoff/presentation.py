"""Words for people: classifier profiles, differences and trade-offs in the scenario's language.

The app, the reports and ``tradeoff session show`` all phrase things through this module, so
a clinician reads "finds 912 of 1,000 glaucoma cases" and "$0.21 per scan" everywhere.
Recall is shown as a natural frequency per 1,000 (docs/architecture.md: people see d_i / ζ_i).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tradeoff.queries import ClassifierProfile
from tradeoff.scenario import Scenario

PER = 1000


def per_thousand(recall: float) -> int:
    """Recall as a count out of 1,000 (rounded)."""
    return round(recall * PER)


def class_line(scenario: Scenario, i: int, recall: float) -> str:
    """E.g. "finds 912 of 1,000 glaucoma cases"."""
    c = scenario.classes[i]
    return f"{c.verb} {per_thousand(recall):,} of {PER:,} {c.label}"


def attribute_line(scenario: Scenario, j: int, value: float) -> str:
    """E.g. "$0.21 per scan"."""
    return scenario.attributes[j].render(value)


@dataclass(frozen=True)
class Line:
    """One line of an option card: its text and how it compares with the other option."""

    text: str
    differs: bool
    better: bool
    delta: str


def _attr_delta(scenario: Scenario, j: int, mine: float, other: float) -> tuple[bool, str]:
    spec = scenario.attributes[j]
    diff = mine - other
    better = diff < 0 if spec.kind == "cost" else diff > 0
    amount = spec.render(abs(diff))
    word = (
        ("less" if diff < 0 else "more")
        if spec.kind == "cost"
        else ("more" if diff > 0 else "less")
    )
    return better, f"{amount} {word}"


def difference_words(
    scenario: Scenario, mine: Sequence[float], other: Sequence[float]
) -> list[str]:
    """How one model differs from another, in the scenario's words, one phrase per aspect
    that differs as shown ("flags 12 more malignant lumps per 1,000", "0.1 ms to score one
    case more"). ``mine`` and ``other`` hold the recalls of the classes, then the attributes
    in their units.

    >>> from tradeoff.scenario import load_scenario
    >>> sc = load_scenario("scenarios/glaucoma-screening.toml").scenario
    >>> difference_words(sc, [0.912, 0.84, 0.21, 5], [0.9, 0.84, 0.20, 5])
    ['finds 12 more glaucoma cases per 1,000', '$0.01 per scan more']
    """
    k = scenario.n_classes
    words = []
    for i, c in enumerate(scenario.classes):
        d = per_thousand(mine[i]) - per_thousand(other[i])
        if d:
            more = "more" if d > 0 else "fewer"
            words.append(f"{c.verb} {abs(d):,} {more} {c.label} per {PER:,}")
    for j in range(len(scenario.attributes)):
        a, b = mine[k + j], other[k + j]
        spec = scenario.attributes[j]
        # Only differences the display can show (not one that rounds to nothing).
        if spec.render(abs(a - b)) != spec.render(0.0):
            words.append(_attr_delta(scenario, j, a, b)[1])
    return words


def card_lines(scenario: Scenario, mine: ClassifierProfile, other: ClassifierProfile) -> list[Line]:
    """The lines of one option's card, each marked where it differs from the other option."""
    lines = []
    for i, (r, o) in enumerate(zip(mine.recalls, other.recalls, strict=True)):
        a, b = per_thousand(r), per_thousand(o)
        delta = f"{abs(a - b):,} {'more' if a > b else 'fewer'}" if a != b else ""
        lines.append(Line(class_line(scenario, i, r), a != b, a > b, delta))
    for j, (v, o) in enumerate(zip(mine.attributes, other.attributes, strict=True)):
        differs = attribute_line(scenario, j, v) != attribute_line(scenario, j, o)
        better, delta = _attr_delta(scenario, j, v, o) if differs else (False, "")
        lines.append(Line(attribute_line(scenario, j, v), differs, better, delta))
    return lines


def tradeoff_sentences(
    scenario: Scenario, weights: Sequence[float], priors: Sequence[float]
) -> list[str]:
    """What the weights mean, in the scenario's words.

    For the first class against every other class and attribute: what 10 more cases per
    1,000 of one are worth in the other ("You would give up 10 detected glaucoma cases per
    1,000 to save $0.05 per scan"). ψ is linear, so a₁·ζ₁·Δrecall₁ = a_j·Δx_j gives the
    exchange rate.
    """
    k = scenario.n_classes
    out = []
    c0 = scenario.classes[0]
    value_per_case0 = weights[0] * priors[0] / PER  # ψ of one more class-1 case per 1,000
    if value_per_case0 <= 0:
        return [f"{c0.outcome.capitalize()} {c0.label} carry no weight for you."]
    for i in range(1, k):
        ci = scenario.classes[i]
        per_case = weights[i] * priors[i] / PER
        if per_case <= 0:
            out.append(f"{ci.outcome.capitalize()} {ci.label} carry no weight for you.")
            continue
        n0 = 10 * per_case / value_per_case0
        if n0 <= 10:
            out.append(
                f"10 more {ci.outcome} {ci.label} per 1,000 are worth as much to you as "
                f"{n0:.1f} more {c0.outcome} {c0.label} per 1,000."
            )
        else:
            ni = 10 * value_per_case0 / per_case
            out.append(
                f"10 more {c0.outcome} {c0.label} per 1,000 are worth as much to you as "
                f"{ni:.1f} more {ci.outcome} {ci.label} per 1,000."
            )
    for j, spec in enumerate(scenario.attributes):
        low, high = spec.range
        weight = weights[k + j]
        change = "save" if spec.kind == "cost" else "gain"
        if weight <= 0:
            out.append(f"{spec.label.capitalize()} does not matter to you.")
            continue
        # The natural units worth n class-1 cases; n grows until the amount is visible.
        n = 10
        amount = n * value_per_case0 / weight
        while amount < 0.02 * (high - low) and n < PER:
            n *= 10
            amount = n * value_per_case0 / weight
        if amount > high - low:
            out.append(
                f"Even the whole range of {spec.render(low)} to {spec.render(high)} is worth "
                f"less to you than {n:,} {c0.outcome} {c0.label} per 1,000."
            )
        elif amount < 0.02 * (high - low):
            out.append(
                f"{spec.label.capitalize()} matters more to you than {c0.outcome} {c0.label}: "
                f"{spec.render(0.02 * (high - low))} is worth more than all of them."
            )
        else:
            out.append(
                f"You would give up {n:,} {c0.outcome} {c0.label} per 1,000 to {change} "
                f"{spec.render(amount)}."
            )
    return out
