"""Who declined consent, whatever their way in.

A panel participant's decline is an ``entries.jsonl`` event of their entry
(:func:`tradeoff.study.entries.record_decline`); a participant with an access code has no
entry, and their decline is noted on its own (:func:`record_code_decline`): a ``declined``
line with ``"via": "code"``, their participant id and the time, nothing else. Without a
session either stays "declined consent" in ``study status``, on the coordinator's page and
in the export (:func:`declined_consent`); one who consents later is counted by their
session. ``study erase`` removes the line with every other line of theirs.
"""

from __future__ import annotations

from datetime import UTC, datetime

from tradeoff.study.entries import EntryLog, EntryState, append_entry, study_lock

__all__ = ["declined_consent", "record_code_decline"]


def record_code_decline(log: EntryLog, participant: str) -> None:
    """``participant``, who came in by their access code, declined consent: noted once in
    ``entries.jsonl`` under the study's lock (a second decline writes nothing).

    Raises
    ------
    OSError
        If the line cannot be written.
    """
    with study_lock(log.folder):
        state = log.refresh()
        if participant in state.code_declined or participant in state.people:
            return
        append_entry(
            log.folder,
            {
                "event": "declined",
                "participant": participant,
                "via": "code",
                "at": datetime.now(UTC).isoformat(timespec="seconds"),
            },
        )
        log.refresh()


def declined_consent(state: EntryState) -> frozenset[str]:
    """Everyone who declined consent, now or before, by a panel's link or with an access
    code (pilots note no decline); without a session they are "declined consent".

    >>> s = EntryState()
    >>> s.add({"event": "enrolled", "participant": "panel-a", "panel_id": "A"})
    >>> s.add({"event": "declined", "participant": "panel-a"})
    >>> s.add({"event": "declined", "participant": "p01", "via": "code"})
    >>> sorted(declined_consent(s))
    ['p01', 'panel-a']
    """
    panel = {p for p, e in state.people.items() if e.ever_declined and not e.pilot}
    return frozenset(panel | state.code_declined)
