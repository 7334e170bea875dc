"""Class-probability populations η(x) from which query classifiers are built.

Paper 004 §5: x ~ N(0, I₁₀), W ~ U[−1.5, 1.5]^{k×10}, η(x) = softmax(Wx), evaluated on n
samples in float64. The paper used n = 10⁷; we default to n = 10⁶ (see the note on
``DEFAULT_SAMPLES`` below). Optionally a bias b is added to the logits, η = softmax(Wx + b),
with b chosen so that the class priors ζ_i = E[η_i(X)] equal requested prevalences.

All quantities are expectations under the empirical distribution of the n samples, so the
restricted Bayes-optimal (RBO) classifiers built on a population are exactly optimal for it
(Proposition 2), which is what makes exact oracles exact.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from tradeoff.arrays import FloatArray
from tradeoff.ask.scenario import PopulationSpec, Scenario
from tradeoff.errors import InputError

# Default sample size (scenario.DEFAULT_SAMPLES = 10⁶; the paper used 10⁷). Table 1 is
# reproduced at two decimals from n = 10⁴ up (benchmarks/population.py), because Algorithm
# 1 only needs ψ(h_m) to be unimodal at query points ε/4 apart. n is set by what people
# see instead: recall shown as "912 of 1,000" must not move with the sample, and the
# sampling error of a class prior or recall is ~0.5/√n, i.e. ±0.5 per 1,000 at n = 10⁶
# (±5 per 1,000 at 10⁴). A 10⁶ population builds in ~0.2 s, a 10⁷ one in ~2.3 s.
_CHUNK = 1 << 17


def _softmax(logits: FloatArray) -> FloatArray:
    z = logits - logits.max(axis=1, keepdims=True)
    np.exp(z, out=z)
    z /= z.sum(axis=1, keepdims=True)
    out: FloatArray = z
    return out


#: What a cache keeps of a population (:meth:`Population.tables`, read back by
#: :meth:`Population.prepared`): η, the priors, and the sorted tables of each pair of classes.
PopulationTables = tuple[
    FloatArray, FloatArray, dict[tuple[int, int], tuple[FloatArray, FloatArray, FloatArray]]
]


@dataclass(frozen=True, eq=False)
class Population:
    """Class probabilities η (n × k, float64) and the priors ζ_i = mean of η_i.

    Parameters
    ----------
    eta
        Row i holds P(Y = j | X = x_i) for each class j; rows sum to 1.
    """

    eta: FloatArray
    _pairs: dict[tuple[int, int], tuple[FloatArray, FloatArray, FloatArray]] = field(
        default_factory=dict, repr=False
    )
    _priors: FloatArray | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.eta.setflags(write=False)

    @classmethod
    def prepared(
        cls,
        eta: FloatArray,
        *,
        priors: FloatArray,
        pairs: dict[tuple[int, int], tuple[FloatArray, FloatArray, FloatArray]],
    ) -> Population:
        """A population whose priors and sorted pair tables were computed before (for
        example memory-mapped from :mod:`tradeoff.study.cache`): reading them touches none of
        ``eta``."""
        priors = np.array(priors, dtype=np.float64)
        priors.setflags(write=False)
        return cls(eta, dict(pairs), priors)

    def tables(self) -> PopulationTables:
        """What :meth:`prepared` takes back, for a cache to keep: η, the priors and the
        sorted tables of every class against the first (:meth:`pair_tables`, built now
        when they were not).

        >>> eta, priors, pairs = softmax_linear(k=3, samples=100, seed=1).tables()
        >>> eta.shape, priors.shape, sorted(pairs)
        ((100, 3), (3,), [(0, 1), (0, 2)])
        """
        return self.eta, self.priors, {(0, j): self.pair_tables(0, j) for j in range(1, self.k)}

    def in_memory(self) -> Population:
        """The same population with every table copied into this process's memory (one
        memory-mapped from a cache entry cannot be sent to another process by its file)."""
        return Population.prepared(
            np.array(self.eta),
            priors=np.array(self.priors),
            pairs={
                key: (np.array(a), np.array(b), np.array(c))
                for key, (a, b, c) in self._pairs.items()
            },
        )

    @property
    def n(self) -> int:
        return int(self.eta.shape[0])

    @property
    def k(self) -> int:
        return int(self.eta.shape[1])

    @property
    def priors(self) -> FloatArray:
        """ζ_i = P(Y = i) = E[η_i(X)], read-only: computed on first use and kept (a mean
        over all n rows; every engine built on the population asks for it)."""
        if self._priors is not None:
            return self._priors
        priors: FloatArray = self.eta.mean(axis=0)
        priors.setflags(write=False)
        object.__setattr__(self, "_priors", priors)  # frozen: set once, like the pair tables
        return priors

    def pair_tables(self, i: int, j: int) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Sorted ratios ρ = η_j/η_i and prefix sums of η_i, η_j in that order (cached):
        the RBO classifier for any m is one binary search in them."""
        key = (i, j)
        if key not in self._pairs:
            ei, ej = self.eta[:, i], self.eta[:, j]
            with np.errstate(divide="ignore", invalid="ignore"):
                rho = ej / ei
            rho[(ei == 0) & (ej == 0)] = 0.0
            order = np.argsort(rho, kind="stable")
            rho_sorted = rho[order]
            cs_i = np.concatenate(([0.0], np.cumsum(ei[order])))
            cs_j = np.concatenate(([0.0], np.cumsum(ej[order])))
            self._pairs[key] = (rho_sorted, cs_i, cs_j)
        return self._pairs[key]

    def rbo_accuracies(self, i: int, j: int, m: float) -> tuple[float, float]:
        """Diagonal confusions (d_i, d_j) of the RBO classifier for weights m·e_i + (1−m)·e_j.

        Proposition 2 (paper 004 §4.2.1): predict i where m·η_i(x) ≥ (1−m)·η_j(x), else j.

        Parameters
        ----------
        i, j
            Distinct class indices.
        m
            Weight on class i, in [0, 1].

        Returns
        -------
        tuple of float
            d_i = P(Y = i, h = i) and d_j = P(Y = j, h = j).
        """
        if not 0.0 <= m <= 1.0:
            raise ValueError(f"m must lie in [0, 1], got {m}")
        rho, cs_i, cs_j = self.pair_tables(i, j)
        t = np.inf if m == 1.0 else m / (1.0 - m)
        cut = int(np.searchsorted(rho, t, side="right"))
        n = self.n
        return float(cs_i[cut] / n), float((cs_j[-1] - cs_j[cut]) / n)


def softmax_linear(
    *,
    k: int,
    samples: int,
    features: int = 10,
    seed: int,
    weight_range: float = 1.5,
    prevalence: tuple[float, ...] | None = None,
) -> Population:
    """The synthetic population of paper 004 §5.

    Parameters
    ----------
    k
        Number of classes.
    samples
        Number of samples n.
    features
        Dimension of x (10 in the paper).
    seed
        Seed for numpy's PCG64 generator; the same seed gives the same population.
    weight_range
        W is drawn from U[−weight_range, weight_range] (1.5 in the paper).
    prevalence
        If given, class priors to honour: a logit bias b is fitted by Newton's method on
        ζ(b) = π (Jacobian diag(ζ) − E[ηηᵀ]) until every ζ_i matches π_i to 1e-10.

    Examples
    --------
    >>> pop = softmax_linear(k=2, samples=10_000, seed=1, prevalence=(0.1, 0.9))
    >>> pop.priors.round(6).tolist()
    [0.1, 0.9]
    """
    rng = np.random.default_rng(seed)
    w = rng.uniform(-weight_range, weight_range, size=(k, features))
    logits = np.empty((samples, k), dtype=np.float64)
    for start in range(0, samples, _CHUNK):
        stop = min(start + _CHUNK, samples)
        x = rng.standard_normal((stop - start, features))
        logits[start:stop] = x @ w.T
    if prevalence is None:
        return Population(_softmax(logits))
    target = np.asarray(prevalence, dtype=np.float64)
    bias = np.zeros(k)
    for _ in range(100):
        eta = _softmax(logits + bias)
        zeta = eta.mean(axis=0)
        if np.max(np.abs(zeta - target)) < 1e-10:
            return Population(eta)
        # Newton step on ζ(b) = π with Jacobian J = diag(ζ) − E[η ηᵀ] (singular along the
        # shift b + c·1, so solved in the least-squares sense).
        jac = np.diag(zeta) - (eta.T @ eta) / eta.shape[0]
        step = np.linalg.lstsq(jac, target - zeta, rcond=1e-9)[0]
        bias += np.clip(step, -5.0, 5.0)
        bias -= bias.mean()
    raise RuntimeError("prevalence fit did not converge")  # pragma: no cover


def from_probabilities(path: str | Path, class_names: tuple[str, ...]) -> Population:
    """Read a population of predicted class probabilities from a CSV file.

    The file has one column per class, named like the scenario's classes; each row is one
    sample's probabilities (non-negative, summing to 1 within 1e-6).
    """
    import pandas as pd

    p = Path(path)
    try:
        frame = pd.read_csv(p)
    except (OSError, ValueError) as exc:
        raise InputError.single(
            p, "", f"cannot read probabilities: {exc}.", "give a CSV file."
        ) from None
    missing = [c for c in class_names if c not in frame.columns]
    if missing:
        raise InputError.single(
            p, "header", f"missing class columns {missing}.", "add one column per class."
        )
    if len(frame) < 2:
        raise InputError.single(
            p, "", f"holds {len(frame)} rows of probabilities.", "give one row per sample."
        )
    eta = np.column_stack(
        [pd.to_numeric(frame[c], errors="coerce").to_numpy(dtype=np.float64) for c in class_names]
    )
    bad = ~np.isfinite(eta).all(axis=1) | (eta < 0).any(axis=1)
    bad |= np.abs(eta.sum(axis=1) - 1) > 1e-6
    if bad.any():
        rows = (np.flatnonzero(bad)[:5] + 2).tolist()
        raise InputError.single(
            p,
            f"rows {rows}" + (" …" if bad.sum() > 5 else ""),
            f"{int(bad.sum())} rows are not probability vectors.",
            "each row must hold non-negative finite numbers summing to 1.",
        )
    return Population(np.ascontiguousarray(eta))


def build_population(spec: PopulationSpec, class_names: tuple[str, ...]) -> Population:
    """The population a scenario describes, built once per process (populations are
    immutable); a probability file is read again when it changed (its inode, modification
    time or size), never answered from what an earlier version of it held."""
    stamp = None
    if spec.kind == "probabilities" and spec.path is not None:
        try:
            st = os.stat(spec.path)
            stamp = (st.st_ino, st.st_mtime_ns, st.st_size)
        except OSError:
            pass  # reading it reports why
    return _built(spec, class_names, stamp)


@lru_cache(maxsize=8)
def _built(
    spec: PopulationSpec, class_names: tuple[str, ...], stamp: tuple[int, int, int] | None
) -> Population:
    return make_population(spec, class_names)


def make_population(spec: PopulationSpec, class_names: tuple[str, ...]) -> Population:
    """The population a scenario describes, built now (:func:`build_population` keeps it)."""
    if spec.kind == "probabilities":
        assert spec.path is not None
        return from_probabilities(spec.path, class_names)
    return softmax_linear(
        k=len(class_names),
        samples=spec.samples,
        features=spec.features,
        seed=0 if spec.seed is None else spec.seed,
        weight_range=spec.weight_range,
        prevalence=spec.prevalence,
    )


#: Where a caller's populations come from: a scenario → its population (memory-mapped from
#: a cache, say: :func:`tradeoff.study.cache.command_population`). The steps that replay
#: sessions take one, so that they look nothing up themselves.
PopulationSource = Callable[[Scenario], Population]


#: The population of a scenario without classes (options described by their attributes
#: alone): no class probabilities, so no priors and no class questions.
NO_CLASSES = Population(np.zeros((1, 0), dtype=np.float64))


def scenario_population(scenario: Scenario) -> Population:
    """The population of a scenario's ``[population]`` (built once per process, cached);
    :data:`NO_CLASSES` for a scenario whose options are described by their attributes
    alone."""
    if scenario.population is None:
        return NO_CLASSES
    return build_population(scenario.population, tuple(c.name for c in scenario.classes))


def scenario_priors(scenario: Scenario) -> tuple[float, ...]:
    """The class priors ζ of a scenario's population (prefer an ElicitationResult's
    ``priors`` where there is one: it needs no population)."""
    return tuple(float(z) for z in scenario_population(scenario).priors)
