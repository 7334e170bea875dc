"""Whether a settled pick rests on one answer (:func:`holding_up`): the prior's draws
weighed by every answer but one, for each answer in turn, through the engine's answer
model at a noise as high as the posterior allows (:func:`noisy_end`). Strategy `joint`
asks on about the aspects of an answer the pick rests on before it stops
(:meth:`~tradeoff.learn.joint.JointStrategy.on_one_answer`): with one answer in five
reversed, a pick that one answer about the deciding aspect settles is wrong as often, and
two answers that each settle it on their own agree on it. How many answers an aspect needs
that agree (:func:`agreeing`) grows with how often the posterior finds the person's answers
reversed (:func:`agreeing_needed`): two that agree are both reversed too often for a
person who reverses one answer in five.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tradeoff.arrays import BoolArray, FloatArray, IntArray
from tradeoff.learn.joint_state import JointRecord
from tradeoff.learn.likelihood import answer_log_likelihoods, answer_signs
from tradeoff.learn.particles import NOISE_TAIL
from tradeoff.stable import settled, stable_argmax_rows

__all__ = [
    "AGREEING_ANSWERS",
    "FLOOR",
    "HOLD_DROP",
    "MOST_AGREEING",
    "REFERENCE_DRAWS",
    "STUDY_AGREEING_ANSWERS",
    "agreeing",
    "agreeing_needed",
    "holding_up",
    "noisy_end",
]

#: Draws of the swing-weight prior that weigh the answers again without one of them
#: (:func:`holding_up`): the particles, moved to where every answer points, hold too
#: little of the rest to say what the pick would be without one.
REFERENCE_DRAWS = 20_000
#: An answer holds the pick up when, without it, the pick's probability of being best
#: falls below the confidence asked for and by at least this much.
HOLD_DROP = 0.05
#: The least probability an answer is given under the answer model in :func:`holding_up`
#: (a "can't tell" from a person whose band is 0 would otherwise weigh −∞).
FLOOR = 1e-12


def noisy_end(values: FloatArray, weights: FloatArray, share: float = NOISE_TAIL) -> float:
    """The mean of ``values`` over the upper ``share`` of their weighted distribution (the
    value on the boundary in part): a noise parameter as high as the posterior allows, as
    :meth:`~tradeoff.learn.particles.ParticlePosterior.robust_weights` weighs it up.

    >>> round(noisy_end(np.array([0.0, 0.1, 0.2, 0.4]), np.full(4, 0.25), 0.5), 12)
    0.3
    >>> round(noisy_end(np.array([0.0, 0.4]), np.array([0.9, 0.1]), 0.25), 12)
    0.16
    """
    order = np.argsort(-values, kind="stable")
    w = weights[order] / weights.sum()
    above = np.cumsum(w) - w  # mass strictly before each value
    part = np.clip(share - above, 0.0, w)
    return float(part @ values[order] / part.sum())


def holding_up(
    records: Sequence[JointRecord],
    natural: FloatArray,
    front: FloatArray,
    pick: int,
    noise: tuple[float, float, float],
    confidence: float,
    best: IntArray | None = None,
) -> BoolArray:
    """Per answer, whether the pick rests on it: weighing the prior draws ``natural``
    (rows of natural-unit weights) by every answer but that one, through the engine's
    answer model (:func:`~tradeoff.learn.likelihood.answer_log_likelihoods`: a lapse ε, a
    logistic temperature T and a "can't tell" band δ, ``noise``; :func:`noisy_end` of the
    posterior's: the answers as noisy as the posterior allows), the probability that
    ``pick`` (a row of ``front``) is the best candidate falls below ``confidence``, and by
    at least ``HOLD_DROP`` below its probability with every answer.

    A lapse-only model at the posterior's mean ε overstates what one answer says: an answer
    close to the deciding comparison is the one a graded slip reverses most often, and a
    person who slips one answer in five looks careful after a few answers that agree.
    ``best``: each draw's best row of ``front`` (:func:`~tradeoff.stable.stable_argmax_rows`
    of ``natural @ front.T``), when the caller keeps it (it depends on neither the answers
    nor the pick).

    >>> from tradeoff.learn.joint_state import JointRecord
    >>> draws = np.array([[a, 1 - a] for a in np.linspace(0.01, 0.99, 99)])
    >>> front = np.array([[1.0, 0.0], [0.0, 1.0]])  # the first best while a > 0.5
    >>> r = [JointRecord((1.0, -1.0), 0, "trade", ())]  # "left": a > 0.5
    >>> holding_up(r, draws, front, 0, (0.05, 0.0, 0.0), 0.95).tolist()
    [True]
    >>> holding_up(r + r, draws, front, 0, (0.05, 0.0, 0.0), 0.95).tolist()  # each suffices
    [False, False]
    >>> holding_up(r + r, draws, front, 0, (0.4, 0.0, 0.0), 0.95).tolist()  # one in five slips
    [True, True]
    """
    out = np.zeros(len(records), dtype=bool)
    if not records:
        return out
    delta = np.array([r.diff for r in records]) @ natural.T  # (answers, draws)
    outcome = np.array([r.outcome for r in records], dtype=np.intp)
    each = tuple(np.full(len(natural), x) for x in noise)
    log_p = np.maximum(answer_log_likelihoods(delta, outcome, *each), np.log(FLOOR))
    total: FloatArray = np.sum(log_p, axis=0)
    if best is None:
        best = stable_argmax_rows(natural @ front.T)
    is_pick = (best == pick).astype(np.float64)

    def p_pick(log_w: FloatArray) -> float:
        w = np.exp(log_w - log_w.max())
        return float(w @ is_pick / w.sum())

    p_all = p_pick(total)
    for i in range(len(records)):
        p_i = p_pick(total - log_p[i])
        out[i] = settled(p_i) < confidence and settled(p_all - p_i) >= HOLD_DROP
    return out


#: Answers that showed two options differing on an aspect, each agreeing with the
#: posterior, before a settled pick may turn on that aspect (:func:`agreeing`).
AGREEING_ANSWERS = 2
#: The same with a study's population prior (sessions recorded before it asked
#: ``AGREEING_ANSWERS``; the header says which, :class:`~tradeoff.record.records.PriorRecord`).
#: One answer the posterior agrees with is enough there because :func:`holding_up` weighs
#: the answers under the pooled prior: for a person like the majority, the prior already
#: points where their answer does, so the pick does not rest on it; for a person unlike
#: them, leaving out their one answer lets the prior pull the pick back to the majority's,
#: the answer holds the pick up, and the aspect is asked about again.
STUDY_AGREEING_ANSWERS = 1
#: The most agreeing answers :func:`agreeing_needed` asks for on an aspect (a person who
#: answers at random never reaches a confident stop anyway).
MOST_AGREEING = 4


def agreeing_needed(lapse: float, confidence: float, least: int = AGREEING_ANSWERS) -> int:
    """How many more agreeing answers than overruled ones (:func:`agreeing`) an aspect the
    pick turns on needs before a stop at ``confidence``, for a person who gives a random
    answer a share ``lapse`` of the time (so reverses a share ε = ``lapse`` / 2: the
    posterior's lapse at its noisy end, :func:`noisy_end`): the fewest k ≥ ``least`` for
    which k answers that agree, all reversed, are at most 1 − ``confidence`` as likely as
    all right or all reversed (ρ^k / (1 + ρ^k), ρ = ε / (1 − ε)), at most ``MOST_AGREEING``.

    Two answers that agree are both reversed 1 time in 17 for a person who reverses one
    in five (0.04 against 0.64), too often for a stop at 0.95; three, 1 time in 65. The
    ratio is compared as :func:`~tradeoff.stable.settled` rounds it, so the count does not
    hinge on a lapse's last bits.

    >>> agreeing_needed(0.0, 0.95), agreeing_needed(0.2, 0.95), agreeing_needed(0.4, 0.95)
    (2, 2, 3)
    >>> agreeing_needed(0.6, 0.95), agreeing_needed(1.0, 0.95), agreeing_needed(0.0, 0.95, 1)
    (4, 4, 1)
    """
    eps = min(max(lapse, 0.0), 1.0) / 2
    rho = eps / (1.0 - eps)
    k = least
    while k < MOST_AGREEING and settled(rho**k / (1.0 + rho**k)) > settled(1.0 - confidence):
        k += 1
    return k


def agreeing(records: Sequence[JointRecord], natural: FloatArray, weights: FloatArray) -> IntArray:
    """Per statistic, how many more answers that showed two options whose card lines for it
    read differently chose the side that is the better one for more than half of the
    posterior (particles ``natural``, weighted ``weights``: answers it agrees with, so with
    each other) than chose the other (answers it overrules: one of the two is a slip). A
    "can't tell" counts for neither.

    >>> from tradeoff.learn.joint_state import JointRecord
    >>> a, w = np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([0.7, 0.3])
    >>> r = [JointRecord((1.0, -1.0), o, "trade", (), differs=(True, o == 0)) for o in (0, 0, 1, 2)]
    >>> agreeing(r, a, w).tolist()  # two agreed, one overruled on the first; two on the second
    [1, 2]
    """
    n = natural.shape[1]
    out = np.zeros(n, dtype=np.intp)
    sided = [r for r in records if r.outcome != 2]
    if not sided:
        return out
    delta = np.array([r.diff for r in sided]) @ natural.T  # (answers, particles)
    sign = answer_signs(np.array([r.outcome for r in sided], dtype=np.intp))
    share = (sign[:, None] * delta > 0).astype(np.float64) @ weights
    for r, x in zip(sided, share, strict=True):
        out += (1 if settled(float(x)) > 0.5 else -1) * np.asarray(r.differs, dtype=np.intp)
    return out
