"""`tradeoff simulate` and the default command."""

from __future__ import annotations

import json

import pytest

from tradeoff.cli import main

from ..conftest import SCENARIOS

pytestmark = pytest.mark.e2e

K2 = str(SCENARIOS / "paper-k2-two-costs.toml")


def run_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main(argv) == 0
    out = capsys.readouterr().out
    return json.loads(out)  # exactly one JSON document


def test_many_runs_with_random_truths(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(["simulate", K2, "--runs", "5", "--seed", "3", "--json"], capsys)
    assert data["runs"] == 5
    assert set(data) >= {"strategy", "names", "runs", "queries", "l1_error"}
    assert "weights" not in data
    assert data["queries"] == {"median": 120, "max": 120}
    l1 = data["l1_error"]
    assert isinstance(l1, dict)
    assert l1["median"] <= l1["p90"] <= l1["max"]


def test_same_seed_same_output(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", K2, "--runs", "3", "--seed", "8", "--noise", "flip:0.1", "--json"]
    assert run_json(argv, capsys) == run_json(argv, capsys)


def test_noise_budget_and_indifference(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(
        [
            "simulate",
            K2,
            "--truth",
            "1,1,1,1",
            "--noise",
            "logistic:0.01",
            "--indifference",
            "0.001",
            "--budget",
            "17",
            "--json",
        ],
        capsys,
    )
    assert data["queries"] == {"median": 17, "max": 17}
    assert data["truth"] == [0.25, 0.25, 0.25, 0.25]


def test_human_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", K2, "--truth", "0.32,0.17,0.28,0.23"]) == 0
    out = capsys.readouterr().out
    assert "class1" in out and "L1 error" in out


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        (["--truth", "1,2"], "--truth needs 4 weights"),
        (["--truth", "a,b,c,d"], "comma-separated numbers"),
        (["--truth=-1,1,1,1"], "non-negative"),
        (["--noise", "flip:2"], "--noise"),
        (["--noise", "loud"], "--noise"),
        (["--runs", "0"], "--runs"),
        (["--epsilon", "0"], "--epsilon"),
        (["--strategy", "guess"], "invalid choice"),
    ],
)
def test_bad_arguments_exit_2(
    extra: list[str], fragment: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["simulate", K2, *extra]) == 2
    err = capsys.readouterr().err
    assert fragment in err and "Traceback" not in err


def test_default_command_opens_the_app_on_the_default_scenario(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tradeoff.tui.app import TradeoffApp

    opened = []
    monkeypatch.setattr(TradeoffApp, "run", lambda self, **kw: opened.append(self.settings))
    monkeypatch.setattr("tradeoff.cli.app.has_terminal", lambda: True)
    assert main([]) == 0
    assert opened[0].scenario.name == "breast-cancer-triage.toml"
    assert opened[0].resume is None


def test_decision_block_for_a_scenario_with_a_pool(capsys: pytest.CaptureFixture[str]) -> None:
    """With a pool, each run's recommendation is compared with the truth's best model."""
    bc = str(SCENARIOS / "breast-cancer-triage.toml")
    data = run_json(["simulate", bc, "--runs", "3", "--budget", "8", "--json"], capsys)
    decision = data["decision"]
    assert isinstance(decision, dict)
    assert 0 <= decision["right_pick_rate"] <= 1
    assert 0 <= decision["regret"]["median"] <= decision["regret"]["max"] <= 1
    assert 1 <= decision["questions"]["max"] <= 8  # the budget is a hard cap
    assert "decision" not in run_json(["simulate", K2, "--json"], capsys)  # no pool


def test_trace_reports_the_error_after_every_question(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["simulate", K2, "--strategy", "bisection", "--runs", "2", "--trace", "--json"]
    data = run_json(argv, capsys)
    trace = data["trace"]
    assert isinstance(trace, dict)
    assert trace["questions"][0] == 1 and len(trace["l1_median"]) == data["queries"]["max"]
    # After the last question the trace is the final error; the first is far larger.
    assert trace["l1_median"][-1] == pytest.approx(data["l1_error"]["median"])
    assert trace["l1_median"][0] > 10 * trace["l1_median"][-1]


DEFAULT = str(SCENARIOS / "breast-cancer-triage.toml")


@pytest.mark.parametrize("noise", ["display", "indifference:0.002"])
def test_people_who_read_the_screen_or_cannot_tell(
    noise: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["simulate", DEFAULT, "--runs", "3", "--budget", "12", "--noise", noise, "--json"]
    data = run_json(argv, capsys)
    assert data["noise"] == noise
    repeats = data["pair_repeats_max"]
    assert isinstance(repeats, int) and 1 <= repeats <= 2
    coverage = data["interval_coverage"]
    assert isinstance(coverage, float) and 0.0 <= coverage <= 1.0


def test_display_person_answers_like_the_exact_one_on_rounded_questions(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Questions are about the options as shown, so reading the screen is exact."""
    base = ["simulate", DEFAULT, "--runs", "2", "--budget", "10", "--json", "--noise"]
    exact = run_json([*base, "exact"], capsys)
    display = run_json([*base, "display"], capsys)
    assert exact["l1_error"] == display["l1_error"]


def test_unknown_noise_is_explained(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", DEFAULT, "--noise", "screen"]) == 2
    err = capsys.readouterr().err
    assert "display" in err and "indifference:TAU" in err


def test_truths_file_one_person_per_row(
    tmp_path: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--truths``: a person per row (header by name, any order), each in ``people`` with the
    truth, the pick, P(best) at the stop, questions and their kinds; a row equals ``--truth``."""
    from pathlib import Path

    f = Path(str(tmp_path)) / "truths.csv"
    f.write_text("benign,malignant,memory,latency\n0.3,0.6,0.05,0.05\n1,1,0,0\n")
    argv = ["simulate", "breast-cancer-triage", "--strategy", "joint", "--budget", "8"]
    data = run_json([*argv, "--truths", str(f), "--json"], capsys)
    assert data["runs"] == 2
    people = data["people"]
    assert isinstance(people, list) and len(people) == 2
    first = people[0]
    assert first["truth"] == pytest.approx([0.6, 0.3, 0.05, 0.05])
    assert first["recommended"] and isinstance(first["p_best"], float)
    assert 0 < first["p_best"] <= 1
    assert first["questions"] == len(first["kinds"]) <= 8
    assert set(first["kinds"]) <= {"trade", "candidates"}
    decision = data["decision"]
    assert isinstance(decision, dict)
    assert decision["right_pick_rate"] == sum(p["right"] for p in people) / 2
    # The first row is the same person as --truth with the same seed.
    one = run_json([*argv, "--truth", "0.6,0.3,0.05,0.05", "--json"], capsys)
    assert one["people"][0] == first


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("a,b\n1,2\n", "line 1 (header)"),
        ("1,2,3,x\n1,2,3\n", "line 2: has 3 values"),
        ("1,2,3,x\n", "line 1: has a value that is not a number"),
        ("1,-1,0,0\n", "line 1: has a negative"),
        # lines as an editor numbers them: blank ones count
        ("\nmalignant,benign,latency,memory\n\n1,1,0,0\n\n1,x,0,0\n", "line 6: has a value"),
        (
            "1,1,0,0\n1," + "2" * 200_000 + ",0,0\n",
            "line 2: has a cell longer than 131,072 characters",
        ),
        ("malignant,benign,latency,memory\n", "no people"),
        ("", "has no rows"),
    ],
)
def test_truths_file_mistakes_are_located(
    tmp_path: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str], text: str, says: str
) -> None:
    from pathlib import Path

    f = Path(str(tmp_path)) / "truths.csv"
    f.write_text(text)
    assert main(["simulate", "breast-cancer-triage", "--truths", str(f)]) == 2
    err = capsys.readouterr().err
    assert str(f) in err and says in err and "Fix:" in err


def test_the_output_says_how_to_get_it_again(
    tmp_path: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    """``run``: the version, the scenario's and the pool's files with their hashes, the
    seed, where the truths came from and the settings: a run made from it alone is the
    same run; the text names the seed and the version on its first line."""
    import hashlib
    from pathlib import Path

    from tradeoff import __version__

    argv = ["simulate", "breast-cancer-triage", "--budget", "6", "--runs", "2", "--seed", "5"]
    data = run_json([*argv, "--noise", "flip:0.1", "--json"], capsys)
    run = data["run"]
    assert isinstance(run, dict)
    files = run["scenario"]
    assert files["sha256"] == hashlib.sha256(Path(files["path"]).read_bytes()).hexdigest()
    assert files["pool_sha256"] == hashlib.sha256(Path(files["pool"]).read_bytes()).hexdigest()
    assert run["tradeoff"] == __version__ and run["seed"] == 5
    assert (run["strategy"], run["budget"], run["stop"]) == ("joint", 6, "decision")
    assert run["truths"] == {"from": "a flat Dirichlet over swing weights, one per run"}
    again = [
        "simulate",
        files["path"],
        "--strategy",
        run["strategy"],
        "--budget",
        str(run["budget"]),
        "--stop",
        run["stop"],
        "--seed",
        str(run["seed"]),
        "--runs",
        str(data["runs"]),
        "--noise",
        data["noise"],
        "--json",
    ]
    assert run_json(again, capsys)["people"] == data["people"]
    other = run_json([*argv, "--seed", "6", "--noise", "flip:0.1", "--json"], capsys)
    assert other["run"]["seed"] == 6 and other["people"] != data["people"]
    f = Path(str(tmp_path)) / "truths.csv"
    f.write_text("malignant,benign,latency,memory\n0.6,0.3,0.05,0.05\n")
    told = run_json([*argv, "--truths", str(f), "--json"], capsys)["run"]["truths"]
    assert told == {"from": str(f), "sha256": hashlib.sha256(f.read_bytes()).hexdigest()}
    assert main([*argv]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.endswith(f", seed 5 (tradeoff {__version__})"), first
