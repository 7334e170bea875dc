"""``tradeoff choices fit``: one session per person from their recorded choices, which
replays to the same posterior as learning from the choices directly, and which session
show and select read (P(best) on the scenario's pool)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from tradeoff.ask.scenario import LoadedScenario, load_scenario
from tradeoff.cli import main
from tradeoff.learn.choices import learn_choices, pairs
from tradeoff.record.log import read_session
from tradeoff.record.records import AnswerRecord
from tradeoff.record.replay import replay
from tradeoff.study.choices import ChoiceTable, fit_file, read_choices

from ..conftest import SCENARIOS, scenario
from ..learn.test_choices import train_file, write

pytestmark = pytest.mark.e2e


def _fitted(tmp_path: Path) -> tuple[LoadedScenario, Path, ChoiceTable, list[Path]]:
    """Two people's train-trip choices (ana took A, bo B), fitted into sessions."""
    loaded = load_scenario(SCENARIOS / "train-trips.toml")
    path = train_file(tmp_path, {"ana": "A", "bo": "B"})
    train = read_choices(path, loaded.scenario, answers=True)
    return loaded, Path(path), train, fit_file(loaded, train, tmp_path / "sessions")


def test_fit_writes_sessions_that_replay_to_the_same_posterior(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    loaded, _, train, files = _fitted(tmp_path)
    assert [f.parent.name for f in files] == ["ana", "bo"]
    rows = train.people()["ana"]
    direct = learn_choices(
        loaded.scenario,
        pairs(loaded.scenario, [r.a for r in rows], [r.b for r in rows]),
        [r.choice for r in rows if r.choice is not None],
    ).result()
    log = read_session(files[0])
    assert log.finished and log.warnings == []
    assert replay(log).result().weights == pytest.approx(direct.weights)
    assert main(["session", "show", str(files[0])]) == 0
    shown = capsys.readouterr().out
    assert "answers 6 (recorded 6, undos 0), complete: yes" in shown and "Unfinished" not in shown
    # The reader did not make these choices: the review speaks of the person who did.
    assert "their answers" in shown and not re.search(r"\byou(r)?\b", shown, re.IGNORECASE)
    assert main(["session", "show", str(files[0]), "--json"]) == 0
    said = " ".join(json.loads(capsys.readouterr().out)["tradeoffs"])
    assert not re.search(r"\byou(r)?\b", said, re.IGNORECASE)


def test_fit_on_the_leaderboard_gives_p_best_on_its_pool(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Recorded choices between two models: a person who always took the model with less
    CO₂ gets a pick, with P(best), from select."""
    names = ["CO2", "IFEval", "BBH", "MATH", "MMLU-PRO"]
    header = ",".join(["person", *(f"{s}_{n}" for s in "AB" for n in names), "answer"])
    green, strong = "0.6,70,30,10,25", "30,85,55,35,50"
    path = write(tmp_path / "t.csv", [header, *[f"eve,{green},{strong},A"] * 5])
    args = ["choices", "fit", str(path), "--scenario", "llm-leaderboard"]
    assert main([*args, "--sessions-dir", str(tmp_path / "s"), "--json"]) == 0
    [session] = json.loads(capsys.readouterr().out)["sessions"]
    assert main(["select", "--session", session, "--json"]) == 0
    [person] = json.loads(capsys.readouterr().out)["stakeholders"]
    assert person["participant"] == "eve" and 0 < person["p_best"] <= 1
    spans = {a.name: a.range[1] - a.range[0] for a in scenario("llm-leaderboard").attributes}
    swing = {name: w * spans[name] for name, w in person["weights"].items()}
    assert swing["CO2"] == max(swing.values())  # over its range, CO₂ matters most
    # session show: no question was asked, and the pick is named in the pool it is of
    assert main(["session", "show", session]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert "The pick these choices make: " in shown and "questions stopped" not in shown
    assert "models of llm-leaderboard.csv, the pool the session was learned with" in shown
    assert main(["session", "show", session, "--json"]) == 0
    pick = json.loads(capsys.readouterr().out)["pick"]
    assert pick["name"] in shown and pick["pool"].endswith("llm-leaderboard.csv")


def test_fitting_twice_into_one_folder_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A second fit of the same people into the same folder would give each two sessions,
    which pick and report would count twice: it is refused before anything is written."""
    path = train_file(tmp_path, {"ana": "A", "bo": "B"})
    args = ["choices", "fit", str(path), "--scenario", "train-trips"]
    sessions = tmp_path / "sessions"
    assert main([*args, "--sessions-dir", str(sessions)]) == 0
    before = sorted(sessions.rglob("*.jsonl"))
    capsys.readouterr()
    assert main([*args, "--sessions-dir", str(sessions)]) == 2
    err = capsys.readouterr().err
    assert "person 'ana' and 1 more: already has a session of 'train-trips'" in err
    assert "Nothing was written" in err and "--sessions-dir" in err and "Traceback" not in err
    assert sorted(sessions.rglob("*.jsonl")) == before


def test_a_scenario_without_a_pool_picks_from_a_pool_file_by_aspect_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """train-trips names no pool: fit says how to give one, and pick reads a pool file whose
    columns are named as the aspects. Its weights line shows the shares of the asked
    aspects as session show does (no aspect's starting guess among them: the choices never
    varied the changes of train)."""
    path = train_file(tmp_path, {"ana": "A"})
    args = ["choices", "fit", str(path), "--scenario", "train-trips"]
    assert main([*args, "--sessions-dir", str(tmp_path / "s")]) == 0
    said = capsys.readouterr().out
    assert "names no pool of options" in said
    assert "the columns price, time, changes, discomfort" in said
    [session] = sorted((tmp_path / "s").rglob("*.jsonl"))
    pool = write(
        tmp_path / "pool.csv",
        ["name,price,time,changes,discomfort", "cheap,20,150,0,1", "fast,40,120,0,1"],
    )
    assert main(["pick", str(pool), "--session", str(session)]) == 0
    out = capsys.readouterr().out
    assert "ana: recommended cheap" in out
    [line] = [x for x in out.splitlines() if "weights over each aspect's whole range" in x]
    shares = {
        name: float(share.rstrip("%"))
        for name, share in re.findall(r"(price|time|discomfort) ([\d.]+)%", line)
    }
    assert set(shares) == {"price", "time"} and "changes (not asked" in line
    assert sum(shares.values()) == pytest.approx(100, abs=1.5)  # rounded shares
    assert main(["session", "show", str(session), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    asked = dict(zip(shown["names"], shown["asked_shares"], strict=True))
    for name, share in shares.items():
        assert share == pytest.approx(100 * asked[name], abs=0.6)
    # A report of this one person speaks of them by name: they are not its reader.
    assert main(["report", str(pool), "--session", str(session), "--out", str(tmp_path / "r")]) == 0
    md = (tmp_path / "r" / "report.md").read_text()
    people = md[md.index("## Stakeholders") : md.index("For the practitioner")]
    assert "their questions never varied it" in people
    assert not re.search(r"\byou(r)?\b", people, re.IGNORECASE)


def test_a_change_of_a_weight_no_choice_informed_says_it_is_the_starting_guess(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ana's choices never varied the changes of train (nor the comfort); with a pool whose
    trips differ in them, "what would change the pick" may name that weight, and says it
    is a guess."""
    path = train_file(tmp_path, {"ana": "A"})
    args = ["choices", "fit", str(path), "--scenario", "train-trips"]
    assert main([*args, "--sessions-dir", str(tmp_path / "s")]) == 0
    [session] = sorted((tmp_path / "s").rglob("*.jsonl"))
    pool = write(
        tmp_path / "pool.csv",
        ["name,price,time,changes,discomfort", "cheap,20,150,2,1", "fast,40,120,0,1"],
    )
    capsys.readouterr()
    assert main(["pick", str(pool), "--session", str(session), "--json"]) == 0
    [person] = json.loads(capsys.readouterr().out)["stakeholders"]
    said = {c["aspect"]: c["sentence"] for c in person["what_would_change_the_pick"]}
    assert said["changes"].startswith(
        "No question asked about changes, so its weight is only the starting guess: if changes"
    )
    assert not any("starting guess" in said[a] for a in ("price", "time"))
    asked = {c["aspect"]: c["asked"] for c in person["what_would_change_the_pick"]}
    assert asked == {"price": True, "time": True, "changes": False, "discomfort": False}


def test_rows_showing_two_equal_options_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A row whose two options are the same on every aspect is learnt from (it says how
    the person answers between equals) and named by its line, in fit and predict, as
    text and in JSON; a file without one says nothing of it."""
    path = train_file(tmp_path, {"ana": "A"})
    lines = path.read_text().splitlines()
    cheap = lines[1].split(",")[1:5]
    lines[3] = ",".join(["ana", *cheap, *cheap, "B"])  # line 4: the cheap trip twice
    path.write_text("\n".join(lines) + "\n")
    args = ["choices", "fit", str(path), "--scenario", str(SCENARIOS / "train-trips.toml")]
    assert main([*args, "--sessions-dir", str(tmp_path / "s")]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert "1 row of " in said and "(line 4) shows two options the same on every aspect" in said
    assert main([*args, "--sessions-dir", str(tmp_path / "t"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["lines_alike"] == [4]
    holdout = write(tmp_path / "h.csv", [lines[0].rsplit(",", 1)[0], lines[1].rsplit(",", 1)[0]])
    predict = ["choices", "predict", str(path), str(holdout), "--out", str(tmp_path / "p.csv")]
    assert main([*predict, "--scenario", str(SCENARIOS / "train-trips.toml")]) == 0
    assert "(line 4) shows two options the same" in " ".join(capsys.readouterr().out.split())
    plain = train_file(tmp_path, {"bo": "B"})
    assert main([*args[:2], str(plain), *args[3:], "--sessions-dir", str(tmp_path / "u")]) == 0
    assert "the same on every aspect" not in capsys.readouterr().out


def test_choices_of_an_option_worse_on_every_aspect_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A choice of the option that is no better on any aspect and worse on one (a trip
    dearer and no faster) is named by its line with its share, in fit and predict, as
    text and in JSON; a choice of the better one, of one better on some aspect only, or
    "can't tell" is not."""
    path = train_file(tmp_path, {"ana": "A"})
    lines = path.read_text().splitlines()
    cheap = lines[1].split(",")[1:5]
    dearer = [str(float(cheap[0]) + 5), *cheap[1:]]
    lines[2] = ",".join(["ana", *cheap, *dearer, "B"])  # line 3: the dearer one taken
    lines[3] = ",".join(["ana", *dearer, *cheap, "B"])  # line 4: the cheaper one taken
    lines[4] = ",".join(["ana", *cheap, *dearer, "can't tell"])
    path.write_text("\n".join(lines) + "\n")
    args = ["choices", "fit", str(path), "--scenario", "train-trips"]
    assert main([*args, "--sessions-dir", str(tmp_path / "s")]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert f"1 of 5 choices in {path} (line 3: 20%) took the option that is no better" in said
    assert main([*args, "--sessions-dir", str(tmp_path / "t"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["lines_chose_worse"] == [3]
    holdout = write(tmp_path / "h.csv", [lines[0].rsplit(",", 1)[0], lines[1].rsplit(",", 1)[0]])
    predict = ["choices", "predict", str(path), str(holdout), "--out", str(tmp_path / "p.csv")]
    assert main([*predict, "--scenario", "train-trips", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["train_lines_chose_worse"] == [3]
    plain = train_file(tmp_path, {"bo": "B"})  # the fast trip: dearer but faster
    assert main([*args[:2], str(plain), *args[3:], "--sessions-dir", str(tmp_path / "u")]) == 0
    assert "no better on any aspect" not in capsys.readouterr().out


def test_the_summary_holds_each_persons_shares_as_session_show_says_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A row per person, read back against each session file's own review (``session show
    --json``): a researcher gets the engine's view of every respondent in one table. An
    existing summary is refused before any session is written."""
    import csv

    path = train_file(tmp_path, {"ana": "A", "bo": "B"})
    summary = tmp_path / "people.csv"
    args = ["choices", "fit", str(path), "--scenario", "train-trips", "--summary", str(summary)]
    assert main([*args, "--sessions-dir", str(tmp_path / "sessions")]) == 0
    capsys.readouterr()
    with summary.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["person"] for r in rows] == ["ana", "bo"]
    names = scenario("train-trips").weight_names
    for row in rows:
        assert int(row["choices"]) == 6
        assert main(["session", "show", row["session"], "--json"]) == 0
        shown = json.loads(capsys.readouterr().out)["asked_shares"]
        for name, share in zip(names, shown, strict=True):
            cell = row[f"{name}_share"]
            assert (cell == "") == (share is None), (name, cell, share)
            if share is not None:
                assert float(cell) == pytest.approx(share, abs=5e-5)
                low, high = float(row[f"{name}_share_low"]), float(row[f"{name}_share_high"])
                assert 0 <= low <= float(cell) + 5e-5 and float(cell) - 5e-5 <= high <= 1
    again = tmp_path / "again"
    assert main([*args, "--sessions-dir", str(again)]) == 2
    assert "people.csv: already exists; nothing was written" in capsys.readouterr().err
    assert not again.exists()


# A session made from choices recorded elsewhere names where they came from: its header the
# file and the SHA-256 of its bytes, each answer its line, and session show (text and JSON)
# both; a session answered here names none.


def test_a_fitted_session_names_its_file_and_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, path, train, files = _fitted(tmp_path)
    digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    for file, (person, rows) in zip(files, train.people().items(), strict=True):
        log = read_session(file)
        assert log.header.source is not None and log.header.participant == person
        assert log.header.source.file == str(path) and log.header.source.sha256 == digest
        lines = [e.source_line for e in log.events if isinstance(e, AnswerRecord)]
        assert lines == [r.line for r in rows]
    bo = [r.line for r in train.people()["bo"]]
    assert bo[0] > 2  # the second person's rows follow the first's
    assert main(["session", "show", str(files[1])]) == 0
    shown = capsys.readouterr().out
    said = f"read from {path} lines {bo[0]}–{bo[-1]} (SHA-256 {digest[:12]}…)"
    assert said in shown.replace("\n", " ")
    assert main(["session", "show", str(files[1]), "--json"]) == 0
    source = json.loads(capsys.readouterr().out)["source"]
    assert source == {"file": str(path), "sha256": digest, "lines": bo}


def test_a_session_answered_here_names_no_source(capsys: pytest.CaptureFixture[str]) -> None:
    example = sorted(Path("sessions").glob("**/*.jsonl"))[0]
    text = example.read_text(encoding="utf-8")
    assert '"source' not in text  # written as before the field existed
    assert main(["session", "show", str(example), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["source"] is None
    assert main(["session", "show", str(example)]) == 0
    assert "recorded elsewhere" not in capsys.readouterr().out
