"""The prior a study's later participants start from: what its earlier ones said.

:func:`~tradeoff.learn.pooled.population_prior` pools draws of the posteriors of the
people who finished (an empirical-Bayes prior: the mixture of their posteriors, which is
the population widened by each person's own uncertainty). The adaptive engine (strategy
`joint`) needs more than draws: its particles move by Metropolis–Hastings, which weighs
every move by the prior's *density*. :class:`StartingPrior` is that density over swing
weights, in the additive log-ratio coordinates z the particles move in:

    p(z) = b · p₀(z) + (1 − b) · Σ_g π_g N(z; μ_g, Σ_g)

with p₀ the engine's own prior (:func:`~tradeoff.learn.swing_prior.swing_log_prior`), b
its share (``base_share``) and a finite Gaussian mixture over the pooled draws: the
population as latent classes of people who weigh the aspects alike (as latent class logit
models a population), at most :data:`MAX_COMPONENTS` of them, their number chosen by BIC
(:func:`~tradeoff.learn.mixture.best_mixture`, the fit behind the study's groups too,
from seeded starts, so the same draws give the same mixture on every machine; more
classes are tried until :data:`PATIENCE` more in a row do not lower the BIC). Each
class's covariance is widened as a kernel density estimate within it would be (times
1 + (``BANDWIDTH`` · n_g^(−1/(d+4)))², n_g its share of the K draws: half of Scott's
rule) and never narrower than :data:`FLOOR` in every direction (the EM's ridge), so no
class is a spike: the draws already carry each person's own uncertainty, and the widening
only smooths a finite sample of people. A handful of Gaussians makes every move of every
particle cost a few matrix products, where a kernel on each of hundreds of draws cost
hundreds. Only the weights are pooled: the answer noise keeps the engine's own prior,
since how carefully a person answers says nothing of how carefully the next one will, and
a careful majority must not make a careless person's few answers look sure.

The minority is guarded twice. The engine's own prior keeps its share b of the mass
everywhere, so a person unlike everyone before still has prior mass where they are and
their answers move the particles there (the mixture has thin tails; the share of b does
not). And the stop reads the posterior as every engine does, weighing up the noisiest
answers it allows (:meth:`~tradeoff.learn.particles.ParticlePosterior.robust_weights`).

The mixture's parameters are stored as canonical JSON (:meth:`StartingPrior.to_bytes`:
the shortest decimal that reads back as the same float, on every machine) and named by
the SHA-256 of those bytes: a session records that hash, and a replay loads exactly that
density again (no fit is repeated).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from tradeoff.arrays import FloatArray
from tradeoff.learn.mixture import best_mixture
from tradeoff.learn.swing_prior import alr_columns, alr_inverse_columns

__all__ = ["FORMAT", "MAX_COMPONENTS", "MAX_DRAWS", "StartingPrior"]

#: The format of the stored prior (2: the mixture's parameters; 1, the pooled draws of a
#: kernel density, was never released).
FORMAT = 2
#: At most this many pooled draws are fitted.
MAX_DRAWS = 600
#: At most this many latent classes.
MAX_COMPONENTS = 8
#: Seeded starts of the EM per number of classes.
STARTS = 3
#: More classes are not tried once this many more in a row did not lower the BIC.
PATIENCE = 2
#: The widening of each class as a share of Scott's rule within it: each person's
#: posterior draws are already spread by their own uncertainty.
BANDWIDTH = 0.5
#: The least variance of a class in every direction (log-ratio units²; a standard
#: deviation of 0.1, a tenth of one weight against another): the EM's ridge.
FLOOR = 0.01
#: The log-ratio coordinates of the draws are held within ±this (the particles' moves
#: clip theirs at ±60; a weight of 10⁻¹³ of another's is as good as none).
Z_LIMIT = 30.0


def _numbers(raw: object, depth: int) -> bool:
    """Whether ``raw`` is nested lists ``depth`` deep of floats."""
    if depth == 0:
        return isinstance(raw, float)
    return isinstance(raw, list) and bool(raw) and all(_numbers(x, depth - 1) for x in raw)


@dataclass(frozen=True, eq=False)
class StartingPrior:
    """The density of the module docstring: a mixture of ``shares`` (k), ``means``
    (k × d) and ``covariances`` (k × d × d) in the log-ratio coordinates of n = d + 1
    swing weights, with the engine's own prior at ``base_share``; ``sessions`` names the
    sessions it was pooled from (for the record, by the SHA-256 of their bytes, never by a
    participant; the density does not read it).
    :meth:`of` fits it to pooled swing weights.

    Examples
    --------
    >>> import numpy as np
    >>> s = np.random.default_rng(0).dirichlet([30, 15, 5], size=40)
    >>> prior = StartingPrior.of(s, 0.2, ("a", "b", "c"))
    >>> StartingPrior.from_bytes(prior.to_bytes()).sha256 == prior.sha256
    True
    >>> cols = np.array([[0.6, 0.1], [0.3, 0.1], [0.1, 0.8]])
    >>> base = np.zeros(2)
    >>> z = prior.log_density(cols, base)
    >>> bool(z[0] > z[1])  # near the draws, the density is higher
    True
    """

    shares: FloatArray
    means: FloatArray
    covariances: FloatArray
    base_share: float
    sessions: tuple[str, ...] = ()
    sha256: str = field(default="", init=False)
    #: Per class: the Cholesky factor of its covariance, its inverse and log πₖ plus the
    #: log normalising constant.
    _chol: FloatArray = field(init=False, repr=False)
    _inverse: FloatArray = field(init=False, repr=False)
    _log_scale: FloatArray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        shares = np.asarray(self.shares, dtype=np.float64)
        means = np.asarray(self.means, dtype=np.float64)
        covs = np.asarray(self.covariances, dtype=np.float64)
        if shares.ndim != 1 or means.ndim != 2 or means.shape[0] != shares.shape[0]:
            raise ValueError("field 'means' must hold one row per share")
        k, d = means.shape
        if d < 1:
            raise ValueError("field 'means' must have at least one coordinate (two weights)")
        if covs.shape != (k, d, d):
            raise ValueError("field 'covariances' must hold one d × d matrix per share")
        if not np.all(np.isfinite(shares)) or np.any(shares <= 0):
            raise ValueError("field 'shares' must be finite and positive")
        if abs(float(shares.sum()) - 1.0) > 1e-9:
            raise ValueError("field 'shares' must sum to 1")
        if not (np.all(np.isfinite(means)) and np.all(np.abs(means) <= 60)):
            raise ValueError("field 'means' must be finite, within ±60")
        if not np.all(np.isfinite(covs)) or np.any(np.abs(covs - covs.transpose(0, 2, 1)) > 0):
            raise ValueError("field 'covariances' must be finite and symmetric")
        if not 0.0 < self.base_share < 1.0:
            raise ValueError("field 'base_share' must lie strictly between 0 and 1")
        try:
            chol = np.linalg.cholesky(covs)
        except np.linalg.LinAlgError:
            raise ValueError("field 'covariances' must be positive definite") from None
        inverse = np.linalg.inv(chol)
        log_det = np.log(np.diagonal(chol, axis1=1, axis2=2)).sum(axis=1)
        log_scale = np.log(shares) - 0.5 * d * math.log(2 * math.pi) - log_det
        for name, value in (("shares", shares), ("means", means), ("covariances", covs)):
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_chol", chol)
        object.__setattr__(self, "_inverse", inverse)
        object.__setattr__(self, "_log_scale", log_scale)
        object.__setattr__(self, "sha256", hashlib.sha256(self.to_bytes()).hexdigest())

    @classmethod
    def of(
        cls, swing: FloatArray, base_share: float, sessions: tuple[str, ...] = ()
    ) -> StartingPrior:
        """The prior fitted to pooled swing weights (rows, each on the simplex; thinned
        evenly to :data:`MAX_DRAWS`)."""
        swing = np.asarray(swing, dtype=np.float64)
        if swing.ndim != 2 or swing.shape[0] < 2 or swing.shape[1] < 2:
            raise ValueError("a starting prior needs at least 2 draws of at least 2 weights")
        if not np.all(np.isfinite(swing)) or np.any(swing <= 0):
            raise ValueError("every pooled swing weight must be finite and positive")
        swing = swing / swing.sum(axis=1, keepdims=True)
        if len(swing) > MAX_DRAWS:
            swing = swing[np.linspace(0, len(swing) - 1, MAX_DRAWS).round().astype(np.intp)]
        z = np.clip(alr_columns(swing.T).T, -Z_LIMIT, Z_LIMIT)  # (K, d)
        n, d = z.shape
        fit = best_mixture(
            z,
            max_components=min(MAX_COMPONENTS, n // (d + 2)),
            ridge=FLOOR,
            seed=0,
            starts=STARTS,
            patience=PATIENCE,
        )
        count = np.maximum(fit.shares * n, 1.0)
        widen = 1.0 + (BANDWIDTH * count ** (-1.0 / (d + 4))) ** 2
        covs = fit.covariances * widen[:, None, None]
        covs = 0.5 * (covs + covs.transpose(0, 2, 1))  # exactly symmetric
        return cls(fit.shares / fit.shares.sum(), fit.means, covs, base_share, tuple(sessions))

    # -- stored ----------------------------------------------------------------------------

    def to_bytes(self) -> bytes:
        """Canonical JSON of the mixture (what the SHA-256 is of)."""
        data = {
            "format": FORMAT,
            "base_share": float(self.base_share),
            "sessions": list(self.sessions),
            "shares": [float(x) for x in self.shares],
            "means": [[float(x) for x in row] for row in self.means],
            "covariances": [[[float(x) for x in row] for row in c] for c in self.covariances],
        }
        return (json.dumps(data, separators=(",", ":"), allow_nan=False) + "\n").encode()

    @classmethod
    def from_bytes(cls, data: bytes) -> StartingPrior:
        """The prior stored by :meth:`to_bytes` (``ValueError`` naming the field that is
        wrong)."""
        try:
            raw = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValueError(f"is not the JSON of a starting prior ({exc})") from None
        if not isinstance(raw, dict) or raw.get("format") != FORMAT:
            raise ValueError(f"field 'format' must be {FORMAT}")
        share, sessions = raw.get("base_share"), raw.get("sessions")
        if not isinstance(share, float):
            raise ValueError("field 'base_share' must be a number")
        if not isinstance(sessions, list) or not all(isinstance(s, str) for s in sessions):
            raise ValueError("field 'sessions' must be a list of names")
        parts = []
        for name, depth in (("shares", 1), ("means", 2), ("covariances", 3)):
            value = raw.get(name)
            if not _numbers(value, depth):
                raise ValueError(f"field '{name}' must be {depth}-deep lists of numbers")
            try:
                parts.append(np.array(value, dtype=np.float64))
            except ValueError:
                raise ValueError(f"field '{name}' must have rows of one length") from None
        return cls(parts[0], parts[1], parts[2], share, tuple(sessions))

    # -- the density -------------------------------------------------------------------------

    @property
    def n_weights(self) -> int:
        return int(self.means.shape[1]) + 1

    @property
    def components(self) -> int:
        """The number of latent classes."""
        return int(self.shares.shape[0])

    def mixture_log_density(self, swing_columns: FloatArray) -> FloatArray:
        """log Σ_g π_g N(z; μ_g, Σ_g) of swing weights held as columns (n × N)."""
        z = np.clip(alr_columns(swing_columns), -60, 60)  # (d, N)
        log_k = np.empty((self.components, z.shape[1]))
        for g in range(self.components):
            u = self._inverse[g] @ (z - self.means[g][:, None])
            log_k[g] = self._log_scale[g] - 0.5 * (u * u).sum(axis=0)
        top = log_k.max(axis=0)
        out: FloatArray = top + np.log(np.exp(log_k - top).sum(axis=0))
        return out

    def log_density(self, swing_columns: FloatArray, base_log_z: FloatArray) -> FloatArray:
        """The prior's log density in log-ratio coordinates of swing weights held as
        columns, given the engine's own prior's there (``base_log_z``)."""
        mixture = self.mixture_log_density(swing_columns)
        out: FloatArray = np.logaddexp(
            math.log(self.base_share) + base_log_z, math.log1p(-self.base_share) + mixture
        )
        return out

    def draw(
        self, rng: np.random.Generator, size: int, base: Callable[[int], FloatArray]
    ) -> FloatArray:
        """``size`` swing weights (rows) from the prior: ``base(m)`` draws m of the
        engine's own prior, the rest are drawn from the mixture."""
        own = int(rng.binomial(size, self.base_share))
        pooled = size - own
        edges = np.cumsum(self.shares)
        which = np.minimum(
            np.searchsorted(edges, rng.random(pooled) * edges[-1], side="right"),
            self.components - 1,
        )
        e = rng.standard_normal((pooled, self.means.shape[1]))
        z = self.means[which] + np.einsum("nij,nj->ni", self._chol[which], e)
        rows = alr_inverse_columns(np.clip(z, -60, 60).T).T
        out: FloatArray = np.concatenate((base(own), rows)) if own else rows
        return out
