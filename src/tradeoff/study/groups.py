"""The population picture of a study: how its participants' weights spread and the groups
of people who want different models.

**Method.** A Gaussian mixture over each participant's posterior-mean swing weights, in
their additive log-ratio coordinates (log sᵢ − log sₙ), with full covariances, fitted by
expectation–maximisation from several seeded k-means++ starts, and the number of groups
(1 to :data:`MAX_GROUPS`) chosen by the Bayesian information criterion
(:func:`~tradeoff.learn.mixture.best_mixture`, the fit behind a study's population prior
too).

Why this: swing weights live on a simplex, where a mixture of Gaussians fits badly near
the edges; the log-ratio coordinates take the simplex to all of ℝⁿ⁻¹, where groups of
people with similar trade-offs are roughly elliptical. A mixture (not k-means) gives each
participant a *probability* of belonging to each group ("how sure"), which the export
carries, and BIC says how many groups the data support without a threshold of our own: a
study of one homogeneous population reads as one group. Posterior means (not draws) are
clustered because each participant must land in one group; their uncertainty enters
through the stop, which kept asking until the pick was settled. The same computation
gives the same groups on every machine: the BIC is compared at
:data:`~tradeoff.stable.DIGITS` digits and the groups are numbered by size.

Each group's model is the Bayes pick of the pool at the group's mean weights
(:func:`group_picks`; the study report and the coordinator's page show it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tradeoff.arrays import FloatArray, IntArray
from tradeoff.learn.mixture import best_mixture
from tradeoff.stable import stable_argmax_rows

__all__ = ["MAX_GROUPS", "Groups", "find_groups", "group_picks"]

#: At most this many groups.
MAX_GROUPS = 6
#: Seeded starts of the EM per number of groups.
STARTS = 3
#: Added to every covariance's diagonal (log-ratio units²): the resolution at which
#: posterior means tell people apart (a standard deviation of about 0.22 in a log ratio,
#: a fifth of one weight against another). Posterior means carry each person's estimation
#: noise, which is no group: with 10⁻³, a simulated study of 150 people from three groups
#: (benchmarks/population_study.py, seed 1) split into groups of noise (adjusted Rand index
#: 0.73); with 0.01, 0.85; with 0.05, 0.95.
RIDGE = 0.05
#: Log-ratio coordinates are held within ±this (a weight 10⁻⁹ of another's is none).
LIMIT = 20.0


@dataclass(frozen=True)
class Groups:
    """Groups found among participants: ``labels[i]`` the group of participant i (0: the
    largest group), ``probabilities[i, g]`` their posterior probability of group g,
    ``means`` each group's mean swing weights (rows, on the simplex), ``bic`` by number of
    groups tried (1, 2, …)."""

    labels: IntArray
    probabilities: FloatArray
    means: FloatArray
    bic: tuple[float, ...]

    @property
    def count(self) -> int:
        return int(self.means.shape[0])

    def sizes(self) -> list[int]:
        return [int(x) for x in np.bincount(self.labels, minlength=self.count)]

    def sureness(self) -> list[float]:
        """Per group, the mean probability its members belong to it."""
        out = []
        for g in range(self.count):
            members = self.probabilities[self.labels == g, g]
            out.append(float(members.mean()) if members.size else 0.0)
        return out


def _alr(swing: FloatArray) -> FloatArray:
    s = np.maximum(np.asarray(swing, dtype=np.float64), 1e-300)
    s = s / s.sum(axis=1, keepdims=True)
    out: FloatArray = np.clip(np.log(s[:, :-1]) - np.log(s[:, -1:]), -LIMIT, LIMIT)
    return out


def find_groups(swing: FloatArray, *, max_groups: int = MAX_GROUPS, seed: int = 0) -> Groups:
    """The groups among participants' posterior-mean swing weights ``swing`` (rows) (see
    the module docstring).

    >>> rng = np.random.default_rng(1)
    >>> a = rng.dirichlet([40, 10, 10], size=30)
    >>> b = rng.dirichlet([10, 10, 40], size=20)
    >>> g = find_groups(np.vstack((a, b)))
    >>> g.count, g.sizes(), g.labels[:3].tolist(), g.labels[-3:].tolist()
    (2, [30, 20], [0, 0, 0], [1, 1, 1])
    """
    x = _alr(swing)
    n, d = x.shape
    fit = best_mixture(
        x, max_components=min(max_groups, n // (d + 2)), ridge=RIDGE, seed=seed, starts=STARTS
    )
    resp = fit.responsibilities
    labels = stable_argmax_rows(resp)
    k = resp.shape[1]
    sizes = np.bincount(labels, minlength=k)
    order = sorted(range(k), key=lambda g: (-int(sizes[g]), -float(resp[:, g].sum())))
    order = [g for g in order if sizes[g] > 0]
    resp = resp[:, order]
    resp = resp / resp.sum(axis=1, keepdims=True)
    labels = stable_argmax_rows(resp)
    s = np.maximum(np.asarray(swing, dtype=np.float64), 0.0)
    s = s / s.sum(axis=1, keepdims=True)
    means = np.array([s[labels == g].mean(axis=0) for g in range(len(order))])
    return Groups(labels.astype(np.intp), resp, means, fit.bic)


def group_picks(groups: Groups, spans: Sequence[float], rows: FloatArray) -> list[int]:
    """Each group's pick: the candidate (row of ``rows``, the pool's models in the metric's
    terms) best at the group's mean swing weights turned into natural-unit weights."""
    natural = groups.means / np.asarray(spans, dtype=np.float64)
    natural = natural / natural.sum(axis=1, keepdims=True)
    return [int(i) for i in stable_argmax_rows(natural @ np.asarray(rows).T)]
