"""On a pool whose numbers carry measurement noise, the list "best for you first" is
ordered at the measured numbers, so the recommended model (the likeliest best once the
noise is counted) can stand below the model that measured best. The list says where the
pick stands and why, also when every aspect was asked (it said nothing then)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from tradeoff.arrays import FloatArray
from tradeoff.choose.informed import listed
from tradeoff.choose.recommend import recommend

from .test_noise_pick import PRIORS, SC, front_pool

pytestmark = pytest.mark.core


@dataclass(frozen=True)
class Asked:
    """A person every aspect of whose was asked, with their posterior draws."""

    draws: FloatArray
    weights: tuple[float, ...]
    priors: tuple[float, ...] = PRIORS
    asked: tuple[bool, ...] | None = (True, True, True, True)
    swing_weights: tuple[float, ...] | None = None
    swing_intervals: tuple[tuple[float, float], ...] | None = None

    @property
    def posterior(self) -> tuple[FloatArray, FloatArray]:
        return self.draws, np.full(len(self.draws), 1.0 / len(self.draws))


def test_the_list_says_where_the_pick_stands_when_every_aspect_was_asked() -> None:
    pool = front_pool()
    draws = np.random.default_rng(0).dirichlet([30.0, 30.0, 1.0, 1.0], size=200)
    mean = tuple(float(x) for x in draws.mean(axis=0))
    rec = recommend(SC, pool, mean, PRIORS, draws=draws)
    assert rec.measured_best == "m10" and rec.name != "m10"
    one = listed(SC, pool.names, pool.values, Asked(draws, mean), rec)
    assert pool.names[one.order[0]] == "m10"  # at the measured numbers, m10 leads
    place = one.order.index(rec.index) + 1
    assert place > 1
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(place, "th")
    assert one.words == (
        f"The recommended {rec.name} is {place}{suffix}: the pick also counts how exactly "
        "each model was measured."
    )


def test_a_list_the_pick_leads_says_nothing_of_its_order() -> None:
    pool = front_pool()
    draws = np.random.default_rng(0).dirichlet([30.0, 30.0, 1.0, 1.0], size=200)
    mean = tuple(float(x) for x in draws.mean(axis=0))
    rec = recommend(SC, pool, mean, PRIORS, draws=draws, likeliest=False)  # m10, as before
    one = listed(SC, pool.names, pool.values, Asked(draws, mean), rec)
    assert one.order[0] == rec.index and one.words == ""
