"""The one per-source limiter of the study web page (:class:`PerSource`): how many of
something a source address holds at once (requests in flight, codes or keys being checked),
capped per source and in all.

Every throttle of the page counts through it: the caps of requests in flight
(:func:`tradeoff.web.site.protect`), the access codes being checked
(:mod:`tradeoff.web.code_entry`) and the coordinator's keys being checked
(:mod:`tradeoff.web.coordinator`). Memory follows what is held, never the history: a
source is forgotten as soon as it holds nothing, and no more than ``total`` are held at
once, so at most ``total`` sources are kept.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

#: One source may have this many requests in flight, all sources this many.
REQUESTS_AT_ONCE = (64, 512)
#: A source that entered a wrong code lately may have this many codes (or coordinator's
#: keys) checked or waiting out their delay at once (more are refused unchecked, so a
#: guesser cannot run the delays in parallel; a source without wrong codes, such as a
#: ward behind one address, is not held back).
CODES_AT_ONCE = 2


class PerSource:
    """At most ``each`` held at once by one source, and ``total`` by all sources.

    >>> codes = PerSource(each=2, total=3)
    >>> codes.take("a"), codes.take("a"), codes.take("a")
    (True, True, False)
    >>> codes.take("b"), codes.take("c")
    (True, False)
    >>> codes.held("a"), codes.sources
    (2, 2)
    >>> codes.give_back("a"); codes.give_back("a")
    >>> codes.held("a"), codes.sources, codes.full("b")
    (0, 1, False)
    """

    def __init__(self, each: int, total: int) -> None:
        if not 0 < each <= total:
            raise ValueError(f"need 0 < each ({each}) <= total ({total})")
        self.each = each
        self.total = total
        self._held: dict[str, int] = {}
        self._all = 0
        # The event loop takes and gives back; a lock keeps a worker thread's use safe too.
        self._lock = threading.Lock()

    def held(self, source: str) -> int:
        """How many ``source`` holds now."""
        return self._held.get(source, 0)

    @property
    def sources(self) -> int:
        """How many sources hold something (the sources kept)."""
        return len(self._held)

    def full(self, source: str) -> bool:
        """Whether ``source`` may take no more now (its own cap or the cap of all)."""
        return self.held(source) >= self.each or self._all >= self.total

    def take(self, source: str, *, past_each: bool = False) -> bool:
        """Take one for ``source`` if the caps allow (then ``True``; give it back with
        :meth:`give_back`), else ``False`` and nothing is taken. With ``past_each`` only
        the cap of all applies (a source let through for another reason is still
        counted)."""
        with self._lock:
            mine = self._held.get(source, 0)
            if (mine >= self.each and not past_each) or self._all >= self.total:
                return False
            self._held[source] = mine + 1
            self._all += 1
            return True

    def give_back(self, source: str) -> None:
        """Give back one that ``source`` took; a source holding nothing is forgotten."""
        with self._lock:
            mine = self._held.get(source, 0)
            if mine <= 0:
                raise ValueError(f"{source!r} holds nothing to give back")
            self._all -= 1
            if mine == 1:
                del self._held[source]
            else:
                self._held[source] = mine - 1

    @contextlib.contextmanager
    def holding(self, source: str, *, past_each: bool = False) -> Iterator[bool]:
        """Take one for the ``with`` block (``True``), given back at its end; ``False``
        when the caps allow none (nothing to give back). ``past_each`` as for
        :meth:`take`."""
        taken = self.take(source, past_each=past_each)
        try:
            yield taken
        finally:
            if taken:
                self.give_back(source)


@dataclass
class Throttles:
    """The throttles of one server process, each a :class:`PerSource`: ``requests`` in
    flight (:data:`REQUESTS_AT_ONCE`), and access codes and coordinator's keys being
    ``checked`` (one count for both, :data:`CODES_AT_ONCE`; no more than the requests in
    flight in all)."""

    requests: PerSource = field(default_factory=lambda: PerSource(*REQUESTS_AT_ONCE))
    checked: PerSource = field(
        default_factory=lambda: PerSource(CODES_AT_ONCE, REQUESTS_AT_ONCE[1])
    )
