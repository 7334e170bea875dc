"""A study's population prior is a finite Gaussian mixture (latent classes) fitted to the
pooled draws: a handful of classes by BIC, each no narrower than the floor, the same on
every fit, and its density exactly the mixture a brute-force evaluation gives."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from tradeoff.learn.starting_prior import FLOOR, MAX_COMPONENTS, StartingPrior
from tradeoff.learn.swing_prior import alr_columns

pytestmark = pytest.mark.core

CENTRES = ([0.7, 0.1, 0.1, 0.1], [0.1, 0.6, 0.2, 0.1], [0.2, 0.2, 0.2, 0.4])


def pooled(seed: int = 0, sizes: tuple[int, ...] = (150, 100, 50)) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.vstack(
        [rng.dirichlet(60 * np.array(c), n) for c, n in zip(CENTRES, sizes, strict=True)]
    )


def test_the_prior_is_a_mixture_of_a_few_classes_found_by_bic() -> None:
    prior = StartingPrior.of(pooled(), 0.2)
    assert prior.components == 3 <= MAX_COMPONENTS
    assert sorted(np.round(prior.shares, 2).tolist()) == [0.17, 0.33, 0.5]
    # No class is a spike: every direction keeps at least the floor's variance.
    assert np.linalg.eigvalsh(prior.covariances).min() >= FLOOR * 0.999
    # Each class sits at one group's centre (in log-ratio coordinates).
    centres = alr_columns(np.array(CENTRES).T).T
    nearest = np.abs(prior.means[:, None, :] - centres[None]).max(axis=2).min(axis=1)
    assert nearest.max() < 0.2


def test_the_density_is_the_mixture_evaluated_by_brute_force() -> None:
    prior = StartingPrior.of(pooled(1), 0.3)
    cols = np.random.default_rng(2).dirichlet([1.0] * 4, size=400).T
    z = alr_columns(cols).T
    brute = np.log(
        sum(
            w * multivariate_normal(m, c).pdf(z)
            for w, m, c in zip(prior.shares, prior.means, prior.covariances, strict=True)
        )
    )
    assert prior.mixture_log_density(cols) == pytest.approx(brute, rel=1e-9, abs=1e-9)
    base = np.random.default_rng(3).normal(-2.0, 1.0, size=400)
    expected = np.log(0.3 * np.exp(base) + 0.7 * np.exp(brute))
    assert prior.log_density(cols, base) == pytest.approx(expected, rel=1e-9, abs=1e-9)


def test_the_same_draws_give_the_same_prior_and_draws_follow_it() -> None:
    a, b = StartingPrior.of(pooled(4), 0.2), StartingPrior.of(pooled(4), 0.2)
    assert a.to_bytes() == b.to_bytes()
    rng = np.random.default_rng(5)
    drawn = a.draw(rng, 20_000, lambda m: np.full((m, 4), 0.25))
    own = np.all(drawn == 0.25, axis=1)
    assert own.mean() == pytest.approx(0.2, abs=0.02)  # the engine's own prior's share
    z = alr_columns(drawn[~own].T).T
    assert z.mean(axis=0) == pytest.approx(a.shares @ a.means, abs=0.05)


def test_one_person_unlike_the_rest_is_not_a_class_of_their_own() -> None:
    """Two draws far from all others do not get a spike: BIC does not pay for a class."""
    swing = np.vstack((pooled(6, (150, 0, 0)), [[0.05, 0.05, 0.05, 0.85]] * 2))
    prior = StartingPrior.of(swing, 0.2)
    assert prior.components <= 2
    assert np.linalg.eigvalsh(prior.covariances).min() >= FLOOR * 0.999
