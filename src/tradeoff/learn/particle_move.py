"""How the particles of strategy `joint` take an answer: each particle's weight times the
answer's likelihood; when too few would carry the weight, the answer taken in tempered
steps, the particles resampled (systematic) and moved after each by the sweeps of
Metropolis–Hastings of ``MOVE_SWEEPS`` (each a Gaussian random walk in the additive
log-ratio coordinates of the swing weights with the particles' covariance, then a new value
for one of ε, T, δ), every move accepted by the likelihood of *all* answers so far
(resample-move; Gilks & Berzuini 2001). :class:`MoveKernel` holds what a step depends on;
:mod:`~tradeoff.learn.particles` holds the particles and what they say.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tradeoff.arrays import FloatArray, IntArray
from tradeoff.learn.joint_state import JointRecord, JointState
from tradeoff.learn.likelihood import (
    NoiseGrid,
    answer_log_likelihoods,
    answer_signs,
    signed_log_likelihoods,
)
from tradeoff.learn.starting_prior import StartingPrior
from tradeoff.learn.swing_prior import (
    alr_columns,
    alr_inverse_columns,
    log_sum,
    natural_weights,
    swing_log_prior,
)

__all__ = ["ESS_FLOOR", "MAX_STAGES", "MOVE_SWEEPS", "SCARCE", "MoveKernel", "systematic"]


#: Resample and move when the effective sample size falls below this share of particles.
ESS_FLOOR = 0.5
#: The sweeps of one resample-move: Metropolis–Hastings sweeps, each a move of the weights
#: (a random walk whose step is this multiple of 2.38/√d times the particles' covariance)
#: and then of the noise parameters. Fewer do not mix: against numerical integration
#: (tests/learn/test_joint.py, the example of two candidates after a "can't tell"; 40
#: seeds) P(best) is off by 0.027 (root mean square) with these 12, 0.031 with 9, 0.033
#: with 8 and 0.039 with 6 sweeps at scales (1, 1, ½), up to 0.135, which the brute-force
#: test flags. The decisions on the shipped pool did not show it (6 sweeps, 300 people per
#: cell: benchmarks/results/decision_compare-6-sweeps.md).
MOVE_SWEEPS = (1.0, 0.5, 0.25) * 4
#: Resampling from fewer effective particles than this share moves them twice as long.
SCARCE = 0.05
#: At most this many tempered steps per answer (then the rest of it in one step).
MAX_STAGES = 3


def _normalised(log_w: FloatArray) -> FloatArray:
    """Normalised weights from log weights (all −∞: equal weights)."""
    top = np.max(log_w)
    if not np.isfinite(top):
        return np.full(len(log_w), 1.0 / len(log_w))
    w = np.exp(log_w - top)
    out: FloatArray = w / w.sum()
    return out


def _ess(log_w: FloatArray) -> float:
    """Effective sample size of log weights (0 when every weight is 0)."""
    if not np.isfinite(np.max(log_w)):
        return 0.0
    w = _normalised(log_w)
    return float(1.0 / np.sum(w**2))


def _tempered_step(log_w: FloatArray, new: FloatArray, rest: float) -> float:
    """The step δ ∈ (0, rest] of the tempering exponent whose weights log_w + δ·new keep
    ``ESS_FLOOR`` of the effective sample size of the particles the answer leaves possible
    (those where its likelihood is not 0: no step can keep the others), by bisection."""
    alive = np.where(np.isfinite(new), log_w, -np.inf)
    target = ESS_FLOOR * _ess(alive)
    if _ess(log_w + rest * new) >= target:
        return rest
    lo, hi = 0.0, rest
    for _ in range(30):
        mid = (lo + hi) / 2
        if _ess(log_w + mid * new) >= target:
            lo = mid
        else:
            hi = mid
    return max(lo, 1e-3 * rest)


def systematic(weights: FloatArray, size: int, rng: np.random.Generator) -> IntArray:
    cum = np.cumsum(weights)
    cum /= cum[-1]
    points = (rng.random() + np.arange(size)) / size
    out: IntArray = np.minimum(np.searchsorted(cum, points), len(weights) - 1).astype(np.intp)
    return out


@dataclass(frozen=True)
class MoveKernel:
    """What one answer's step depends on: each statistic's span, the seed, the grid of
    (ε, T, δ) and the shares of the swing-weight prior
    (:class:`~tradeoff.learn.particles.ParticlePosterior` holds the same and builds it)."""

    spans: tuple[float, ...]
    seed: int
    noise_grid: NoiseGrid
    sparse_share: float
    natural_share: float
    #: A study's pooled prior the weights start from (:mod:`~tradeoff.learn.starting_prior`),
    #: or ``None``: the engine's own.
    start: StartingPrior | None = None

    def _deltas(self, natural: FloatArray, records: Sequence[JointRecord]) -> FloatArray:
        """Δ of every answer for every particle, shape (answers, particles)."""
        if not records:
            return np.zeros((0, natural.shape[0]))
        out: FloatArray = np.array([r.diff for r in records]) @ natural.T
        return out

    def _log_likelihood(
        self, natural: FloatArray, noise: IntArray, records: Sequence[JointRecord]
    ) -> FloatArray:
        """Σ over ``records`` of log P(answer | particle), per particle."""
        return self._log_likelihood_of(self._deltas(natural, records), noise, records)

    def _log_likelihood_of(
        self,
        delta: FloatArray,
        noise: IntArray,
        records: Sequence[JointRecord],
        powers: FloatArray | None = None,
    ) -> FloatArray:
        """Σ over ``records`` of log P(answer | particle) (each times its power) from Δ of
        shape (answers, particles)."""
        if not records:
            return np.zeros(delta.shape[1])
        outcomes = np.array([r.outcome for r in records], dtype=np.intp)
        lapse, temp, band = self.noise_grid.values(noise)
        log_p = answer_log_likelihoods(delta, outcomes, lapse, temp, band)
        if powers is not None and powers[-1] != 1.0:
            log_p[-1] *= powers[-1]
        out: FloatArray = log_p.sum(axis=0)
        return out

    def _signed_log_likelihood(
        self, d: FloatArray, noise: IntArray, unsure: IntArray, powers: FloatArray
    ) -> FloatArray:
        """:meth:`_log_likelihood_of` from Δ times each answer's
        :func:`~tradeoff.learn.likelihood.answer_signs` and the rows answered "can't tell"
        (worked out once per move), with the noise cells' logarithms looked up."""
        grid = self.noise_grid
        graded = grid.cell_temperature[noise] > 0
        out: FloatArray = np.empty(d.shape[1])
        # Those answering from the numbers and those with a temperature, each as one block
        # (the same numbers per particle as all at once, each column summed in the same
        # order; no work on a column that the other kind's formula then overwrites).
        for part in (np.flatnonzero(~graded), np.flatnonzero(graded)):
            if not part.size:
                continue
            cells = noise[part]
            lapse, temp, band = grid.values(cells)
            log_p = signed_log_likelihoods(
                d[:, part],
                unsure,
                lapse,
                temp,
                band,
                grid.cell_log_hit[cells],
                grid.cell_log_miss[cells],
                grid.cell_log_within[cells],
            )
            if powers[-1] != 1.0:
                log_p[-1] *= powers[-1]
            out[part] = log_p.sum(axis=0)
        return out

    def _log_prior_z(self, swing: FloatArray, axis: int = -1) -> FloatArray:
        """Log prior density of swing weights (rows; columns with ``axis=0``) in additive
        log-ratio coordinates (the prior of
        :func:`~tradeoff.learn.swing_prior.swing_log_prior` times the Jacobian Π s_i)."""
        logs = log_sum(swing, axis)  # once: the prior's and the Jacobian's
        out: FloatArray = (
            swing_log_prior(swing, self.spans, self.sparse_share, self.natural_share, axis, logs)
            + logs
        )
        if self.start is not None:
            out = self.start.log_density(swing if axis == 0 else swing.T, out)
        return out

    def _move(
        self,
        swing: FloatArray,
        noise: IntArray,
        records: Sequence[JointRecord],
        rng: np.random.Generator,
        cov: FloatArray,
        power: float = 1.0,
        sweeps: Sequence[float] = MOVE_SWEEPS,
    ) -> tuple[FloatArray, IntArray]:
        """Metropolis–Hastings sweeps (one per step scale of ``sweeps``) that leave the
        posterior of
        ``records`` invariant (the last answer's likelihood raised to ``power``): a random
        walk of the weights' additive log-ratios, then a new value of one noise parameter
        (ε, T or δ, uniform on its grid: a symmetric proposal). Each is accepted by prior ×
        the likelihood of every answer so far."""
        n_part, dim = swing.shape[0], swing.shape[1] - 1
        # Every array below holds one particle per column: the per-particle operations then
        # run along long rows.
        outcomes = np.array([r.outcome for r in records], dtype=np.intp)
        unsure = np.flatnonzero(outcomes == 2)
        # Δ of every answer, each times its sign (an answer "right" is an answer "left"
        # about −Δ): the signs taken once, on the answers' differences.
        diffs = np.array([r.diff for r in records]) * answer_signs(outcomes)[:, None]  # (t, n)
        s_cur = np.ascontiguousarray(swing.T)  # (n, N)
        noise = noise.astype(np.intp, copy=True)
        z = alr_columns(s_cur)
        delta = diffs @ natural_weights(s_cur, self.spans, axis=0)  # (t, N)
        prior_z = self._log_prior_z(s_cur, axis=0)
        prior_g = self.noise_grid.log_prior(noise)
        powers = np.ones(len(records))
        powers[-1] = power
        lik = self._signed_log_likelihood(delta, noise, unsure, powers)
        chol: FloatArray = np.linalg.cholesky(cov + 1e-8 * np.eye(dim)).astype(np.float64)
        shape = self.noise_grid.shape
        sizes = np.asarray(shape)
        # Each cell's (ε, T, δ) indices, looked up (what np.unravel_index gives).
        cell_coords = np.array(np.unravel_index(np.arange(int(np.prod(shape))), shape))
        columns = np.arange(n_part)
        for size in sweeps:
            scale = size * 2.38 / math.sqrt(dim)
            step = chol @ rng.standard_normal((n_part, dim)).T
            z_new = np.clip(z + scale * step, -60, 60)
            s_new = alr_inverse_columns(z_new)
            d_new = diffs @ natural_weights(s_new, self.spans, axis=0)
            p_new = self._log_prior_z(s_new, axis=0)
            l_new = self._signed_log_likelihood(d_new, noise, unsure, powers)
            total = p_new + l_new
            gain = total - (prior_z + lik)
            accept = (np.log(rng.random(n_part)) < gain) & np.isfinite(total)
            np.copyto(z, z_new, where=accept)
            np.copyto(s_cur, s_new, where=accept)
            # Δ has a row per answer: its accepted columns copied by index (a masked copy
            # of many rows costs more than the gather; the same numbers).
            taken = np.flatnonzero(accept)
            delta[:, taken] = d_new[:, taken]
            np.copyto(prior_z, p_new, where=accept)
            np.copyto(lik, l_new, where=accept)
            coords = cell_coords[:, noise]  # (3, N)
            which = rng.integers(0, 3, size=n_part)
            coords[which, columns] = (rng.random(n_part) * sizes[which]).astype(np.intp)
            g_new = (coords[0] * shape[1] + coords[1]) * shape[2] + coords[2]
            pg_new = self.noise_grid.log_prior(g_new)
            l_new = self._signed_log_likelihood(delta, g_new, unsure, powers)
            total = pg_new + l_new
            gain = total - (prior_g + lik)
            accept = (np.log(rng.random(n_part)) < gain) & np.isfinite(total)
            np.copyto(noise, g_new, where=accept)
            np.copyto(prior_g, pg_new, where=accept)
            np.copyto(lik, l_new, where=accept)
        return np.ascontiguousarray(s_cur.T), noise

    def update(self, state: JointState, record: JointRecord, key: int) -> JointState:
        """The state after the answer ``record`` (``key``: the digest of every answer so far,
        :func:`~tradeoff.learn.joint_state.answer_digest`): the particles reweighted by the
        answer's likelihood; when too few would carry the weight, the answer is taken in
        tempered steps L^λ (λ rising to 1, each step as large as keeps the effective sample
        size at ``ESS_FLOOR``), the particles resampled and moved after each."""
        records = (*state.records, record)
        rng = np.random.default_rng([self.seed, len(records), key])
        swing, noise, moves = state.swing, state.noise, state.moves
        log_w = state.log_weights
        n = len(log_w)
        new = self._log_likelihood(natural_weights(swing, self.spans), noise, (record,))
        power = 0.0  # how much of the answer's likelihood the particles carry
        for stage in range(MAX_STAGES + 1):
            rest = 1.0 - power
            if _ess(log_w + rest * new) >= ESS_FLOOR * n:
                log_w = log_w + rest * new
                power = 1.0
                break
            step = rest if stage == MAX_STAGES else _tempered_step(log_w, new, rest)
            weights = _normalised(log_w + step * new)
            power += step
            swing, noise = self._resample_move(
                swing, noise, weights, _normalised(log_w), records, power, rng
            )
            moves += 1
            log_w = np.zeros(n)
            if power >= 1.0:
                break
            new = self._log_likelihood(natural_weights(swing, self.spans), noise, (record,))
        return JointState(records, key, swing, noise, log_w - log_w.max(), moves)

    def _resample_move(
        self,
        swing: FloatArray,
        noise: IntArray,
        weights: FloatArray,
        previous: FloatArray,
        records: Sequence[JointRecord],
        power: float,
        rng: np.random.Generator,
    ) -> tuple[FloatArray, IntArray]:
        """Resample (systematic) by ``weights`` and move with random-walk steps shaped by
        the weighted particles' covariance, the last answer's likelihood raised to
        ``power``. When few particles carry the weight (a surprising answer), their
        covariance says little about the posterior's spread: the steps are shaped by the
        particles' spread before this answer (``previous``, their weights then) and the
        particles move twice as long."""
        z = alr_columns(swing.T).T
        scarce = 1.0 / float(np.sum(weights**2)) < SCARCE * len(weights)
        shape = previous if scarce else weights
        mean = shape @ z
        cov = np.atleast_2d(((z - mean).T * shape) @ (z - mean))
        cov += 1e-4 * np.eye(cov.shape[0])
        chosen = systematic(weights, len(weights), rng)
        sweeps = MOVE_SWEEPS * (2 if scarce else 1)
        return self._move(swing[chosen], noise[chosen], records, rng, cov, power, sweeps)
