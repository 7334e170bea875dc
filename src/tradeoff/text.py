"""Text from files made safe to print: no control characters reach a terminal.

Model names, participant ids, labels and column names come from files a person gives
(pools, scenarios, session headers). Printed raw, a crafted name could carry ESC or OSC
sequences that recolour, retitle or rewrite the terminal. :func:`clean_text` replaces
every C0 and C1 control character, DEL and the bidirectional overrides with ``?``.

>>> clean_text("model\\x1b]0;owned\\x07-1")
'model?]0;owned?-1'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

#: C0 and C1 controls, DEL, the bidirectional embeddings, overrides and isolates, and the
#: invisible format characters that can hide or reorder what a name says: zero-width
#: space/joiners and direction marks (U+200B–U+200F), the Arabic letter mark (U+061C), the
#: Mongolian vowel separator (U+180E), line and paragraph separators (U+2028, U+2029), word
#: joiner and invisible operators (U+2060–U+2064), the byte-order mark (U+FEFF), tag
#: characters (U+E0000–U+E007F).
_CONTROL = re.compile(
    "[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u180e\u200b-\u200f\u2028-\u202e"
    "\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f]"
)
#: What :func:`clean_text` changes: the characters above and tabs.
_NEEDS_CLEANING = re.compile(_CONTROL.pattern[:-1] + "\t]")


def clean_text(text: object) -> str:
    """``str(text)`` with each control character replaced by ``?`` (tabs become spaces)."""
    return _CONTROL.sub("?", str(text).replace("\t", " "))


def clean_texts(texts: Sequence[str]) -> tuple[tuple[str, ...], bool]:
    """:func:`clean_text` of every string, and whether any changed.

    One pass over all of them when none needs cleaning (a pool's million model names), so
    the common case costs one join and one search instead of a call per name.

    >>> clean_texts(["a", "b"])
    (('a', 'b'), False)
    >>> clean_texts(["a", "b\\tc", "d\\u200be"])
    (('a', 'b c', 'd?e'), True)
    """
    if _NEEDS_CLEANING.search("".join(texts)) is None:
        return tuple(texts), False
    out = tuple(clean_text(t) if _NEEDS_CLEANING.search(t) else t for t in texts)
    return out, True


def clean_data(data: Any) -> Any:
    """A JSON-like structure with every string (keys too) passed through :func:`clean_text`."""
    if isinstance(data, str):
        return clean_text(data)
    if isinstance(data, dict):
        return {clean_text(k): clean_data(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [clean_data(v) for v in data]
    return data


#: First characters that make a spreadsheet (Excel, LibreOffice, Google Sheets) read a cell
#: as a formula, and the tab and carriage return that hide one (OWASP, "CSV Injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_cell(text: str) -> str:
    """``text`` made safe as a CSV cell a person opens in a spreadsheet: a text that a
    spreadsheet would evaluate (starting with ``=``, ``+``, ``-``, ``@``, tab or carriage
    return) gets a leading apostrophe, which spreadsheets show as text and do not evaluate;
    control characters become ``?`` as in :func:`clean_text`. Numbers are never passed here:
    only texts (names, labels, versions).

    >>> spreadsheet_cell("=HYPERLINK(\\"http://x\\")")
    '\\'=HYPERLINK("http://x")'
    >>> spreadsheet_cell("+1+1"), spreadsheet_cell("model-a"), spreadsheet_cell("\\rx")
    ("'+1+1", 'model-a', "'?x")
    """
    safe = text if text[:1] not in FORMULA_STARTS else "'" + text
    return _CONTROL.sub("?", safe.replace("\t", " ")) if _NEEDS_CLEANING.search(safe) else safe
