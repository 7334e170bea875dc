"""What a session holds besides its answers, as a page needs it to know what comes next:
the attention checks already shown (by the question they came before) and the consent
versions agreed to (the first line's, then each given again).

:class:`~tradeoff.record.recorder.Recorder` keeps them as it writes; :meth:`Marks.of` reads
them from a session file.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tradeoff.record.log import SessionLog


@dataclass(frozen=True)
class Marks:
    """Checks shown (the positions: before question N) and consent versions agreed.

    >>> Marks().checked(3).agreed("2").checks, Marks(consented=("1",)).agreed("2").consented
    (frozenset({3}), ('1', '2'))
    """

    checks: frozenset[int] = frozenset()
    consented: tuple[str, ...] = ()

    @classmethod
    def of(cls, log: SessionLog) -> Marks:
        """The marks of a session as read."""
        return cls(
            frozenset(c.position for c in log.checks),
            tuple(c.version for c in log.consents),
        )

    def checked(self, position: int) -> Marks:
        return replace(self, checks=self.checks | {position})

    def agreed(self, version: str) -> Marks:
        return replace(self, consented=(*self.consented, version))
