"""The prior a study's later participants start from: what its earlier ones said.

:func:`~tradeoff.learn.pooled.population_prior` pools draws of the posteriors of the
people who finished (an empirical-Bayes prior: the mixture of their posteriors, which is
the population widened by each person's own uncertainty). The adaptive engine (strategy
`joint`) needs more than draws: its particles move by Metropolis–Hastings, which weighs
every move by the prior's *density*. :class:`StartingPrior` is that density over swing
weights, in the additive log-ratio coordinates z the particles move in:

    p(z) = b · p₀(z) + (1 − b) · (1/K) Σₖ N(z; zₖ, H)

with p₀ the engine's own prior (:func:`~tradeoff.learn.swing_prior.swing_log_prior`), b
its share (``base_share``) and a Gaussian kernel around each of the K pooled draws zₖ,
its covariance H the draws' covariance times (``BANDWIDTH`` · K^(−1/(d+4)))², half of
Scott's rule (a kernel density estimate of the mixture of posteriors). Only the weights
are pooled: the answer noise keeps the engine's own prior, since how carefully a person
answers says nothing of how carefully the next one will, and a careful majority must not
make a careless person's few answers look sure.

The minority is guarded twice. The engine's own prior keeps its share b of the mass
everywhere, so a person unlike everyone before still has prior mass where they are and
their answers move the particles there (the kernel mixture has thin tails; the share of
b does not). And the stop reads the posterior as every engine does, weighing up the
noisiest answers it allows (:meth:`~tradeoff.learn.particles.ParticlePosterior.
robust_weights`).

The draws are stored as canonical JSON (:meth:`StartingPrior.to_bytes`: the shortest
decimal that reads back as the same float, on every machine) and named by the SHA-256 of
those bytes: a session records that hash, and a replay loads exactly those draws again.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from tradeoff.arrays import FloatArray
from tradeoff.learn.swing_prior import alr_columns, alr_inverse_columns

__all__ = ["FORMAT", "MAX_DRAWS", "StartingPrior"]

#: The format of the stored draws.
FORMAT = 1
#: At most this many pooled draws (each move of every particle weighs them all).
MAX_DRAWS = 600
#: The kernel's scale as a share of Scott's rule: the pooled draws come from groups of
#: people (Scott's rule, made for one Gaussian, smooths across them) and each person's
#: posterior draws are already spread by their own uncertainty.
BANDWIDTH = 0.5
#: The log-ratio coordinates of the draws are held within ±this (the particles' moves
#: clip theirs at ±60; a weight of 10⁻¹³ of another's is as good as none).
Z_LIMIT = 30.0


@dataclass(frozen=True, eq=False)
class StartingPrior:
    """The density of the module docstring: ``swing`` (K × n pooled swing weights, rows
    on the simplex) with the engine's own prior at ``base_share``; ``sessions`` names the
    sessions the draws came from (for the record; the density does not read it).

    Examples
    --------
    >>> import numpy as np
    >>> s = np.array([[0.6, 0.3, 0.1], [0.5, 0.4, 0.1], [0.7, 0.2, 0.1]])
    >>> prior = StartingPrior.of(s, 0.2, ("a", "b", "c"))
    >>> StartingPrior.from_bytes(prior.to_bytes()).sha256 == prior.sha256
    True
    >>> cols = np.array([[0.6, 0.1], [0.3, 0.1], [0.1, 0.8]])
    >>> base = np.zeros(2)
    >>> z = prior.log_density(cols, base)
    >>> bool(z[0] > z[1])  # near the draws, the density is higher
    True
    """

    swing: FloatArray
    base_share: float
    sessions: tuple[str, ...] = ()
    sha256: str = field(default="", init=False)
    #: The draws in whitened log-ratio coordinates (K × d), the inverse Cholesky factor of
    #: the kernel's covariance and the log normalising constant of one kernel.
    _white: FloatArray = field(init=False, repr=False)
    _inverse: FloatArray = field(init=False, repr=False)
    _chol: FloatArray = field(init=False, repr=False)
    _log_norm: float = field(init=False, repr=False)

    def __post_init__(self) -> None:
        swing = np.asarray(self.swing, dtype=np.float64)
        if swing.ndim != 2 or swing.shape[0] < 2 or swing.shape[1] < 2:
            raise ValueError("a starting prior needs at least 2 draws of at least 2 weights")
        if not np.all(np.isfinite(swing)) or np.any(swing <= 0):
            raise ValueError("every pooled swing weight must be finite and positive")
        if not 0.0 < self.base_share < 1.0:
            raise ValueError("base_share must lie strictly between 0 and 1")
        if np.any(np.abs(swing.sum(axis=1) - 1.0) > 1e-6):
            raise ValueError("every row of pooled swing weights must sum to 1")
        object.__setattr__(self, "swing", swing)  # as given: the stored bytes stay the same
        z = np.clip(alr_columns(swing.T).T, -Z_LIMIT, Z_LIMIT)  # (K, d)
        k, d = z.shape
        cov = np.atleast_2d(np.cov(z, rowvar=False)) * (BANDWIDTH * k ** (-1.0 / (d + 4))) ** 2
        cov += 1e-3 * np.eye(d)
        chol = np.linalg.cholesky(cov)
        inverse = np.linalg.inv(chol)
        object.__setattr__(self, "_chol", chol)
        object.__setattr__(self, "_inverse", inverse)
        object.__setattr__(self, "_white", z @ inverse.T)
        log_det = float(np.log(np.diag(chol)).sum())
        object.__setattr__(self, "_log_norm", -0.5 * d * math.log(2 * math.pi) - log_det)
        object.__setattr__(self, "sha256", hashlib.sha256(self.to_bytes()).hexdigest())

    @classmethod
    def of(
        cls, swing: FloatArray, base_share: float, sessions: tuple[str, ...] = ()
    ) -> StartingPrior:
        """The prior from pooled swing weights, thinned evenly to :data:`MAX_DRAWS`."""
        swing = np.asarray(swing, dtype=np.float64)
        swing = swing / swing.sum(axis=1, keepdims=True)
        if len(swing) > MAX_DRAWS:
            swing = swing[np.linspace(0, len(swing) - 1, MAX_DRAWS).round().astype(np.intp)]
        return cls(swing, base_share, tuple(sessions))

    # -- stored ----------------------------------------------------------------------------

    def to_bytes(self) -> bytes:
        """Canonical JSON of the draws (what the SHA-256 is of)."""
        data = {
            "format": FORMAT,
            "base_share": float(self.base_share),
            "sessions": list(self.sessions),
            "swing": [[float(x) for x in row] for row in self.swing],
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
        share, sessions, swing = raw.get("base_share"), raw.get("sessions"), raw.get("swing")
        if not isinstance(share, float):
            raise ValueError("field 'base_share' must be a number")
        if not isinstance(sessions, list) or not all(isinstance(s, str) for s in sessions):
            raise ValueError("field 'sessions' must be a list of names")
        if (
            not isinstance(swing, list)
            or not swing
            or not all(isinstance(r, list) and len(r) == len(swing[0]) for r in swing)
            or not all(isinstance(x, float) for r in swing for x in r)
        ):
            raise ValueError("field 'swing' must be rows of numbers of one length")
        return cls(np.array(swing, dtype=np.float64), share, tuple(sessions))

    # -- the density -------------------------------------------------------------------------

    @property
    def n_weights(self) -> int:
        return int(self.swing.shape[1])

    def kernel_log_density(self, swing_columns: FloatArray) -> FloatArray:
        """log (1/K) Σₖ N(z; zₖ, H) of swing weights held as columns (n × N)."""
        z = np.clip(alr_columns(swing_columns), -60, 60)  # (d, N)
        u = self._inverse @ z  # (d, N)
        w = self._white  # (K, d)
        sq = (u * u).sum(axis=0)[None, :] + (w * w).sum(axis=1)[:, None] - 2.0 * (w @ u)
        log_k = -0.5 * np.maximum(sq, 0.0)
        top = log_k.max(axis=0)
        out: FloatArray = (
            top + np.log(np.exp(log_k - top).sum(axis=0)) - math.log(len(w)) + self._log_norm
        )
        return out

    def log_density(self, swing_columns: FloatArray, base_log_z: FloatArray) -> FloatArray:
        """The prior's log density in log-ratio coordinates of swing weights held as
        columns, given the engine's own prior's there (``base_log_z``)."""
        kernel = self.kernel_log_density(swing_columns)
        out: FloatArray = np.logaddexp(
            math.log(self.base_share) + base_log_z, math.log1p(-self.base_share) + kernel
        )
        return out

    def draw(
        self, rng: np.random.Generator, size: int, base: Callable[[int], FloatArray]
    ) -> FloatArray:
        """``size`` swing weights (rows) from the prior: ``base(m)`` draws m of the
        engine's own prior, the rest are a pooled draw moved by the kernel."""
        own = int(rng.binomial(size, self.base_share))
        pooled = size - own
        index = rng.integers(0, len(self.swing), size=pooled)
        z = alr_columns(self.swing[index].T)  # (d, pooled)
        z = np.clip(z, -Z_LIMIT, Z_LIMIT) + self._chol @ rng.standard_normal((z.shape[0], pooled))
        rows = alr_inverse_columns(z).T
        out: FloatArray = np.concatenate((base(own), rows)) if own else rows
        return out
