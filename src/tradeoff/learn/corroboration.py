"""Whether a settled pick rests on one answer (:func:`holding_up`): the prior's draws
weighed by every answer but one, for each answer in turn. Strategy `joint` asks on about the
aspects of an answer the pick rests on before it stops
(:meth:`~tradeoff.learn.joint.JointStrategy.on_one_answer`): with one answer in five
reversed, a pick that one answer about the deciding aspect settles is wrong as often, and
two answers that each settle it on their own agree on it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tradeoff.arrays import BoolArray, FloatArray, IntArray
from tradeoff.learn.joint_state import JointRecord
from tradeoff.learn.likelihood import answer_signs
from tradeoff.stable import settled, stable_argmax_rows

__all__ = ["AGREEING_ANSWERS", "HOLD_DROP", "REFERENCE_DRAWS", "agreeing", "holding_up"]

#: Draws of the swing-weight prior that weigh the answers again without one of them
#: (:func:`holding_up`): the particles, moved to where every answer points, hold too
#: little of the rest to say what the pick would be without one.
REFERENCE_DRAWS = 20_000
#: An answer holds the pick up when, without it, the pick's probability of being best
#: falls below the confidence asked for and by at least this much.
HOLD_DROP = 0.05


def holding_up(
    records: Sequence[JointRecord],
    natural: FloatArray,
    front: FloatArray,
    pick: int,
    lapse: float,
    confidence: float,
    best: IntArray | None = None,
) -> BoolArray:
    """Per answer, whether the pick rests on it: weighing the prior draws ``natural``
    (rows of natural-unit weights) by every answer but that one, each left or right
    answer given with probability ε/2 + (1 − ε)·[its side is the better one] at the
    posterior's lapse rate ε (``lapse``; a "can't tell" weighs nothing here), the
    probability that ``pick`` (a row of ``front``) is the best candidate falls below
    ``confidence``, and by at least ``HOLD_DROP`` below its probability with every answer.
    ``best``: each draw's best row of ``front`` (:func:`~tradeoff.stable.stable_argmax_rows`
    of ``natural @ front.T``), when the caller keeps it (it depends on neither the answers
    nor the pick).

    >>> from tradeoff.learn.joint_state import JointRecord
    >>> draws = np.array([[a, 1 - a] for a in np.linspace(0.01, 0.99, 99)])
    >>> front = np.array([[1.0, 0.0], [0.0, 1.0]])  # the first best while a > 0.5
    >>> r = [JointRecord((1.0, -1.0), 0, "trade", ())]  # "left": a > 0.5
    >>> holding_up(r, draws, front, 0, 0.05, 0.95).tolist()
    [True]
    >>> holding_up(r + r, draws, front, 0, 0.05, 0.95).tolist()  # each alone suffices
    [False, False]
    """
    out = np.zeros(len(records), dtype=bool)
    sided = [i for i, r in enumerate(records) if r.outcome != 2]
    if not sided:
        return out
    delta = np.array([records[i].diff for i in sided]) @ natural.T  # (answers, draws)
    sign = answer_signs(np.array([records[i].outcome for i in sided], dtype=np.intp))
    agree = sign[:, None] * delta > 0
    hit, miss = np.log(1.0 - lapse / 2), np.log(max(lapse, 1e-6) / 2)
    log_p = np.where(agree, hit, miss)
    total: FloatArray = np.sum(log_p, axis=0)
    if best is None:
        best = stable_argmax_rows(natural @ front.T)
    is_pick = (best == pick).astype(np.float64)

    def p_pick(log_w: FloatArray) -> float:
        w = np.exp(log_w - log_w.max())
        return float(w @ is_pick / w.sum())

    p_all = p_pick(total)
    for row, i in enumerate(sided):
        p = p_pick(total - log_p[row])
        out[i] = settled(p) < confidence and settled(p_all - p) >= HOLD_DROP
    return out


#: Answers that showed two options differing on an aspect, each agreeing with the
#: posterior, before a settled pick may turn on that aspect (:func:`agreeing`).
AGREEING_ANSWERS = 2


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
