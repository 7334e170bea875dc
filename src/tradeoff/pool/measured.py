"""A pool made where models live, before it is written: :class:`Measured` (the table, its
provenance, what each column means, notes for the person), and its one writer.

Every model source (:mod:`tradeoff.pool.sources`: scikit-learn, MLflow, Optuna) returns one;
it imports nothing of them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from tradeoff.errors import InputError
from tradeoff.pool.meaning import Meaning, check_frame, frame_meanings, pool_cell

__all__ = ["Measured"]


@dataclass(frozen=True)
class Measured:
    """A measured pool: the table (one row per model), its provenance, what each column
    means (checked before it is written) and notes for the person (runs left out)."""

    frame: pd.DataFrame
    provenance: dict[str, Any] = field(default_factory=dict)
    meanings: Mapping[str, Meaning] | None = None
    notes: tuple[str, ...] = ()

    def check(self, source: str | Path = "pool") -> None:
        """Refuse a table that :func:`tradeoff.pool.load_pool` would refuse
        (:func:`tradeoff.pool.meaning.check_frame`): every column's values against its
        meaning (``meanings``, else the one its name gives), the model names, the size."""
        check_frame(str(source), self.frame, frame_meanings(self.frame, self.meanings))

    def write(self, path: str | Path, *, replace: bool = True) -> tuple[Path, Path]:
        """Check the table (:meth:`check`), then write it (CSV, or Parquet for ``.parquet``)
        and ``<stem>.provenance.json`` beside it; returns both paths.

        In a CSV every text cell goes through :func:`tradeoff.pool.meaning.pool_cell`, so a
        spreadsheet shows a name such as ``=HYPERLINK(…)`` as text. Each file is written
        whole under a temporary name and then renamed, so a failed write leaves what was
        there. With ``replace=False`` an existing table or provenance file is refused
        (an :class:`~tradeoff.errors.InputError`) and nothing is written.
        """
        out = Path(path)
        side = out.with_suffix(".provenance.json")
        self.check(f"the pool for {out} (not written)")  # the file is not to blame
        if not replace:
            for existing in (out, side):
                if existing.exists():
                    raise InputError.single(
                        existing,
                        "",
                        "already exists; it is left as it is.",
                        "give another --out, move the file away, or pass --force to replace it.",
                    )
        out.parent.mkdir(parents=True, exist_ok=True)
        frame = self.frame
        parquet = out.suffix.lower() in (".parquet", ".pq")
        if not parquet:
            frame = frame.copy()
            for column in frame.columns:
                if not pd.api.types.is_numeric_dtype(frame[column]):
                    frame[column] = [
                        v if v is None or isinstance(v, float) else pool_cell(str(v))
                        for v in frame[column].tolist()
                    ]
        part = out.with_name(f".{out.name}.part")
        side_part = side.with_name(f".{side.name}.part")
        try:
            if parquet:
                frame.to_parquet(part, index=False)
            else:
                frame.to_csv(part, index=False)
            side_part.write_text(json.dumps(self.provenance, indent=2, default=str) + "\n")
            os.replace(part, out)
            os.replace(side_part, side)
        finally:
            part.unlink(missing_ok=True)
            side_part.unlink(missing_ok=True)
        return out, side
