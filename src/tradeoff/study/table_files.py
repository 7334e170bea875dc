"""The export's files: the tables as typed frames (every text cell through
:func:`tradeoff.text.spreadsheet_cell`, true/false as ``TRUE``/``FALSE`` in CSV:
:func:`table_frame`), the name of every file an export writes (:func:`export_files`), and
writing them without ever writing over a file: each is staged under a temporary name in
its folder (:func:`stage`) and then linked to its name, which fails rather than replaces
(:func:`publish`).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tradeoff.errors import InputError
from tradeoff.study.export_rows import Row
from tradeoff.study.table_columns import Column
from tradeoff.text import spreadsheet_cell

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "FORMATS",
    "discard",
    "export_files",
    "publish",
    "refuse_existing",
    "stage",
    "table_frame",
]

#: Table formats by file suffix.
FORMATS = {".csv": "csv", ".parquet": "parquet"}


def _text_cell(value: Any) -> Any:
    """A text value as the table holds it (:func:`tradeoff.text.spreadsheet_cell`); a
    missing one stays missing."""
    return spreadsheet_cell(value) if isinstance(value, str) else value


def table_frame(cols: Sequence[Column], rows: Sequence[Row], fmt: str) -> pd.DataFrame:
    """The rows as a pandas DataFrame with every column's type set, every text through
    :func:`tradeoff.text.spreadsheet_cell` (numbers are never touched); for CSV, true/false
    as the words ``TRUE``/``FALSE`` (what R's ``read.csv`` reads as logical). A missing
    number is an empty cell in CSV, null in Parquet (pyarrow writes pandas' NaN so)."""
    import pandas as pd

    # text: pandas 3's own string type (missing is NaN, as read_csv gives it); object before
    text = "str" if int(pd.__version__.split(".")[0]) >= 3 else "object"
    dtypes = {"str": text, "int": "int64", "Int64": "Int64", "float": "float64", "bool": "bool"}

    def series(c: Column) -> pd.Series:
        values = [r[c.name] for r in rows]
        if c.dtype == "str":
            return pd.Series([_text_cell(v) for v in values], dtype=text)
        if c.dtype == "bool" and fmt == "csv":
            return pd.Series(["TRUE" if v else "FALSE" for v in values], dtype=text)
        return pd.Series(values, dtype=dtypes[c.dtype])

    return pd.DataFrame({c.name: series(c) for c in cols}, columns=[c.name for c in cols])


def refuse_existing(paths: Iterable[Path]) -> None:
    for p in paths:
        if os.path.lexists(p):
            raise InputError.single(
                p,
                "",
                "exists already; an export never writes over a file.",
                "give a new name for the export (its participants table and codebook are "
                "written beside it: for answers.csv, answers.participants.csv, "
                "answers.csv.codebook.csv, answers.csv.codebook.md and "
                "answers.csv.datapackage.json).",
            )


def publish(staged: Sequence[tuple[Path, Path]]) -> None:
    """Link every temporary file to its name (which must not exist), then remove the
    temporary names; if a name appeared meanwhile, the names already linked are removed
    again (they were ours) and an InputError names the file."""
    done: list[Path] = []
    try:
        for tmp, final in staged:
            try:
                os.link(tmp, final)
            except FileExistsError:
                refuse_existing([final])
                raise
            except OSError:  # a file system without hard links: check, then rename
                refuse_existing([final])
                os.replace(tmp, final)
            done.append(final)
    except BaseException:
        for final in done:
            with contextlib.suppress(OSError):
                final.unlink()
        raise
    finally:
        discard(staged)


def discard(staged: Sequence[tuple[Path, Path]]) -> None:
    for tmp, _ in staged:
        with contextlib.suppress(OSError):
            tmp.unlink()


def stage(folder: Path, name: str) -> Path:
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    os.close(fd)
    return Path(tmp)


def export_files(out: str | Path) -> dict[str, Path]:
    """Every file an export to ``out`` writes, by role: ``answers`` (``out`` itself),
    ``participants``, ``codebook``, ``codebook_md`` and ``datapackage``. The companions of
    the answers table are named after its whole file name, so a CSV and a Parquet export of
    one name never share a file.

    >>> [p.name for p in export_files("out/answers.csv").values()]
    ... # doctest: +NORMALIZE_WHITESPACE
    ['answers.csv', 'answers.participants.csv', 'answers.csv.codebook.csv',
     'answers.csv.codebook.md', 'answers.csv.datapackage.json']
    """
    target = Path(out)
    folder, name = target.parent, target.name
    return {
        "answers": target,
        "participants": folder / f"{target.stem}.participants{target.suffix}",
        "codebook": folder / f"{name}.codebook.csv",
        "codebook_md": folder / f"{name}.codebook.md",
        "datapackage": folder / f"{name}.datapackage.json",
    }
