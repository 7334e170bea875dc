"""What the posterior of strategy `joint` says of the pick, and the one rule for saying it
practically tied: the pick is best or practically tied with the confidence asked for, and
others may beat it by less than the person's perceivable margin (holding at least
``TIE_SHARE`` of the posterior together when the pick alone is not settled as best; any of
them, when it is: answers cannot tell such models apart) (:func:`said_tied`,
:func:`tied_with`, :class:`Verdict`). The decide step (:mod:`tradeoff.choose.recommend`)
states its pick by the same rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tradeoff.arrays import FloatArray
from tradeoff.stable import settled, stable_order
from tradeoff.text import ENGLISH, N_, YOU, Voice, Words, and_list

__all__ = ["TIE_MENTION", "TIE_SHARE", "Verdict", "one_answer_words", "said_tied", "tied_with"]


#: A candidate that is best, by less than the person's perceivable margin over the pick,
#: for at least this share of the posterior is one the pick may be practically tied with.
TIE_MENTION = 0.01
#: A pick not settled as best is said to be practically tied when the candidates that may
#: beat it by less than the margin hold at least this share of the posterior together.
TIE_SHARE = 0.05


def said_tied(p_best: float, p_near: float, others: bool, confidence: float) -> bool:
    """Whether a pick with P(best) ``p_best`` and P(best or practically tied) ``p_near``
    is said to be practically tied: best or practically tied with the best with the
    ``confidence`` asked for, other models (``others``: each best, by less than the
    person's perceivable margin over the pick, for at least ``TIE_MENTION`` of the
    posterior) that may beat it, and either the pick is not best with that confidence
    while those others hold at least ``TIE_SHARE`` together, or it is: the answers cannot
    tell models within the margin apart, so a P(best) that counts them as beaten rests on
    the prior there, and a pick one of them beats by less than the margin is right only as
    practically tied. (A pick that is neither is said with its P(best): a tie that is itself
    unsure is no news to a person.)

    >>> said_tied(0.90, 0.97, True, 0.95), said_tied(0.96, 0.99, True, 0.95)
    (True, True)
    >>> said_tied(0.96, 0.99, False, 0.95), said_tied(0.42, 0.51, True, 0.95)
    (False, False)
    """
    if not others or settled(p_near) < confidence:
        return False
    return settled(p_best) >= confidence or settled(p_near - p_best) >= TIE_SHARE


def tied_with(near: FloatArray, pick: int) -> list[int]:
    """The candidates the pick may be practically tied with: each best, by less than the
    margin over the pick, for at least ``TIE_MENTION`` of the posterior (``near``,
    :func:`~tradeoff.learn.particles.near_best`), most likely first (ties: the earlier).

    >>> tied_with(np.array([0.8, 0.005, 0.15, 0.03]), 0)
    [2, 3]
    """
    others = np.array(
        [i for i, x in enumerate(near) if i != pick and settled(float(x)) >= TIE_MENTION],
        dtype=np.intp,
    )
    return [int(i) for i in others[stable_order(-near[others])]]


@dataclass(frozen=True)
class Verdict:
    """What the posterior says of the pick (:meth:`~tradeoff.learn.joint.JointStrategy.verdict`).

    ``pick`` indexes the candidates; ``p_best`` is P(it is best); ``p_near`` P(it is best or
    practically tied with the best: within the person's perceivable margin,
    :func:`~tradeoff.learn.particles.perceivable_margin`); ``tied`` the other candidates
    that may be better by less than that margin (each with at least ``TIE_MENTION`` of the
    posterior), most likely first. ``practically_tied`` says whether the pick is to be
    stated as practically tied (:func:`said_tied`): then the stated
    probability (:attr:`stated`) is ``p_near`` and the words name ``tied``; else it is
    ``p_best``. ``regret`` is the pick's expected regret as a share of the metric's spread.
    """

    pick: int
    p_best: float
    p_near: float
    regret: float
    tied: tuple[int, ...]

    #: The confidence the stop asks for (``decision_confidence``).
    confidence: float = 0.95
    #: The aspects (statistics) the candidates still possibly best differ on that fewer
    #: answers the posterior agrees with showed than the person's answers need
    #: (:meth:`~tradeoff.learn.joint.JointStrategy.on_one_answer`), or that an answer
    #: alone holds up: slips there may have made the pick.
    one_answer: tuple[int, ...] = ()
    #: Of :attr:`one_answer`, the aspects no question asked about or fewer than two answers
    #: the posterior agrees with showed (what "fewer than two of your answers settle" says).
    thin: tuple[int, ...] = ()
    #: Of :attr:`one_answer`, the aspects two or more answers the posterior agrees with
    #: showed, but fewer than :attr:`agreeing`: a person whose answers are reversed often
    #: may have reversed them all.
    unsure: tuple[int, ...] = ()
    #: Each answer that alone holds the pick up (without it the pick would not be settled),
    #: as the aspects its two options differ on: the rest of :attr:`one_answer`.
    held: tuple[tuple[int, ...], ...] = ()
    #: The agreeing answers asked for on every aspect the pick turns on
    #: (:func:`~tradeoff.learn.corroboration.agreeing_needed`; 2 unless the person's
    #: answers are reversed often).
    agreeing: int = 2
    #: With a measurement noise, the candidate of highest expected ψ at the measured
    #: numbers and its P(best), when it is not the pick (the likeliest best once the noise
    #: is counted); ``None`` otherwise.
    measured_best: tuple[int, float] | None = None

    @property
    def practically_tied(self) -> bool:
        """Whether the pick is said to be practically tied (:func:`said_tied`)."""
        return said_tied(self.p_best, self.p_near, bool(self.tied), self.confidence)

    @property
    def stated(self) -> float:
        """The probability said to the person and compared with the stop's confidence."""
        return self.p_near if self.practically_tied else self.p_best

    def rests_words(self, names: Sequence[str], voice: Voice = YOU, words: Words = ENGLISH) -> str:
        """:func:`one_answer_words` for this verdict, its aspects named by ``names`` (one
        per statistic): what the app, ``session show`` and the study page say beside a pick
        that rests on too few answers ("" when it does not)."""
        if not self.one_answer:
            return ""
        return one_answer_words(
            [names[j] for j in self.thin],
            [[names[j] for j in held] for held in self.held],
            len(names),
            voice,
            words,
            [names[j] for j in self.unsure],
            self.agreeing,
        )


def one_answer_words(
    aspects: Sequence[str],
    held: Sequence[Sequence[str]] = (),
    every: int = 0,
    voice: Voice = YOU,
    words: Words = ENGLISH,
    unsure: Sequence[str] = (),
    need: int = 2,
) -> str:
    """What is said beside a pick that rests on too few answers ("" for nothing): the
    aspects fewer than two answers settle (:attr:`~tradeoff.learn.verdict.Verdict.thin`,
    named), those two or more but fewer than ``need`` settle for a person whose answers are
    reversed often (``unsure``, :attr:`~tradeoff.learn.verdict.Verdict.unsure`), and the
    answers that each alone hold the pick up
    (:attr:`~tradeoff.learn.verdict.Verdict.held`, each as the aspects its options differ
    on, named unless they are all ``every`` aspects). ``voice``: whose answers; ``words``:
    the language (the app, ``session show`` and the study page say it alike).

    >>> import textwrap
    >>> print(textwrap.fill(one_answer_words(["latency"]), 80))
    The pick turns on latency, which fewer than two of your answers settle: a single
    slip there could change it.
    >>> one_answer_words(["latency", "memory", "benign"])[:45]
    'The pick turns on latency, memory and benign,'
    >>> print(textwrap.fill(one_answer_words([], [["CO2", "MATH"]], 5), 80))
    One of your answers (about CO2 and MATH) alone holds the pick up: were it a
    slip, the pick could change.
    >>> print(textwrap.fill(one_answer_words([], [["a", "b"], ["a", "b"]], 2, Voice("x")), 80))
    2 of their answers each alone hold the pick up: were any of them a slip, the
    pick could change.
    >>> print(textwrap.fill(one_answer_words([], unsure=["latency"], need=3), 80))
    Some of your answers contradict others, and the pick turns on latency, which
    fewer than 3 of your answers settle: were those few all slips, the pick could
    change.
    """
    said = []
    if aspects:
        said.append(
            voice.say(
                N_(
                    "The pick turns on %(aspects)s, which fewer than two of your answers "
                    "settle: a single slip there could change it."
                ),
                words,
            )
            % {"aspects": and_list(aspects, words)}
        )
    if unsure:
        said.append(
            voice.say(
                N_(
                    "Some of your answers contradict others, and the pick turns on "
                    "%(aspects)s, which fewer than %(n)s of your answers settle: were those "
                    "few all slips, the pick could change."
                ),
                words,
            )
            % {"aspects": and_list(unsure, words), "n": need}
        )
    if len(held) > 1:
        said.append(
            voice.say(
                N_(
                    "%(n)s of your answers each alone hold the pick up: were any of them a "
                    "slip, the pick could change."
                ),
                words,
            )
            % {"n": len(held)}
        )
    elif held and len(held[0]) < every:  # a trade: its aspects named
        said.append(
            voice.say(
                N_(
                    "One of your answers (about %(aspects)s) alone holds the pick up: were it "
                    "a slip, the pick could change."
                ),
                words,
            )
            % {"aspects": and_list(held[0], words)}
        )
    elif held:
        said.append(
            voice.say(
                N_(
                    "One of your answers alone holds the pick up: were it a slip, the pick "
                    "could change."
                ),
                words,
            )
        )
    return " ".join(said)
