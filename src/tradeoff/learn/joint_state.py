"""The answers strategy `joint` has heard and the particles they led to: one answer as
the posterior sees it (:class:`JointRecord`), the immutable state (:class:`JointState`: an
undo is the previous one) and the digest of every answer so far that seeds each step's
random numbers (:func:`answer_digest`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

from tradeoff.arrays import FloatArray, IntArray
from tradeoff.ask.queries import Query, profile_key
from tradeoff.ask.shown import ShownKey
from tradeoff.learn.base import Choice

__all__ = ["JointRecord", "JointState", "answer_digest"]


@dataclass(frozen=True)
class JointRecord:
    """One answer as the posterior sees it.

    ``diff`` is v(left) − v(right) of the options as shown (the statistics ψ is linear in),
    ``outcome`` 0 (left), 1 (right) or 2 (can't tell). ``kind`` is "trade" or
    "candidates"; a trade records its two statistics ``pair`` and exchange rate
    ``threshold`` (m = w_ref / (w_ref + w_other)), a pair of candidates their indices.
    """

    diff: tuple[float, ...]
    outcome: int
    kind: str
    shown: ShownKey
    pair: tuple[int, int] | None = None
    threshold: float | None = None
    candidates: tuple[int, int] | None = None
    repeat_of: int | None = None
    #: Per statistic, whether the two options' card lines for it read differently (the
    #: answer could say something about its weight; :func:`~tradeoff.learn.base.asked_aspects`).
    differs: tuple[bool, ...] = ()


@dataclass(frozen=True)
class JointState:
    """The answers so far (equality and hashing) and the particles they led to."""

    records: tuple[JointRecord, ...] = ()
    #: Digest of every answer so far (both options as shown and the choice).
    key: int = 0
    swing: FloatArray = field(default_factory=lambda: np.empty((0, 0)), compare=False, repr=False)
    noise: IntArray = field(
        default_factory=lambda: np.empty(0, dtype=np.intp), compare=False, repr=False
    )
    log_weights: FloatArray = field(default_factory=lambda: np.empty(0), compare=False, repr=False)
    #: How many times the particles were resampled and moved.
    moves: int = field(default=0, compare=False)

    def __hash__(self) -> int:
        """The digest of every answer (equal states have equal digests): the summaries and
        verdicts kept per state look a state up without hashing each of its records."""
        return hash(self.key)

    @property
    def answered(self) -> int:
        return len(self.records)

    def weights(self) -> FloatArray:
        """The particles' normalised weights."""
        w = np.exp(self.log_weights - self.log_weights.max())
        out: FloatArray = w / w.sum()
        return out


def answer_digest(previous: int, query: Query, choice: Choice) -> int:
    """The digest of the answers so far after ``choice`` to ``query``: both options'
    values at :data:`~tradeoff.stable.DIGITS` significant digits (the same on every machine,
    whatever its last bits; :func:`~tradeoff.stable.canonical`) and the choice."""
    h = hashlib.blake2b(digest_size=8)
    h.update(previous.to_bytes(8, "little"))
    for profile in (query.left, query.right):
        h.update(profile_key(profile).encode())
    h.update(choice.value.encode())
    return int.from_bytes(h.digest(), "little")
