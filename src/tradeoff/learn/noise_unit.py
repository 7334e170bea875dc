"""The unit the answer model's temperatures T and bands δ are counted in.

The grids of :mod:`~tradeoff.learn.likelihood` (T up to 0.05, δ up to its top value, with
the prior's scales) are in the metric's natural units, and for a classifier those are a
recall's: T = 0.01 blurs differences of about one point of accuracy. A scenario without
classes has no such unit: its natural units are its aspects' own (guilders, minutes), so
the same grid would mean a blur of a hundredth of a guilder, or of a minute, whatever the
aspects measure, and a person's errors on close options could only be read as lapses
(errors as likely on far options as on close ones).

There the grids are counted in the typical range of an aspect instead: the geometric mean
of the aspects' ranges (each range counts alike on a log scale: one aspect of n given in
units ten times smaller moves it by the n-th root of ten, not by ten), to three significant
digits, worked out in decimal arithmetic so that every machine finds the same digits. On
2,929 recorded choices of train trips (``benchmarks/real_choices.py``) this brings the
held-out predictions' calibration to that of a perfectly calibrated model
(``benchmarks/results/real-choices.md``). A session records the unit it was asked with
(:attr:`~tradeoff.record.records.HeaderRecord.noise_unit`), so one recorded before replays
with the grids it had.
"""

from __future__ import annotations

from decimal import Decimal, localcontext
from functools import lru_cache

from tradeoff.ask.scenario import Scenario
from tradeoff.learn.likelihood import NOISE_PRIOR, NoiseGrid


def scenario_noise_unit(scenario: Scenario) -> float:
    """The unit of T and δ for ``scenario``: 1 (a recall's) with classes, else the
    geometric mean of the aspects' ranges to three significant digits.

    Examples
    --------
    >>> from tradeoff.ask.scenario import load_scenario
    >>> scenario_noise_unit(load_scenario("scenarios/breast-cancer-triage.toml").scenario)
    1.0
    >>> scenario_noise_unit(load_scenario("scenarios/train-trips.toml").scenario)  # ƒ, min, …
    21.0
    """
    if scenario.n_classes:
        return 1.0
    # In decimal arithmetic, whose logarithm and exponential are correctly rounded: the
    # same digits on every machine, whatever its libm.
    with localcontext() as ctx:
        ctx.prec = 30
        spans = [Decimal(repr(a.range[1] - a.range[0])) for a in scenario.attributes]
        mean = (sum((s.ln() for s in spans), Decimal(0)) / len(spans)).exp()
        return float(format(mean, ".3g"))


@lru_cache(maxsize=8)
def noise_grid(unit: float) -> NoiseGrid:
    """:data:`~tradeoff.learn.likelihood.NOISE_PRIOR` with T and δ counted in ``unit``
    (each value times it; the same prior masses, cell by cell).

    >>> grid = noise_grid(20.0)
    >>> grid.temperatures[-1], grid.shape == NOISE_PRIOR.shape
    (1.0, True)
    >>> bool((grid.prior_masses() == NOISE_PRIOR.prior_masses()).all())
    True
    """
    g = NOISE_PRIOR
    return NoiseGrid(
        g.lapses,
        tuple(t * unit for t in g.temperatures),
        tuple(b * unit for b in g.bands),
        g.lapse_prior,
        g.temperature_prior,
        g.band_prior,
    )
