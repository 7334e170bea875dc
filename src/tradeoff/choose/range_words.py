"""What a person reads when a model's numbers lie outside the ranges the scenario's
trade-off questions ask about (a class's ``recall_range``, an attribute's ``range``): a
linear metric carries their weights beyond what they were asked, and every face that names
such a pick says so with :func:`outside_range_words` (``tradeoff pick``, the report, the
app's result and pick screens, ``tradeoff session show`` and the study page's review; its
strings are marked for the page's catalogue, :data:`tradeoff.web.i18n.CORE_SOURCES`).
"""

from __future__ import annotations

from collections.abc import Sequence

from tradeoff.ask.scenario import Scenario
from tradeoff.ask.shown import (
    PER,
    attribute_line,
    class_line,
    per_thousand,
    said_amount,
    shown_number,
)
from tradeoff.text import ENGLISH, Words

__all__ = ["outside_range_words"]


def outside_range_words(
    scenario: Scenario, values: Sequence[float], name: str, words: Words = ENGLISH
) -> str:
    """One sentence when a model's numbers (``values``: the recalls of the classes, then the
    attributes in their units, as a pool's row holds them) lie outside the ranges the
    scenario's trade-off questions ask about, compared as they read on the screen; "" when
    every one lies inside, and when ``values`` do not hold one number per aspect of
    ``scenario`` (nothing to compare).

    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/breast-cancer-triage.toml").scenario
    >>> print(outside_range_words(sc, [0.93, 0.986, 8.2, 1377.4], "extra-trees-200"))
    ... # doctest: +NORMALIZE_WHITESPACE
    extra-trees-200 lies outside the ranges the scenario's questions ask about: 1377 KB of
    memory (its range: 1 KB to 750 KB). Where it ranks rests on the weights carried beyond
    what was asked.
    >>> outside_range_words(sc, [0.93, 0.986, 8.2, 750.4], "m")  # reads 750 KB: inside
    ''
    """
    _ = words.gettext
    k = scenario.n_classes
    if len(values) != k + len(scenario.attributes):
        return ""
    out = []
    for i, c in enumerate(scenario.classes):
        lo, hi, n = (per_thousand(x) for x in (*c.recall_range, values[i]))
        if not lo <= n <= hi:
            out.append(
                _("%(line)s (its range: %(low)s to %(high)s of %(per)s)")
                % {
                    "line": class_line(scenario, i, values[i], words),
                    "low": words.count(lo),
                    "high": words.count(hi),
                    "per": words.count(PER),
                }
            )
    for j, a in enumerate(scenario.attributes):
        low, high = a.range
        if not shown_number(a, low) <= shown_number(a, values[k + j]) <= shown_number(a, high):
            out.append(
                _("%(line)s (its range: %(low)s to %(high)s)")
                % {
                    "line": attribute_line(scenario, j, values[k + j], words),
                    "low": said_amount(a, low, words),
                    "high": said_amount(a, high, words),
                }
            )
    if not out:
        return ""
    return _(
        "%(name)s lies outside the ranges the scenario's questions ask about: %(items)s. "
        "Where it ranks rests on the weights carried beyond what was asked."
    ) % {"name": name, "items": "; ".join(out)}
