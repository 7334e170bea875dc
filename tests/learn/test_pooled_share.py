"""The engine's own prior's share of a population prior, as the people's choices give it
(:func:`tradeoff.learn.pooled.fitted_base_share`), against a slow reckoning: each person's
marginal likelihoods draw by draw, and the share's posterior mean by scipy's quadrature."""

from __future__ import annotations

import math

import pytest
from scipy import integrate

from tradeoff.ask.scenario import load_scenario
from tradeoff.learn.base import Choice
from tradeoff.learn.choices import learn_choices, pairs
from tradeoff.learn.likelihood import outcome_probabilities
from tradeoff.learn.pooled import (
    BASE_SHARE,
    differences,
    fitted_base_share,
    pooled_predictive,
    population_prior,
)

from ..conftest import SCENARIOS

pytestmark = [pytest.mark.core, pytest.mark.other_path]

CHEAP, FAST, COMFY = [20.0, 150, 0, 1], [40.0, 120, 0, 1], [45.0, 150, 0, 0]


def _people(said: dict[str, list[str]]) -> tuple[object, object, dict[str, object]]:
    sc = load_scenario(SCENARIOS / "train-trips.toml").scenario
    q = pairs(sc, [CHEAP] * 3 + [COMFY] * 3, [FAST] * 3 + [CHEAP] * 3)
    people = {
        k: learn_choices(sc, q, v, seed=i).particles() for i, (k, v) in enumerate(said.items())
    }
    prior = population_prior(sc, people, per_person=60)  # type: ignore[arg-type]
    return sc, prior, {k: (q, v) for k, v in said.items()}


def _slow_share(sc: object, prior: object, evidence: dict[str, object]) -> float:
    """Each person's likelihood at each draw, one draw at a time; the posterior mean of the
    share b under a flat prior on [0, 1] by quadrature."""
    owners = list(prior.owners)  # type: ignore[attr-defined]
    values = prior.grid.values(prior.noise)  # type: ignore[attr-defined]
    log_a, log_b = [], []
    for name, (q, said) in evidence.items():  # type: ignore[attr-defined]
        d = differences(sc, q)  # type: ignore[arg-type]
        lik = []
        for k in range(len(owners)):
            delta = d @ prior.natural[k]  # type: ignore[attr-defined]
            p = outcome_probabilities(delta, values[0][k], values[1][k], values[2][k])
            lik.append(math.prod(p[j, {"left": 0, "right": 1}[c]] for j, c in enumerate(said)))
        w = prior.weights  # type: ignore[attr-defined]
        base = [k for k, o in enumerate(owners) if o == ""]
        others = [k for k, o in enumerate(owners) if o not in ("", name)]
        log_a.append(math.log(sum(w[k] * lik[k] for k in base) / sum(w[k] for k in base)))
        log_b.append(math.log(sum(w[k] * lik[k] for k in others) / sum(w[k] for k in others)))
    top = sum(max(a, b) for a, b in zip(log_a, log_b, strict=True))

    def like(b: float) -> float:
        return math.exp(
            sum(
                math.log(b * math.exp(a) + (1 - b) * math.exp(o))
                for a, o in zip(log_a, log_b, strict=True)
            )
            - top
        )

    mass = integrate.quad(like, 0, 1, limit=200)[0]
    return float(integrate.quad(lambda b: b * like(b), 0, 1, limit=200)[0] / mass)


def test_the_share_is_its_posterior_mean_as_a_slow_reckoning_finds_it() -> None:
    said = {
        "a": ["left"] * 6,
        "b": ["left", "left", "left", "left", "right", "left"],
        "c": ["right"] * 3 + ["left"] * 3,
    }
    sc, prior, evidence = _people(said)
    share = fitted_base_share(sc, prior, evidence)  # type: ignore[arg-type]
    assert share == pytest.approx(_slow_share(sc, prior, evidence), abs=2e-3)


def test_people_alike_leave_the_engine_a_small_share_and_one_unlike_them_a_larger() -> None:
    alike = {k: ["left"] * 6 for k in "abcdef"}
    sc, prior, evidence = _people(alike)
    few = fitted_base_share(sc, prior, evidence)  # type: ignore[arg-type]
    mixed = {**alike, "g": ["right"] * 6, "h": ["right", "left"] * 3}
    sc, prior, evidence = _people(mixed)
    more = fitted_base_share(sc, prior, evidence)  # type: ignore[arg-type]
    assert few < 0.2 and more > few + 0.05, (few, more)


def test_one_person_gives_no_population_to_fit_and_the_share_stays() -> None:
    sc, prior, evidence = _people({"a": ["left"] * 6})
    assert fitted_base_share(sc, prior, evidence) == BASE_SHARE  # type: ignore[arg-type]


def test_the_share_carries_into_the_predictions() -> None:
    """A person who always took the faster trip, among people who took the cheaper: the
    larger the engine's own share, the more their own choices can say."""
    sc, prior, _ = _people({k: ["left"] * 6 for k in "abcd"})
    q = pairs(sc, [CHEAP] * 2, [FAST] * 2)  # type: ignore[arg-type]
    fast = [Choice("right")] * 2
    small, _ = pooled_predictive(sc, prior.with_base_share(0.01), q, fast, q[:1])  # type: ignore[arg-type,attr-defined]
    large, _ = pooled_predictive(sc, prior.with_base_share(0.5), q, fast, q[:1])  # type: ignore[arg-type,attr-defined]
    assert large[0, 1] > small[0, 1]
