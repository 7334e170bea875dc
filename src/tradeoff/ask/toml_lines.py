"""Where a problem of a scenario file lies in its text: the line of a key path such as
``classes[0].recall_range`` (:func:`key_line`), so that what validation finds names the line
as a TOML syntax error does (:func:`with_lines`, :func:`toml_error`).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from tradeoff.errors import InputError, Problem

__all__ = ["key_line", "toml_error", "with_lines"]

_TOML_LINE = re.compile(r"\(at line (\d+), column (\d+)\)")
_PART = re.compile(r"^([A-Za-z_][\w-]*)(?:\[(\d+)\])?$")
_HEADER = re.compile(r"^\s*\[")


def toml_error(path: str | Path, exc: tomllib.TOMLDecodeError) -> InputError:
    """A file that is not TOML, located at the line and column the parser names."""
    m = _TOML_LINE.search(str(exc))
    where = f"line {m.group(1)}, column {m.group(2)}" if m else ""
    problem = _TOML_LINE.sub("", str(exc)).strip()
    return InputError.single(
        path, where, f"not valid TOML: {problem}.", "fix the TOML syntax at that place."
    )


def _section(lines: list[str], tables: list[str]) -> tuple[int, int] | None:
    """The lines (first, end) of the table ``tables`` names (``["classes[1]"]``: the second
    ``[[classes]]``; ``["elicitation"]``: ``[elicitation]``; ``[]``: the top, before any
    header), its header line first; ``None`` when it is not there."""
    if not tables:
        end = next((i for i, line in enumerate(lines) if _HEADER.match(line)), len(lines))
        return 0, end
    dotted, index = [], 0
    for part in tables:
        m = _PART.match(part)
        if m is None:
            return None
        dotted.append(re.escape(m.group(1)))
        index = int(m.group(2)) if m.group(2) is not None else -1
    name = r"\s*\.\s*".join(dotted)
    pattern = rf"^\s*\[\[\s*{name}\s*\]\]" if index >= 0 else rf"^\s*\[\s*{name}\s*\]"
    starts = [i for i, line in enumerate(lines) if re.match(pattern, line)]
    at = max(index, 0)
    if len(starts) <= at:
        return None
    first = starts[at]
    end = next((i for i in range(first + 1, len(lines)) if _HEADER.match(lines[i])), len(lines))
    return first, end


def key_line(text: str, location: str) -> int | None:
    """The line (from 1) of ``location``, a key path as validation names it, in the TOML
    ``text``: the key's own line, else its table's header (a key that is missing there),
    else ``None``.

    >>> text = 'id = "x"\\n[[classes]]\\nname = "a"\\n[[classes]]\\nname = "b"\\nrange = [1, 2]\\n'
    >>> key_line(text, "classes[1].range"), key_line(text, "classes[0].label"), key_line(text, "id")
    (6, 2, 1)
    >>> key_line(text, "elicitation.budget") is None
    True
    """
    lines = text.splitlines()
    *tables, key = location.split(".")
    whole = _section(lines, [*tables, key]) if _PART.match(key) and "[" in key else None
    if whole is not None:  # the path ends at a table: its header
        return whole[0] + 1
    found = _section(lines, tables)
    if found is None:
        return None
    first, end = found
    own = re.compile(rf"^\s*{re.escape(key)}\s*=")
    for i in range(first, end):
        if own.match(lines[i]):
            return i + 1
    sub = _section(lines, [*tables, key])  # a key given as its own table: [pool.columns]
    if sub is not None:
        return sub[0] + 1
    return first + 1 if tables else None


def with_lines(error: InputError, text: str) -> InputError:
    """``error`` with each problem's key path led by its line in ``text`` (where found):
    ``line 28, classes[0].recall_range``."""
    located = []
    for p in error.problems:
        n = key_line(text, p.location) if p.location else None
        where = p.location if n is None else f"line {n}, {p.location}"
        located.append(Problem(where, p.problem, p.fix))
    return InputError.many(error.source, located)
