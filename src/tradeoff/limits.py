"""Bounds checked before a file a user gives is parsed, so that no small file can make a
parser build something huge: a 200 KB scenario with a 100,000-part dotted key
(``a.a.a… = 1``) made ``tomllib`` build a dict 100,000 levels deep (tens of GB).

:func:`check_toml` caps a TOML text's size, the parts of any dotted key and the nesting of
arrays and inline tables, scanning the text once (strings skipped) before ``tomllib`` sees
it; the errors name the file, the line and what to change.

:func:`ignore_file_size_signal`: past a file-size limit (``ulimit -f``) a write fails with
EFBIG, reported where it happens, instead of the process being killed.
"""

from __future__ import annotations

import contextlib
import signal
from pathlib import Path

from tradeoff.errors import InputError

#: The largest scenario file read (the shipped ones are under 8 KB).
MAX_SCENARIO_BYTES = 1_000_000
#: The most parts a dotted key may have (``a.b.c`` has 3), and the deepest nesting of
#: arrays and inline tables; real scenarios use 3 and 2.
MAX_KEY_PARTS = 16
MAX_NESTING = 16


def check_toml(text: str, path: str | Path, *, max_bytes: int = MAX_SCENARIO_BYTES) -> None:
    """Refuse a TOML text that is too large, has a dotted key of too many parts, or nests
    arrays and inline tables too deeply, before it is parsed.

    >>> check_toml('[population]\\nkind = "softmax"\\nx = [[1, 2], {a.b = "[["}]', "s.toml")
    >>> try:
    ...     check_toml("a" + ".a" * 40 + " = 1", "s.toml")
    ... except InputError as exc:
    ...     print(str(exc).split(";")[0])
    s.toml: line 1: a key has 41 dotted parts
    """
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise InputError.single(
            path,
            "",
            f"is {size:,} bytes; a scenario is at most {max_bytes:,}.",
            "give the scenario file itself (its data files are named in it, not pasted in).",
        )
    line, depth, parts, in_key = 1, 0, 1, True
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            quote = text[i : i + 3] if text[i : i + 3] in ('"""', "'''") else c
            end = i + len(quote)
            while end < n and not text.startswith(quote, end):
                if text[end] == "\\" and quote[0] == '"':
                    end += 1
                elif text[end] == "\n":
                    line += 1
                end += 1
            i = end + len(quote)
            continue
        if c == "#":
            while i < n and text[i] != "\n":
                i += 1
            continue
        if c == "\n":
            line, in_key, parts = line + 1, depth == 0, 1
        elif c == "=":
            in_key = False
        elif c == "." and in_key:
            parts += 1
            if parts > MAX_KEY_PARTS:
                raise InputError.single(
                    path,
                    f"line {line}",
                    f"a key has {_count_parts(text, i)} dotted parts; a scenario's keys have "
                    f"at most {MAX_KEY_PARTS}.",
                    "write the key as the scenario format names it (e.g. population.seed).",
                )
        elif c in "[{" and not in_key:
            depth += 1
            if depth > MAX_NESTING:
                raise InputError.single(
                    path,
                    f"line {line}",
                    f"arrays or tables nest more than {MAX_NESTING} deep.",
                    "a scenario's values are numbers, text or short lists: flatten this one.",
                )
        elif c in "]}" and not in_key:
            depth = max(0, depth - 1)
        elif c in "{," and depth > 0:
            in_key = c == "{" or in_key
        i += 1


def _count_parts(text: str, at: int) -> int:
    """The parts of the dotted key that runs through position ``at`` (for the message)."""
    start = text.rfind("\n", 0, at) + 1
    end = text.find("=", at)
    key = text[start : end if end != -1 else len(text)]
    return key.count(".") + 1


#: The most candidate models the questions aim at (and a session header records): a larger
#: pool gives its non-dominated models only (the best model for any positive weights is
#: among them), and a pool with more of those than this aims at the weights alone
#: (:func:`tradeoff.choose.candidates.decision_candidates`).
MAX_DECISION_CANDIDATES = 20_000


def ignore_file_size_signal() -> None:
    """Past a file-size limit (``ulimit -f``), make ``write`` fail with EFBIG, which the
    recorder reports while keeping the answer, instead of the process being killed by
    SIGXFSZ. Only possible from the main thread; elsewhere it does nothing."""
    if hasattr(signal, "SIGXFSZ"):
        with contextlib.suppress(ValueError):
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
