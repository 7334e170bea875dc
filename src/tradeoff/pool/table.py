"""A pool file read as a table (:func:`read_table`), and where its rows are, as a person
finds them (:class:`RowPlaces`).

A message about a row of a CSV file names the row's line, as an editor numbers it: the
header is line 1, so the third model is on line 4 of a plain file, later where blank lines
or cells of several lines come before it. A Parquet file, or a table given in memory, has
no lines: its rows are named by their number below the header ("row 3")."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import pandas as pd

from tradeoff.errors import InputError, read_user_file
from tradeoff.text import clean_text

__all__ = ["NO_LINES", "RowPlaces", "read_pool_table", "read_table"]


@dataclass(frozen=True)
class RowPlaces:
    """Where a table's rows (numbered 1, 2, … below the header, as a pool's index holds
    them) are: in a CSV file (``raw``, its bytes, read into ``count`` rows) the line each
    starts on, found only when a message needs it; else (``raw`` None) the row number.

    >>> places = RowPlaces(b"model,x\\na,1\\n\\nb,2\\nc,3\\n", 3)
    >>> places.one(1), places.one(2), places.many([2, 3]), RowPlaces().one(2)
    ('line 2', 'line 4', 'lines 4 and 5', 'row 2')
    >>> RowPlaces().many(list(range(1, 11)))
    'rows 1, 2, 3, 4, 5, 6, 7, 8, … (10 rows)'
    """

    raw: bytes | None = None
    count: int = 0

    @cached_property
    def lines(self) -> list[int] | None:
        """Each row's first line (the row's number − 1 its index), or ``None`` where the
        file has no lines, or where they could not be told as pandas read the rows (not
        ``count`` of them)."""
        if self.raw is None:
            return None
        text = self.raw.decode("utf-8-sig", errors="replace")
        reader = csv.reader(io.StringIO(text, newline=""))
        starts: list[int] = []
        before = 0
        try:
            for record in reader:
                if record and not (len(record) == 1 and not record[0].strip()):
                    starts.append(before + 1)  # pandas skips blank lines, as here
                before = reader.line_num
        except csv.Error:
            return None
        rows = starts[1:]  # the first record is the header
        return rows if starts and len(rows) == self.count else None

    def _line(self, row: int) -> int | None:
        lines = self.lines
        return lines[row - 1] if lines is not None and 1 <= row <= len(lines) else None

    def one(self, row: int) -> str:
        """Where the row numbered ``row`` is: "line 4", or "row 3"."""
        line = self._line(row)
        return f"row {row}" if line is None else f"line {line}"

    def named(self, row: int, name: str) -> str:
        """Where the model ``name`` in the row numbered ``row`` is: "line 4 (model 'b')";
        a pool without a name column names its models by their row ("row 3"), which is not
        said twice.

        >>> RowPlaces().named(3, "b"), RowPlaces().named(3, "row 3")
        ("row 3 (model 'b')", 'row 3')
        """
        where = self.one(row)
        return where if name == f"row {row}" else f"{where} (model {clean_text(name)!r})"

    def many(self, rows: Sequence[int], limit: int = 8) -> str:
        """Where the rows are: "line 4", "lines 4 and 9", "lines 4, 7, 9, … (12 lines)"."""
        lines = [self._line(r) for r in rows]
        word, numbers = (
            ("row", list(rows)) if None in lines else ("line", [n for n in lines if n is not None])
        )
        if len(numbers) == 1:
            return f"{word} {numbers[0]}"
        shown = [str(n) for n in numbers[:limit]]
        if len(numbers) > limit:
            return f"{word}s {', '.join(shown)}, … ({len(numbers):,} {word}s)"
        return f"{word}s {', '.join(shown[:-1])} and {shown[-1]}"


NO_LINES = RowPlaces()
"""Rows named by their number: a table with no file lines (Parquet, in memory, or a
caller that does not give them)."""

#: pandas' words for a row with more cells than the header.
_CELLS = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")


def read_pool_table(path: str | Path) -> tuple[pd.DataFrame, RowPlaces]:
    """:func:`read_table`, with where its rows are in the file."""
    p = Path(path)
    raw = read_user_file(p)  # a folder, a FIFO, a missing file: said as for every file
    table = _read(p, raw)
    return table, RowPlaces(None if _parquet(p) else raw, len(table))


def read_table(path: str | Path) -> pd.DataFrame:
    """Read a CSV or Parquet file, or raise an InputError that says why not: an empty
    file, a session file given as a pool, a row with more cells than the header (by its
    line), or what the reader said."""
    p = Path(path)
    return _read(p, read_user_file(p))


def _parquet(p: Path) -> bool:
    return p.suffix.lower() in (".parquet", ".pq")


def _read(p: Path, raw: bytes) -> pd.DataFrame:
    parquet = _parquet(p)
    if not parquet:
        start = raw[:4096].lstrip()
        if not start:
            raise InputError.single(
                p, "", "is empty.", "give a CSV file with a header row and a row per model."
            )
        if p.suffix.lower() == ".jsonl" or start[:1] == b"{":
            raise InputError.single(
                p,
                "",
                "is a session file (JSON lines), not a pool of models.",
                "give it after --session; the pool (a CSV or Parquet file) comes first, or "
                "leave it out to use the scenario's own pool.",
            )
    try:
        if parquet:
            return pd.read_parquet(io.BytesIO(raw))
        table = pd.read_csv(io.BytesIO(raw))
    except pd.errors.ParserError as exc:
        cells = _CELLS.search(str(exc))
        if cells is None:
            raise _unreadable(p, parquet, exc) from None
        header, line, saw = cells.groups()
        raise InputError.single(
            p,
            f"line {line}",
            f"has {saw} cells, the header {header}.",
            "give every row one cell per column (quote cells that hold commas).",
        ) from None
    except Exception as exc:
        raise _unreadable(p, parquet, exc) from None
    only = str(table.columns[0]) if len(table.columns) == 1 else ""
    for sign, name in ((";", "semicolons"), ("\t", "tabs")):
        if sign in only:  # a spreadsheet's export in another locale: one column of it all
            raise InputError.single(
                p,
                "line 1 (header)",
                f"is separated by {name}, not commas.",
                "save it comma-separated, with '.' as the decimal point.",
            )
    return table


def _unreadable(p: Path, parquet: bool, exc: Exception) -> InputError:
    """The reader's own words on a file it could not read, on one line."""
    said = " ".join(str(exc).split()).rstrip(".")
    return InputError.single(
        p,
        "",
        f"cannot be read as {'Parquet' if parquet else 'CSV'}: {said}.",
        "give a CSV file with a header row, or a Parquet file.",
    )
