"""A plain numpy implementation of ``tradeoff rank POOL --sweep M`` (p = ∞), for comparison.

What someone would write from paper 000 without the project: read the Parquet file with
pandas, turn every objective into its rank-based CDF û (eq. 10, ties share the minimum
rank) with one argsort per column, keep the models that can win for some α, and pick for
every α the model minimising ‖ω(α) ⊙ û‖_∞ (eqs. 11-12, ω(α) = [α/g, …, (1 − α)/(K − g), …]
for a group of g objectives). It follows the project's tie rule, so that the picks are the
same: scores within a relative 1e-9 of the best tie, then the lower Σ_k û_k, then the
earlier row.

:mod:`benchmarks.copa` times it against the project's own ``tradeoff rank`` path in the
same run; ``tests/pool/test_copa_reference.py`` checks that both pick the same models.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

TIE = 1e-9  # the project's tie tolerance (relative): scores closer than this are equal


def rank_cdf(y: np.ndarray) -> np.ndarray:
    """û of every column (eq. 10): the share of models with a strictly smaller value."""
    n, k = y.shape
    u = np.empty((n, k))
    for c in range(k):
        order = np.argsort(y[:, c])
        ordered = y[order, c]
        u[order, c] = np.searchsorted(ordered, ordered, side="left") / n  # ties: first position
    return u


def sweep_picks(
    u: np.ndarray, group: Sequence[int], alphas: np.ndarray, names: np.ndarray | None = None
) -> np.ndarray:
    """The row (or name) picked for every α at p = ∞, with α on the objectives ``group``."""
    k = u.shape[1]
    rest = [c for c in range(k) if c not in group]
    g = len(group)
    # ‖ω(α) ⊙ û‖_∞ = max(α/g · a, (1 − α)/(K − g) · b), a and b the largest û of each part.
    a, b = u[:, group].max(axis=1), u[:, rest].max(axis=1)
    # Prefilter: a model worse than another on both a and b scores higher for every α, so
    # it never wins. (The project would call the two tied if their scores came within 1e-9,
    # which takes α or 1 − α below about 1e-9·n; its own prefilter allows for that, this
    # one does not, and benchmarks.copa checks that both pick the same models.)
    order = np.argsort(a, kind="stable")
    a_s, b_s = a[order], b[order]
    lowest_b = np.minimum.accumulate(b_s)
    first = np.searchsorted(a_s, a_s, side="left")  # first model with the same a
    beaten = (first > 0) & (lowest_b[np.maximum(first - 1, 0)] < b_s)
    keep = order[~beaten]
    keep = keep[np.lexsort((keep, u[keep].sum(axis=1)))]  # tie order: Σû, then row
    wa, wb = alphas[:, None] / g, (1 - alphas[:, None]) / (k - g)
    scores = np.maximum(wa * a[keep], wb * b[keep])  # one row per α
    best = scores.min(axis=1, keepdims=True)
    near = scores - best <= TIE * np.maximum(1.0, np.abs(best))
    picks = keep[np.argmax(near, axis=1)]  # the first in tie order among the (near) best
    return picks if names is None else names[picks]


def rank_sweep(
    path: str | Path,
    objectives: Sequence[str],
    group: Sequence[int],
    alphas: np.ndarray,
    name_column: str = "model",
) -> np.ndarray:
    """Read, û, prefilter and sweep: the name picked for every α (objectives minimised)."""
    frame = pd.read_parquet(path, columns=[name_column, *objectives])
    y = frame[list(objectives)].to_numpy(dtype=np.float64)
    return sweep_picks(rank_cdf(y), group, alphas, frame[name_column].to_numpy())
