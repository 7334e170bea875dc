"""Pools from an Optuna study (`tradeoff pool from-optuna`, `tradeoff.pool.searches`) and
the pick written back to it (`select --optuna-storage`).

Real objects only: SQLite storages made in the test with Optuna's own API (a grid searched
by `study.optimize`, with a pruned, a failed and a running trial; trials added with
`create_trial`), the pools checked against Pareto fronts computed here by brute force and by
`tradeoff.judge.fronts`, names and values no pool may hold, and what is written back read
through Optuna's API. Skipped, saying why, only when the optuna extra is not installed."""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import shutil
import sqlite3
import sys
import warnings
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tradeoff.ask.scenario import load_scenario
from tradeoff.choose.pool_metric import metric_objectives
from tradeoff.cli import main
from tradeoff.errors import InputError
from tradeoff.judge.fronts import nondominated, to_minimisation
from tradeoff.pool import Objective, load_pool
from tradeoff.pool.searches import from_optuna

from ..conftest import ROOT

pytestmark = pytest.mark.e2e

BREAST = "breast-cancer-triage"
EXAMPLES = ROOT / "sessions" / "examples"
GRID = {"C": [0.1, 1.0, 10.0], "threshold": [0.2, 0.35, 0.5, 0.65]}
PRUNED, FAILED = (10.0, 0.65), (0.1, 0.2)


def _optuna() -> Any:
    optuna = pytest.importorskip(
        "optuna", reason="the optuna extra is not installed (pip install -e '.[optuna]')"
    )
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    return optuna


def _measured(c: float, t: float) -> tuple[float, float, float, float]:
    """A classifier of strength log10(C) at threshold t: recall of malignant and benign
    lumps traded by the threshold; C = 0.1 is worse than C = 1 in both recalls."""
    k = math.log10(c)
    return (
        0.99 - 0.3 * t + 0.005 * k,
        0.80 + 0.3 * t - 0.01 * abs(k) - 0.005 * k,
        0.2 * (k + 2),  # latency, ms
        5.0 + 10.0 * t,  # size, KB
    )


def _objective(trial: Any) -> tuple[float, float]:
    optuna = _optuna()
    c = trial.suggest_categorical("C", GRID["C"])
    t = trial.suggest_categorical("threshold", GRID["threshold"])
    trial.suggest_categorical("solver", ["lbfgs"])
    if (c, t) == PRUNED:
        raise optuna.TrialPruned()
    if (c, t) == FAILED:
        raise ValueError("did not converge")
    recall_m, recall_b, latency, size = _measured(c, t)
    trial.set_user_attr("latency_ms", latency)
    trial.set_user_attr("size_kb", size)
    if c == 1.0:
        trial.set_user_attr("energy_j", 3.0 * t)
    return recall_m, recall_b


@pytest.fixture(scope="module")
def storage(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A SQLite storage with the study 'triage' (two recalls to maximise, a 3 x 4 grid:
    one trial pruned, one failed, then one left running) and the study 'loss' (one
    objective, four trials)."""
    optuna = _optuna()
    url = f"sqlite:///{tmp_path_factory.mktemp('optuna') / 'study.db'}"
    study = optuna.create_study(
        storage=url,
        study_name="triage",
        directions=["maximize", "maximize"],
        sampler=optuna.samplers.GridSampler({**GRID, "solver": ["lbfgs"]}, seed=0),
    )
    with warnings.catch_warnings():  # set_metric_names is marked experimental
        warnings.simplefilter("ignore")
        study.set_metric_names(["recall_malignant", "recall_benign"])
    study.optimize(_objective, n_trials=12, catch=(ValueError,))
    study.ask()  # a trial started and never told: running
    loss = optuna.create_study(storage=url, study_name="loss", direction="minimize")
    for x in (3.0, 1.0, 2.25, 4.0):
        loss.add_trial(
            optuna.trial.create_trial(
                value=(x - 2.5) ** 2,
                params={"x": x},
                distributions={"x": optuna.distributions.FloatDistribution(0, 5)},
            )
        )
    return url


def _copy(storage: str, folder: Path) -> str:
    """A copy of the SQLite storage in ``folder``, for a test that writes to it."""
    copy = folder / "copy.db"
    shutil.copyfile(storage.removeprefix("sqlite:///"), copy)
    return f"sqlite:///{copy}"


def _front(values: Sequence[Sequence[float]], maximise: Sequence[bool]) -> list[int]:
    """Indices of the points no other point dominates (brute force, duplicates kept)."""
    signs = [-1.0 if m else 1.0 for m in maximise]
    points = [[s * v for s, v in zip(signs, row, strict=True)] for row in values]
    return [
        i
        for i, p in enumerate(points)
        if not any(all(a <= b for a, b in zip(q, p, strict=True)) and q != p for q in points)
    ]


def test_the_pareto_front_and_all_completed_trials(storage: str) -> None:
    """The pool is the trials no completed trial dominates, by hand and by
    `tradeoff.judge.fronts`; pruned, failed and running trials are left out and counted."""
    optuna = _optuna()
    trials = optuna.load_study(study_name="triage", storage=storage).trials
    done = [t for t in trials if t.state == optuna.trial.TrialState.COMPLETE]
    assert len(done) == 10 and len(trials) == 13
    expected = [done[i].number for i in _front([t.values for t in done], [True, True])]
    # the front by hand: C = 1 and C = 10 at every threshold except the pruned one
    by_grid = sorted(t.number for t in done if t.params["C"] != 0.1)
    assert sorted(expected) == by_grid
    mask = nondominated(to_minimisation(np.array([t.values for t in done]), [True, True]))
    assert sorted(np.array([t.number for t in done])[mask].tolist()) == by_grid

    mapping = {"recall_malignant": "values.0", "recall_benign": "values.recall_benign"}
    measured = from_optuna(
        {**mapping, "latency_ms": "user_attrs.latency_ms"}, storage=storage, study="triage"
    )
    frame = measured.frame
    assert frame["optuna_trial"].tolist() == sorted(expected)
    assert frame["model"].tolist() == [f"trial-{n}" for n in sorted(expected)]
    for _, row in frame.iterrows():
        trial = trials[int(row["optuna_trial"])]
        assert (row["recall_malignant"], row["recall_benign"]) == pytest.approx(trial.values)
        assert row["latency_ms"] == pytest.approx(
            _measured(trial.params["C"], trial.params["threshold"])[2]
        )
    provenance = measured.provenance
    assert provenance["trials"] == "pareto" and provenance["completed"] == 10
    assert provenance["off_the_front"] == 10 - len(expected)
    assert provenance["left_out_by_state"] == {"FAIL": 1, "PRUNED": 1, "RUNNING": 1}
    assert provenance["directions"] == ["maximize", "maximize"]

    every = from_optuna(mapping, storage=storage, study="triage", trials="all").frame
    assert every["optuna_trial"].tolist() == [t.number for t in done]
    # one objective: every completed trial by default, named by a param
    loss = from_optuna({"loss": "values.0"}, storage=storage, study="loss", name="params.x")
    assert loss.frame["model"].tolist() == ["3.0", "1.0", "2.25", "4.0"]
    assert loss.provenance["trials"] == "all"


@pytest.fixture(scope="module")
def spare(tmp_path_factory: pytest.TempPathFactory) -> str:
    _optuna()
    return f"sqlite:///{tmp_path_factory.mktemp('fronts') / 'fronts.db'}"


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    points=st.lists(
        st.tuples(st.integers(0, 4), st.integers(0, 4), st.integers(0, 4)),
        min_size=2,
        max_size=9,
    ),
    maximise=st.tuples(st.booleans(), st.booleans(), st.booleans()),
)
def test_any_front_is_read_as_optuna_keeps_it(
    spare: str, points: list[tuple[int, int, int]], maximise: tuple[bool, bool, bool]
) -> None:
    """For any points and directions (ties and duplicates included), the pool is the
    brute-force front; its distinct points are `tradeoff.judge.fronts`' front."""
    optuna = _optuna()
    study = optuna.create_study(
        storage=spare, directions=["maximize" if m else "minimize" for m in maximise]
    )
    for p in points:
        study.add_trial(optuna.trial.create_trial(values=[float(v) for v in p]))
    expected = _front(points, maximise)
    mapping = {f"v{j}": f"values.{j}" for j in range(3)}
    if len(expected) < 2:
        with pytest.raises(InputError, match="a pool needs at least 2"):
            from_optuna(mapping, storage=spare, study=study.study_name)
        return
    frame = from_optuna(mapping, storage=spare, study=study.study_name).frame
    assert frame["optuna_trial"].tolist() == expected
    distinct = np.unique(np.array(points, dtype=float), axis=0)
    mask = nondominated(to_minimisation(distinct, list(maximise)))
    read = np.unique(frame[["v0", "v1", "v2"]].to_numpy(dtype=float), axis=0)
    np.testing.assert_array_equal(read, distinct[mask])


def test_the_command_line_end_to_end(
    storage: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`pool from-optuna` writes a pool the scenario loads, `rank` ranks it, `select` picks
    from it with an example session and writes the pick back only with the flag: read back
    through Optuna."""
    optuna = _optuna()
    storage = _copy(storage, tmp_path)
    pool = tmp_path / "pool.csv"
    build = ["pool", "from-optuna", "--storage", storage, "--study", "triage"]
    build += ["--scenario", BREAST, "--map", "latency=user_attrs.latency_ms"]
    assert main([*build, "--map", "memory=user_attrs.size_kb", "--out", str(pool)]) == 0
    loaded = load_pool(pool, metric_objectives(load_scenario(BREAST).scenario))
    study = optuna.load_study(study_name="triage", storage=storage)
    for name, row, values in zip(
        loaded.names, loaded.frame.to_dict("records"), loaded.values, strict=True
    ):
        trial = study.trials[row["optuna_trial"]]
        assert name == f"trial-{trial.number}"
        c, t = trial.params["C"], trial.params["threshold"]
        np.testing.assert_allclose(values, _measured(c, t), rtol=1e-12)
    provenance = json.loads(pool.with_suffix(".provenance.json").read_text())
    assert provenance["study"] == "triage" and provenance["command"].startswith("tradeoff pool")
    before = pool.read_bytes()
    assert main([*build, "--out", str(pool)]) == 2  # never over a pool without --force
    assert "already exists" in capsys.readouterr().err and pool.read_bytes() == before

    objectives = ["recall_malignant:max", "recall_benign:max", "latency_ms:min", "size_kb:min"]
    rank = ["rank", str(pool), *(a for o in objectives for a in ("--objective", o)), "--json"]
    capsys.readouterr()
    assert main(rank) == 0
    ranked = json.loads(capsys.readouterr().out)
    assert {r["name"] for r in ranked["ranking"]} <= set(loaded.names)

    session = sorted((EXAMPLES / "example-oncologist").glob("*.jsonl"))[0]
    select = ["select", str(pool), "--session", str(session), "--json"]
    assert main(select) == 0
    plain = json.loads(capsys.readouterr().out)
    assert "optuna" not in plain and study.user_attrs == {}
    assert main([*select, "--optuna-study", "triage"]) == 2  # a study alone writes nothing
    assert "--optuna-storage" in capsys.readouterr().err
    started = datetime.now(UTC) - timedelta(seconds=1)
    assert main([*select, "--optuna-storage", storage, "--optuna-study", "triage"]) == 0
    data = json.loads(capsys.readouterr().out)
    person = data["stakeholders"][0]
    pick = optuna.load_study(study_name="triage", storage=storage).user_attrs["tradeoff_pick"]
    assert pick == data["optuna"]["value"]
    assert pick["recommended"] == person["recommended"]
    picked = loaded.frame[loaded.frame["model"] == person["recommended"]]
    assert pick["trial"] == int(picked["optuna_trial"].iloc[0])
    assert pick["p_best"] == pytest.approx(person["p_best"])
    assert pick["participants"] == ["example-oncologist"] and pick["scenario"] == BREAST
    assert pick["sessions"] == [session.name]
    assert started <= datetime.fromisoformat(pick["decided"]) <= datetime.now(UTC)


def test_mistakes_in_reading_a_study_are_located(
    storage: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    """Each mistake exits with 2 and a message naming the storage, the place and the fix,
    no traceback, and writes nothing (a database that is not Optuna's is left as it was, a
    SQLite file that is not there is not made)."""
    _optuna()
    out = str(tmp_path / "x.csv")

    def refused(args: list[str], *expected: str) -> str:
        capsys.readouterr()
        assert main(["pool", "from-optuna", *args, "--out", out]) == 2
        err = capsys.readouterr().err
        assert "Traceback" not in err and not Path(out).exists()
        for text in expected:
            assert text in err, (text, err)
        return err

    m = ["--map", "recall_malignant=values.0"]
    db = storage.removeprefix("sqlite:///")
    refused(["--storage", db, *m], "is not a database URL", f"sqlite:///{db}")
    missing = tmp_path / "nope.db"
    refused(["--storage", f"sqlite:///{missing}", *m], "does not exist")
    assert not missing.exists()
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as con:
        con.execute("create table runs (id integer)")
    digest = hashlib.sha256(other.read_bytes()).hexdigest()
    refused(["--storage", f"sqlite:///{other}", *m], "is not an Optuna storage")
    assert hashlib.sha256(other.read_bytes()).hexdigest() == digest
    refused(["--storage", "nosuchdb://h/x", *m], "Optuna storage", "sqlite:///study.db")
    err = refused(["--storage", "postgresql://ann:secret@127.0.0.1:1/x", *m], "Optuna storage")
    assert "secret" not in err and "ann:***@" in err
    refused(["--storage", storage, *m], "holds 2 studies", "'loss'", "--optuna-study NAME")
    refused(["--storage", storage, "--study", "nope", *m], "study 'nope'", "'triage'")
    s = ["--storage", storage, "--study", "triage"]
    refused([*s, "--map", "r=values.2"], "values.0 to values.1", "recall_benign")
    refused([*s, "--map", "r=values.recall"], "no metric name", "recall_malignant")
    refused([*s, "--map", "latency_ms=user_attrs.latency"], "user_attrs.latency_ms")
    refused([*s, "--map", "s=params.solver"], "trial 0, params.solver", "'lbfgs'", "not a number")
    refused([*s, "--map", "r=metrics.x"], "NAME=values.INDEX")
    # a value some trials lack: named, or with --skip-incomplete those trials left out
    energy = [*s, "--trials", "all", "--map", "energy_j=user_attrs.energy_j"]
    refused(energy, "has no energy_j (user_attrs.energy_j)", "--skip-incomplete")
    capsys.readouterr()
    assert main(["pool", "from-optuna", *energy, "--skip-incomplete", "--out", out]) == 0
    assert "left out trial" in capsys.readouterr().err
    frame = pd.read_csv(out)
    optuna = _optuna()
    study = optuna.load_study(study_name="triage", storage=storage)
    assert frame["optuna_trial"].tolist() == [
        t.number for t in study.trials if "energy_j" in t.user_attrs
    ]
    Path(out).unlink()
    Path(out).with_suffix(".provenance.json").unlink()
    # one objective's front is one trial: too few, and the fix says --trials all
    refused(
        ["--storage", storage, "--study", "loss", "--trials", "pareto", "--map", "l=values.0"],
        "gives 1 completed trial",
        "--trials all",
    )
    # a value its meaning does not allow (a recall above 1)
    refused([*s, "--map", "recall_malignant=user_attrs.size_kb"], "must lie in [0, 1]")
    refused([*s, *m, "--name", "user_attrs.label"], "--name", "user_attrs.latency_ms")
    # a study whose only trial was pruned
    optuna = _optuna()
    empty = f"sqlite:///{tmp_path / 'empty.db'}"
    pruned = optuna.trial.create_trial(state=optuna.trial.TrialState.PRUNED)
    optuna.create_study(storage=empty, study_name="e").add_trial(pruned)
    refused(["--storage", empty, *m], "has no completed trial (1 pruned)")
    monkeypatch.setitem(sys.modules, "optuna", None)
    err = refused(
        ["--storage", "postgresql://ann:secret@db/x", *m], "pip install 'tradeoff[optuna]'"
    )
    assert "secret" not in err


def test_a_pick_is_written_only_to_the_study_and_trial_of_the_pool(
    storage: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`select --optuna-storage` refuses a pool without trial numbers, a pool read from
    another study and a trial the study does not have, before writing anything."""
    optuna = _optuna()
    storage = _copy(storage, tmp_path)
    pool = tmp_path / "pool.csv"
    build = ["pool", "from-optuna", "--storage", storage, "--study", "triage", "--scenario"]
    assert main([*build, BREAST, "--out", str(pool)]) == 0
    session = sorted((EXAMPLES / "example-oncologist").glob("*.jsonl"))[0]

    def refused(pool_file: Path, study: str, *expected: str) -> None:
        capsys.readouterr()
        flags = ["--optuna-storage", storage, "--optuna-study", study]
        assert main(["select", str(pool_file), "--session", str(session), *flags]) == 2
        err = capsys.readouterr().err
        assert "Traceback" not in err
        for text in expected:
            assert text in err, (text, err)
        for name in ("triage", "loss"):
            attrs = optuna.load_study(study_name=name, storage=storage).user_attrs
            assert "tradeoff_pick" not in attrs

    shipped = ROOT / "src" / "tradeoff" / "shipped" / "pools" / "breast-cancer.csv"
    refused(shipped, "triage", "optuna_trial", "tradeoff pool from-optuna")
    refused(pool, "loss", "read from the study 'triage'", "--optuna-study triage")
    moved = tmp_path / "moved.csv"
    frame = pd.read_csv(pool).assign(optuna_trial=999)
    frame.to_csv(moved, index=False)
    refused(moved, "triage", "trial 999", "does not exist")
    refused(pool, "nope", "study 'nope'", "--optuna-study")


def test_every_grid_point_is_a_trial(storage: str, tmp_path: Path) -> None:
    """The fixture's grid was searched whole: every (C, threshold) once. And why the pick
    is kept on the study: the installed Optuna refuses to change a finished trial's user
    attributes (if it ever allows it, this fails and the pick may go on the trial too)."""
    optuna = _optuna()
    study = optuna.load_study(study_name="triage", storage=_copy(storage, tmp_path))
    seen = sorted((t.params["C"], t.params["threshold"]) for t in study.trials if t.params)
    assert seen == sorted(itertools.product(GRID["C"], GRID["threshold"]))
    finished = study.trials[0]
    with pytest.raises(optuna.exceptions.UpdateFinishedTrialError):
        study._storage.set_trial_user_attr(finished._trial_id, "tradeoff_pick", True)


def test_hostile_names_and_impossible_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Names a spreadsheet would evaluate or a terminal would obey are written as text and
    read back as written; a latency that is negative, infinite or not a number is refused
    with the trial, or left out and named with --skip-incomplete."""
    optuna = _optuna()
    url = f"sqlite:///{tmp_path / 'hostile.db'}"
    study = optuna.create_study(storage=url, study_name="h", directions=["maximize"] * 2)
    attrs: list[tuple[str, Any]] = [
        ('=HYPERLINK("http://x","y")', 1.0),
        ("+plus\x1b[2J", 2.0),
        ("ok", 3.0),
        ("negative", -0.5),
        ("infinite", math.inf),
        ("nan", math.nan),
    ]
    for i, (name, latency) in enumerate(attrs):
        study.add_trial(
            optuna.trial.create_trial(
                values=[0.5 + 0.05 * i, 0.9 - 0.05 * i],
                user_attrs={"name": name, "latency_ms": latency},
            )
        )
    out = tmp_path / "h.csv"
    argv = ["pool", "from-optuna", "--storage", url, "--name", "user_attrs.name"]
    argv += ["--map", "recall_a=values.0", "--map", "recall_b=values.1"]
    argv += ["--map", "latency_ms=user_attrs.latency_ms", "--out", str(out)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    for number, said in ((3, "is -0.5"), (4, "is infinite"), (5, "is NaN")):
        assert f"trial {number}, column 'latency_ms': {said}" in err
    assert not out.exists()
    assert main([*argv, "--skip-incomplete"]) == 0
    err = capsys.readouterr().err
    assert all(f"left out trial {n}" in err for n in (3, 4, 5))
    written = pd.read_csv(out)["model"].tolist()
    assert written == ['\'=HYPERLINK("http://x","y")', "'+plus?[2J", "ok"]
    loaded = load_pool(out, [Objective("recall_a", "max"), Objective("latency_ms", "min")])
    assert loaded.names == ('=HYPERLINK("http://x","y")', "+plus?[2J", "ok")


def test_an_empty_model_name_is_named_or_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--name user_attrs.name` wrote a model of no name for an empty attribute (and
    `select` then ended in a TypeError); now such a trial is incomplete: named with its
    number, or left out with --skip-incomplete."""
    optuna = _optuna()
    url = f"sqlite:///{tmp_path / 'names.db'}"
    study = optuna.create_study(storage=url, study_name="n", directions=["maximize"] * 2)
    for i, name in enumerate(["", "   ", None, "a", "b"]):
        study.add_trial(
            optuna.trial.create_trial(
                values=[0.5 + 0.05 * i, 0.9 - 0.05 * i], user_attrs={"name": name}
            )
        )
    out = tmp_path / "n.csv"
    argv = ["pool", "from-optuna", "--storage", url, "--name", "user_attrs.name"]
    argv += ["--map", "recall_a=values.0", "--map", "recall_b=values.1", "--out", str(out)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    for number in (0, 1, 2):
        assert f"trial {number}: has no user_attrs.name (the model name, --name; it is " in err
    assert not out.exists()
    assert main([*argv, "--skip-incomplete"]) == 0
    err = capsys.readouterr().err
    assert all(f"left out trial {n}" in err for n in (0, 1, 2))
    assert pd.read_csv(out)["model"].tolist() == ["a", "b"]
