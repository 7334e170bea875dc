"""A study's answers as one table (CSV or Parquet) with its codebook: what the table says
matches the session files and what the engine reported live, withdrawn participants and
misplaced files are left out, and nothing already on disk is ever written over."""

from __future__ import annotations

import math
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pytest

from tradeoff.ask.scenario import load_scenario
from tradeoff.ask.shown import per_thousand, shown_number
from tradeoff.curves import threshold_percent
from tradeoff.errors import InputError
from tradeoff.record.log import read_session
from tradeoff.record.recorder import Recorder
from tradeoff.record.records import AnswerRecord, ConsentRecord, ResultRecord
from tradeoff.study.export import export_study
from tradeoff.study.folder import Study, create_study, load_study
from tradeoff.study.status import counted_sessions
from tradeoff.study.withdrawals import withdraw

from ..conftest import ROOT
from ..participants import take_part

pytestmark = [pytest.mark.e2e, pytest.mark.other_path]

SLUGS = ("malignant_lumps", "benign_lumps", "latency", "memory")
CLASSES = SLUGS[:2]
ATTRIBUTES = SLUGS[2:]


@dataclass
class Made:
    """A study with three participants and what the engine reported as they answered."""

    study: Study
    #: p01's swing weights and P(best) right after each of its answers, in file order.
    live: list[tuple[tuple[float, ...], float | None]] = field(default_factory=list)
    files: dict[str, Path] = field(default_factory=dict)


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Made:
    root = tmp_path_factory.mktemp("export")
    study, _ = create_study(
        ROOT / "scenarios" / "breast-cancer-triage.toml", ["p01", "p02", "p03"], root / "s"
    )
    m = Made(study)
    consent = ConsentRecord(type="consent", version="2026-01", text_sha256="ab" * 32, language="nl")

    def live(rec: Recorder) -> None:
        decision = rec.engine.decision()
        swing = rec.engine.result().swing_weights
        assert swing is not None
        m.live.append((swing, None if decision is None else decision[0]))

    def response_ms(given: int) -> float | None:
        return None if given == 1 else 1500.0 + given

    # Seed 4: a later question repeats the second (seed 11 did until 0.8.0, the fifth right
    # after it; seed 0 until 0.6.0; on every numeric path: tests/test_machines.py and make
    # test-other-path run this file on another). The second answer is given the other way,
    # taken back and given again.
    m.files["p01"] = take_part(
        study,
        "p01",
        6,
        undo_after=2,
        finish=True,
        consent=consent,
        after_answer=live,
        response_ms=response_ms,
        seed=4,
    )
    m.files["p02"] = take_part(study, "p02", 3, response_ms=response_ms)
    m.files["p03"] = take_part(study, "p03", 2, finish=True, response_ms=response_ms)
    withdraw(study, "p03")
    return m


def _answers(path: Path) -> list[AnswerRecord]:
    return [e for e in read_session(path).events if isinstance(e, AnswerRecord)]


@pytest.fixture(scope="module")
def frames(
    made: Made, tmp_path_factory: pytest.TempPathFactory
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, Path]:
    out = tmp_path_factory.mktemp("out")
    study = load_study(made.study.path)
    # a CSV and a Parquet export of one name, side by side in one folder
    csv_summary = export_study(study, out / "answers.csv")
    pq_summary = export_study(study, out / "answers.parquet")
    assert csv_summary.rows == pq_summary.rows
    assert csv_summary.codebook == out / "answers.csv.codebook.csv"
    as_csv = pd.read_csv(out / "answers.csv")
    as_parquet = pd.read_parquet(out / "answers.parquet")
    book = pd.read_csv(csv_summary.codebook, keep_default_na=False)
    return as_csv, as_parquet, book, out


def test_rows_are_the_answer_lines_of_participants_who_did_not_withdraw(
    made: Made, frames: tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, Path], tmp_path: Path
) -> None:
    as_csv, as_parquet, _, _ = frames
    recorded = {pid: _answers(made.files[pid]) for pid in ("p01", "p02", "p03")}
    assert len(recorded["p01"]) == 7  # six counted and one taken back
    assert len(recorded["p02"]) == 3 and len(recorded["p03"]) == 2
    summary = export_study(load_study(made.study.path), tmp_path / "again.csv")
    assert summary.rows == len(recorded["p01"]) + len(recorded["p02"]) == 10
    assert summary.undone == 1 and summary.to_dict()["undone"] == 1
    assert summary.participants == ("p01", "p02")
    assert summary.withdrawn == ("p03",)
    assert summary.skipped == ()
    assert summary.to_dict()["withdrawn"] == ["p03"]
    for frame in (as_csv, as_parquet):
        assert len(frame) == 10
        assert "p03" not in set(frame["participant"])
        # study order, then file order: p01's seven answer lines, then p02's three
        assert list(frame["participant"]) == ["p01"] * 7 + ["p02"] * 3
        assert list(frame["answer_seq"]) == [*range(1, 8), *range(1, 4)]
        assert list(frame["session"]) == [made.files["p01"].name] * 7 + [made.files["p02"].name] * 3
        assert list(frame["question"]) == [r.index for r in recorded["p01"] + recorded["p02"]]
        assert set(frame["strategy"]) == {"joint"}
    # the consent opened p01's file only
    p01 = as_csv[as_csv["participant"] == "p01"]
    p02 = as_csv[as_csv["participant"] == "p02"]
    assert set(p01["language"]) == {"nl"} and set(p01["consent_version"]) == {"2026-01"}
    assert p02["language"].isna().all() and p02["consent_version"].isna().all()


def test_the_undone_answer_keeps_its_row_and_the_posterior_right_after_it(
    made: Made, frames: tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, Path]
) -> None:
    as_csv, _, _, _ = frames
    p01 = as_csv[as_csv["participant"] == "p01"].reset_index(drop=True)
    assert list(p01["undone"]) == [False, True, False, False, False, False, False]
    assert not as_csv[as_csv["participant"] == "p02"]["undone"].any()
    # the question taken back was asked again, under the same number, and answered otherwise
    assert p01.loc[1, "question"] == p01.loc[2, "question"] == 2
    assert p01.loc[1, "answer"] != p01.loc[2, "answer"]
    # every row's posterior is what the engine reported right after that answer, live
    assert len(made.live) == len(p01)
    for n, (swing, p_best) in enumerate(made.live):
        got = [p01.loc[n, f"w_{s}"] for s in SLUGS]
        assert got == pytest.approx(swing, abs=1e-12), n
        assert p_best is not None
        assert p01.loc[n, "p_best"] == pytest.approx(p_best, abs=1e-12)
    # the undone answer moved the weights, the answer given instead moved them elsewhere
    assert [p01.loc[1, f"w_{s}"] for s in SLUGS] != pytest.approx(
        [p01.loc[2, f"w_{s}"] for s in SLUGS], abs=1e-6
    )
    # the last row is the session's closing result
    closing = read_session(made.files["p01"]).events[-1]
    assert isinstance(closing, ResultRecord) and closing.swing_weights is not None
    assert [p01.loc[6, f"w_{s}"] for s in SLUGS] == pytest.approx(closing.swing_weights)


def test_options_and_answers_are_those_of_the_session_file(
    made: Made, frames: tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, Path]
) -> None:
    as_csv, _, _, _ = frames
    sc = load_scenario(made.study.scenario_path).scenario
    records = _answers(made.files["p01"]) + _answers(made.files["p02"])
    letter = {"left": "A", "right": "B", "indifferent": "cant_tell"}
    for n, record in enumerate(records):
        row = as_csv.iloc[n]
        assert row["answer"] == letter[record.choice.value]
        assert row["answered_at"] == record.at
        if record.response_ms is None:
            assert math.isnan(row["response_ms"])
        else:
            assert row["response_ms"] == record.response_ms
        for side, profile in (("A", record.query.left), ("B", record.query.right)):
            for i, s in enumerate(CLASSES):
                assert row[f"{side}_{s}_recall"] == profile.recalls[i]
                assert row[f"{side}_{s}_per_1000"] == per_thousand(profile.recalls[i])
            for j, s in enumerate(ATTRIBUTES):
                assert row[f"{side}_{s}"] == profile.attributes[j]
                assert row[f"{side}_{s}_shown"] == shown_number(
                    sc.attributes[j], profile.attributes[j]
                )
        assert row["is_repeat"] == (record.query.repeat_of is not None)
        assert row["kind"] == record.query.kind
    # the two sides differ somewhere (Option A is not Option B copied)
    assert (as_csv["A_malignant_lumps_recall"] != as_csv["B_malignant_lumps_recall"]).any()
    # no time for p01's second answer (given, taken back, given again) and p02's second
    assert list(as_csv.index[as_csv["response_ms"].isna()]) == [1, 2, 8]


def test_shown_columns_are_the_screen_rounding_of_the_exact_ones(
    made: Made, frames: tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, Path]
) -> None:
    as_csv, as_parquet, _, _ = frames
    sc = load_scenario(made.study.scenario_path).scenario
    for frame in (as_csv, as_parquet):
        for side in "AB":
            for s in CLASSES:
                assert list(frame[f"{side}_{s}_per_1000"]) == [
                    per_thousand(r) for r in frame[f"{side}_{s}_recall"]
                ]
            for j, s in enumerate(ATTRIBUTES):
                assert list(frame[f"{side}_{s}_shown"]) == [
                    shown_number(sc.attributes[j], v) for v in frame[f"{side}_{s}"]
                ]
        # latency is shown to 0.1 ms and memory to 1 KB
        assert all(v == round(v, 1) for v in frame["A_latency_shown"])
        assert all(v == round(v) for v in frame["A_memory_shown"])


def test_a_repeat_names_the_question_it_asks_again(
    frames: tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, Path],
) -> None:
    as_csv, _, _, _ = frames
    p01 = as_csv[(as_csv["participant"] == "p01") & ~as_csv["undone"]].reset_index(drop=True)
    repeats = p01[p01["is_repeat"]]
    assert len(repeats) >= 1
    assert p01["repeat_of"].notna().sum() == len(repeats)

    def options(row: pd.Series) -> set[tuple[float, ...]]:
        return {tuple(row[f"{side}_{s}_recall"] for s in CLASSES) for side in "AB"}

    for _, row in repeats.iterrows():
        earlier = p01[p01["question"] == int(row["repeat_of"]) + 1].iloc[0]
        assert options(earlier) == options(row)


def test_posterior_columns_are_weights_and_probabilities(
    frames: tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, Path],
) -> None:
    as_csv, as_parquet, _, _ = frames
    for frame in (as_csv, as_parquet):
        total = sum(frame[f"w_{s}"] for s in SLUGS)
        assert total.to_numpy() == pytest.approx(1.0, abs=1e-9)
        for s in SLUGS:
            assert (frame[f"w_{s}_lo"] <= frame[f"w_{s}"]).all()
            assert (frame[f"w_{s}"] <= frame[f"w_{s}_hi"]).all()
        assert frame["p_best"].notna().all()  # the questions aim at the pool's pick
        assert frame["p_best"].between(0.0, 1.0).all()
        assert frame["p_best"].nunique() > 1
        assert frame["expected_regret"].between(0.0, 1.0).all()
        for side in "AB":
            is_pair = frame["kind"] == "candidates"
            assert (frame[f"candidate_{side}"].notna() == is_pair).all()


def test_csv_and_parquet_hold_the_same_table(
    frames: tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, Path],
) -> None:
    as_csv, as_parquet, _, out = frames
    pd.testing.assert_frame_equal(as_csv, as_parquet, check_dtype=False)
    # read with the Parquet file's types, the CSV gives every value back exactly
    typed = pd.read_csv(out / "answers.csv", dtype=dict(as_parquet.dtypes))
    pd.testing.assert_frame_equal(typed, as_parquet, check_exact=True)


def test_the_codebook_names_every_column_once(
    frames: tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, Path],
) -> None:
    as_csv, as_parquet, book, out = frames
    assert list(book.columns) == ["table", "column", "unit", "meaning"]
    assert list(book["table"].unique()) == ["answers", "participants"]
    answers = book[book["table"] == "answers"]
    assert list(answers["column"]) == list(as_csv.columns) == list(as_parquet.columns)
    assert answers["column"].is_unique
    assert (book["meaning"].str.len() > 20).all()
    entry = answers.set_index("column")
    assert entry.loc["A_malignant_lumps_per_1000", "unit"] == "per 1,000 cases"
    assert "malignant lumps" in entry.loc["A_malignant_lumps_per_1000", "meaning"]
    assert "flagged" in entry.loc["A_malignant_lumps_per_1000", "meaning"]
    assert "cleared" in entry.loc["w_benign_lumps", "meaning"]
    assert entry.loc["B_benign_lumps_recall", "unit"] == "fraction"
    assert entry.loc["A_latency", "unit"] == "ms" and entry.loc["B_memory_shown", "unit"] == "KB"
    assert "latency" in entry.loc["A_latency_shown", "meaning"]
    assert entry.loc["response_ms", "unit"] == "ms"
    assert entry.loc["answered_at", "unit"] == "ISO 8601 time"
    assert entry.loc["w_memory", "unit"] == "weight (0–1, sums to 1)"
    assert entry.loc["p_best", "unit"] == "probability"
    assert "server" in entry.loc["response_timer", "meaning"]
    md = (out / "answers.csv.codebook.md").read_text(encoding="utf-8")
    participants = pd.read_csv(out / "answers.participants.csv")
    answers_md, participants_md = md.split("## participants", 1)
    for name in as_csv.columns:
        assert answers_md.count(f"| `{name}` |") == 1, name
    for name in participants.columns:
        assert participants_md.count(f"| `{name}` |") == 1, name
    assert list(book[book["table"] == "participants"]["column"]) == list(participants.columns)
    # the Parquet export has its own codebook, the same one
    pq_book = pd.read_csv(out / "answers.parquet.codebook.csv", keep_default_na=False)
    pd.testing.assert_frame_equal(pq_book, book)


@pytest.mark.parametrize(
    "existing",
    [
        "answers.parquet",
        "answers.participants.parquet",
        "answers.parquet.codebook.csv",
        "answers.parquet.codebook.md",
        "answers.parquet.datapackage.json",
    ],
)
def test_an_existing_file_is_refused_and_left_as_it_was(
    made: Made, tmp_path: Path, existing: str
) -> None:
    out = tmp_path / "answers.parquet"
    there = tmp_path / existing
    there.write_bytes(b"keep me\x00\xff")
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(InputError, match="exists already") as caught:
        export_study(load_study(made.study.path), out)
    assert caught.value.source == str(there)
    assert "new name" in caught.value.message()
    assert there.read_bytes() == b"keep me\x00\xff"
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing else written


def test_a_dangling_link_is_an_existing_file(made: Made, tmp_path: Path) -> None:
    out = tmp_path / "answers.csv"
    out.symlink_to(tmp_path / "nowhere.csv")
    with pytest.raises(InputError, match="exists already"):
        export_study(load_study(made.study.path), out)
    assert out.is_symlink() and not (tmp_path / "nowhere.csv").exists()


@pytest.mark.parametrize("name", ["answers.xlsx", "answers", "answers.csv.gz"])
def test_a_suffix_other_than_csv_or_parquet_is_refused(
    made: Made, tmp_path: Path, name: str
) -> None:
    with pytest.raises(InputError, match=r"\.csv or \.parquet"):
        export_study(load_study(made.study.path), tmp_path / name)
    assert list(tmp_path.iterdir()) == []


def test_a_missing_folder_is_refused(made: Made, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="folder does not exist"):
        export_study(load_study(made.study.path), tmp_path / "no" / "answers.csv")


def test_misplaced_and_unreadable_session_files_are_skipped_and_named(
    made: Made, frames: tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, Path], tmp_path: Path
) -> None:
    as_csv, _, _, _ = frames
    copy = tmp_path / "study"
    shutil.copytree(made.study.path, copy)
    study = load_study(copy)
    stray = study.sessions_dir / "p02" / made.files["p01"].name
    shutil.copyfile(made.files["p01"], stray)  # p01's session put in p02's folder
    broken = study.sessions_dir / "p02" / "zz-broken.jsonl"
    broken.write_text('{"type": "header"}\n')
    summary = export_study(study, tmp_path / "answers.csv")
    skipped = dict(summary.skipped)
    assert set(skipped) == {str(stray), str(broken)}
    assert "'p01'" in skipped[str(stray)] and "'p02'" in skipped[str(stray)]
    assert skipped[str(broken)].startswith("unreadable")
    assert summary.rows == 10 and summary.participants == ("p01", "p02")
    again = pd.read_csv(tmp_path / "answers.csv")
    assert list(again[again["participant"] == "p02"]["session"]) == [made.files["p02"].name] * 3
    pd.testing.assert_frame_equal(again, as_csv)
    assert summary.to_dict()["skipped"][0]["file"] in skipped


def test_the_export_says_the_answers_that_count_as_status_does(
    made: Made, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`study export` says 9 answers (and the one taken back) where `study status` counts
    6 + 3: not the 10 rows."""
    from tradeoff.cli import main
    from tradeoff.study.status import study_status

    status = study_status(load_study(made.study.path))
    counted = sum(r.answers for r in status.rows if r.withdrawn is None)
    assert counted == 9
    assert main(["study", "export", str(made.study.path), "--out", str(tmp_path / "a.csv")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("9 answers (and 1 taken back by an undo, in rows flagged undone) of 2 ")
    # and the threshold probability of the complete participants only, as study report
    # counts them: p01 (p02 is unfinished, with a threshold of their own so far)
    people = pd.read_csv(tmp_path / "a.participants.csv").set_index("participant")
    assert people.loc["p02", "state"] == "unfinished" and people["threshold"].notna().all()
    assert [p for p, _ in counted_sessions(load_study(made.study.path)).sessions] == ["p01"]
    p01 = threshold_percent(people.loc["p01", "threshold"])
    assert p01 != threshold_percent(people["threshold"].median())  # else this proves nothing
    assert f"The 1 complete participant's threshold probability is {p01} (" in " ".join(out.split())
    assert "median threshold" not in out
