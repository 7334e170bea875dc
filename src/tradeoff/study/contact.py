"""How participants reach a study's coordinator: ``study.json``'s ``contact``, one line
the coordinator writes (``study create --contact``, changed later with ``study contact``:
:func:`tradeoff.study.consent_added.set_contact`), shown at the foot of every participant's
page of the study web page (:mod:`tradeoff.web.site`, read again as it changes:
:class:`tradeoff.web.watched.Watched`).

A study made without one says so when it is made; its pages then send a participant to
whoever invited them, never to a coordinator they have no way to reach.
"""

from __future__ import annotations

from pathlib import Path

from tradeoff.errors import InputError
from tradeoff.text import clean_text

#: The longest contact, in characters (a name, an e-mail address and a telephone number fit).
CONTACT_LIMIT = 200
#: The key of ``study.json`` that holds it.
CONTACT_KEY = "contact"


def check_contact(text: object, source: str | Path = "--contact") -> str:
    """``text`` as a study's contact (spaces at its ends removed), or an error naming
    ``source``: one line of 1 to ``CONTACT_LIMIT`` characters, none of them a control or
    an invisible formatting character (it is shown as written on the participants' pages).

    >>> check_contact("  Dr Ada Lovelace, ada@example.org ")
    'Dr Ada Lovelace, ada@example.org'
    >>> try:
    ...     check_contact("ada@example.org\\nclick here")
    ... except InputError as exc:
    ...     print(exc.problems[0].problem)
    holds a line break or another control character.
    """
    example = 'give one line of plain text, e.g. "Dr Ada Lovelace, ada@example.org".'
    if not isinstance(text, str):
        raise InputError.single(source, CONTACT_KEY, "is not text.", example)
    out = text.strip()
    if not out:
        raise InputError.single(source, "", "is empty.", example)
    if clean_text(out) != out:  # a control, a tab or an invisible format character
        raise InputError.single(
            source, "", "holds a line break or another control character.", example
        )
    if len(out) > CONTACT_LIMIT:
        raise InputError.single(
            source,
            "",
            f"is {len(out)} characters long; the pages show at most {CONTACT_LIMIT}.",
            "give a name and one way to reach the coordinator (an e-mail address or a "
            "telephone number).",
        )
    return out


def read_contact(data: dict[str, object], source: str | Path) -> str | None:
    """The contact ``study.json`` (read as ``data``) holds, checked, or ``None``."""
    found = data.get(CONTACT_KEY)
    if found is None:
        return None
    try:
        return check_contact(found, source)
    except InputError as exc:
        raise InputError.single(
            source,
            CONTACT_KEY,
            exc.problems[0].problem,
            "give the study its contact again: tradeoff study contact DIR TEXT.",
        ) from None
