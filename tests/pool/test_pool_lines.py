"""A mistake on a row of a pool CSV is named by the line an editor shows it on: a recall of
1.7 on the third model read "row 3", which an editor shows on line 4 (the header is line
1); blank lines and cells of several lines moved it further. Now "line 4 (model 'c')",
the same in every pool-file message; a Parquet file, which has no lines, keeps "row 3"."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from tradeoff.cli import main
from tradeoff.errors import InputError
from tradeoff.pool import Objective, load_pool
from tradeoff.pool.table import RowPlaces

pytestmark = pytest.mark.core

HEADER = "model,recall_malignant,latency_ms"
ROWS = ["a,0.9,1.0", "b,0.8,2.0", "c,1.7,3.0", "d,0.7,4.0"]
OBJECTIVES = ["--objective", "recall_malignant:max", "--objective", "latency_ms:min"]


def _err(path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    assert main(["pool", "rank", str(path), *OBJECTIVES, *extra]) == 2
    return " ".join(capsys.readouterr().err.split())


def _csv(tmp_path: Path, rows: list[str], header: str = HEADER) -> Path:
    path = tmp_path / "pool.csv"
    path.write_text("\n".join([header, *rows]) + "\n")
    return path


def test_a_bad_value_on_the_third_model_is_on_line_4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _err(_csv(tmp_path, ROWS), capsys)
    assert "pool.csv: line 4 (model 'c'), column 'recall_malignant': is 1.7;" in err
    assert "row 3" not in err


def test_a_missing_value_and_a_word_are_on_their_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = ["a,0.9,1.0", "b,0.8,2.0", "c,nan,3.0", "d,0.7,4.0"]
    err = _err(_csv(tmp_path, rows), capsys)
    assert "column 'recall_malignant', line 4: 1 value is missing, NaN or infinite." in err
    assert "Fix: fill it in, or use --drop-missing to leave those models out." in err
    rows = ["a,0.9,1.0", "b,high,2.0", "c,0.8,3.0", "d,low,4.0"]
    err = _err(_csv(tmp_path, rows), capsys)
    assert "column 'recall_malignant', lines 3 and 5: 2 values are not numbers" in err


def test_blank_lines_and_cells_of_several_lines_are_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header = HEADER + ",note"
    rows = ['a,0.9,1.0,"two\nlines"', "", "b,0.8,2.0,x", "c,1.7,3.0,y", "d,0.7,4.0,z"]
    path = _csv(tmp_path, rows, header)
    assert path.read_text().splitlines()[5].startswith("c,1.7")  # line 6, as an editor shows
    assert "line 6 (model 'c'), column 'recall_malignant': is 1.7" in _err(path, capsys)


def test_repeated_names_and_an_empty_name_are_on_their_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _err(_csv(tmp_path, ["a,0.9,1.0", "b,0.8,2.0", "a,0.7,3.0"]), capsys)
    assert "lines 2 and 4, column 'model': the model name 'a' appears twice." in err
    err = _err(_csv(tmp_path, ["a,0.9,1.0", ",0.8,2.0", "c,0.7,3.0"]), capsys)
    assert "line 3, column 'model': the model name is empty." in err


def test_an_uncertainty_is_on_its_line(tmp_path: Path) -> None:
    rows = ["a,0.9,1.0,0.01", "b,0.8,2.0,0.01", "c,0.7,3.0,-1"]
    path = _csv(tmp_path, rows, HEADER + ",latency_ms_se")
    with pytest.raises(InputError) as caught:
        load_pool(path, [Objective("recall_malignant", "max"), Objective("latency_ms", "min")])
    assert "line 4 (model 'c'), column 'latency_ms_se': is -1" in caught.value.message()


def test_a_parquet_file_has_rows_not_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("pyarrow")
    frame = pd.read_csv(_csv(tmp_path, ROWS))
    path = tmp_path / "pool.parquet"
    frame.to_parquet(path)
    assert "pool.parquet: row 3 (model 'c'), column 'recall_malignant'" in _err(path, capsys)


def test_the_places_of_many_rows() -> None:
    raw = ("model,x\n" + "".join(f"m{i},1\n" for i in range(12))).encode()
    places = RowPlaces(raw, 12)
    assert places.many(list(range(1, 13))) == "lines 2, 3, 4, 5, 6, 7, 8, 9, … (12 lines)"
    assert places.one(12) == "line 13" and places.one(13) == "row 13"  # past the file: a row
    assert RowPlaces(raw, 11).one(1) == "row 1"  # not the rows pandas read: no lines named
