"""Pools from where models live: scikit-learn estimators measured by `tradeoff.pool.measure`
(`tradeoff pool from-sklearn`) and MLflow runs and registered models (`tradeoff pool
from-mlflow`), and the decision written back to MLflow (`select --mlflow-model`).

Real objects only: five scikit-learn estimators on the bundled breast-cancer data, and a
local MLflow tracking store created in the test; each part skips, saying why, only when its
extra is not installed."""

from __future__ import annotations

import json
import pickle
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from tradeoff.ask.scenario import load_scenario
from tradeoff.choose.pool_metric import metric_objectives
from tradeoff.cli import main
from tradeoff.errors import InputError
from tradeoff.pool import load_pool

from ..conftest import SCENARIOS, small_scenario_file, spec

pytestmark = pytest.mark.e2e

BREAST = "breast-cancer-triage"
SMALL = {"seed = 569": "seed = 569\nsamples = 20000"}

MODELS = """
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

ESTIMATORS = {
    "logreg": make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
    "naive-bayes": GaussianNB(),
    "tree-3": DecisionTreeClassifier(max_depth=3, random_state=0),
    "knn-7": make_pipeline(StandardScaler(), KNeighborsClassifier(7)),
    "lda": LinearDiscriminantAnalysis(),
}
"""


def _sklearn() -> Any:
    return pytest.importorskip(
        "sklearn", reason="the sklearn extra is not installed (pip install -e '.[sklearn]')"
    )


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A pool measured by the command line from five estimators defined in a Python file."""
    _sklearn()
    folder = tmp_path_factory.mktemp("sklearn")
    (folder / "models.py").write_text(MODELS)
    out = folder / "pool.csv"
    argv = ["pool", "from-sklearn", "--estimators", str(folder / "models.py")]
    argv += ["--dataset", "breast_cancer", "--seed", "3", "--latency-repeats", "3"]
    assert main([*argv, "--out", str(out)]) == 0
    return out


def test_recall_is_the_cross_validated_recall_of_each_class(measured: Path) -> None:
    """Each recall equals an independent count: a hand loop over the same stratified folds,
    fitting a fresh copy per fold and counting the cases of each class found."""
    _sklearn()
    from sklearn.base import clone
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import StratifiedKFold

    namespace: dict[str, Any] = {}
    exec(MODELS, namespace)
    data = load_breast_cancer()
    frame = pd.read_csv(measured)
    assert frame["model"].tolist() == list(namespace["ESTIMATORS"])
    assert list(frame.columns) == [
        "model",
        "family",
        "recall_malignant",
        "recall_benign",
        "accuracy",
        "latency_ms",
        "size_kb",
        "recall_malignant_cases",
        "recall_benign_cases",
        "recall_malignant_se",
        "recall_benign_se",
    ]
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=3)
    for name, est in namespace["ESTIMATORS"].items():
        found = {0: 0, 1: 0}
        for train, test in folds.split(data.data, data.target):
            pred = clone(est).fit(data.data[train], data.target[train]).predict(data.data[test])
            for label in (0, 1):
                found[label] += int(np.sum((pred == label) & (data.target[test] == label)))
        row = frame.set_index("model").loc[name]
        # scikit-learn's class 0 is malignant (target_names), 212 cases; benign 357.
        assert row["recall_malignant"] == round(found[0] / 212, 4)
        assert row["recall_benign"] == round(found[1] / 357, 4)
        assert row["latency_ms"] > 0 and row["size_kb"] > 0
    provenance = json.loads(measured.with_suffix(".provenance.json").read_text())
    assert provenance["classes"] == {"malignant": 212, "benign": 357}
    assert "5-fold stratified cross-validation, shuffled with seed 3" in provenance["recall"]
    assert set(provenance["estimators"]) == set(namespace["ESTIMATORS"])
    assert provenance["command"].startswith("tradeoff pool from-sklearn")


def test_a_measured_pool_ranks_and_opens_in_the_app(
    measured: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The measured file is a pool of the existing format: `rank` reads it against the
    shipped scenario, and a session opened on a scenario whose [pool] names it aims at its
    five models and decides among them (what the app's result screen shows)."""
    from tradeoff.choose.decide import decide_session
    from tradeoff.simulation.oracles import SimulatedOracle
    from tradeoff.study.opening import start_session

    names = pd.read_csv(measured)["model"].tolist()
    argv = ["rank", str(measured), "--scenario", BREAST, "--metric", "0.4,0.4,0.1,0.1"]
    assert main([*argv, "--json"]) == 0
    ranked = json.loads(capsys.readouterr().out)
    assert sorted(r["name"] for r in ranked["ranking"]) == sorted(names)

    path = small_scenario_file(tmp_path, BREAST, **SMALL)
    (tmp_path / "pools").mkdir()
    shutil.copy(measured, tmp_path / "pools" / "breast-cancer.csv")
    loaded = load_scenario(path)
    rec = start_session(loaded, "p1", tmp_path / "sessions", spec=spec(loaded.scenario, budget=4))
    assert rec.header.candidates is not None and len(rec.header.candidates) == 5
    oracle = SimulatedOracle.for_scenario(loaded.scenario, (0.5, 0.3, 0.1, 0.1))
    with rec:
        while (q := rec.engine.next_query()) is not None:
            rec.answer(oracle.choose(q))
        rec.finish()
    decision = decide_session(rec.header, rec.engine, rec.path)
    assert decision.pool.names == tuple(names)
    assert decision.recommendations[0].name in names


def test_a_pickled_list_gives_the_same_recall(measured: Path, tmp_path: Path) -> None:
    _sklearn()
    from tradeoff.pool import load_dataset, load_estimators, measure

    namespace: dict[str, Any] = {}
    exec(MODELS, namespace)
    (tmp_path / "models.pkl").write_bytes(pickle.dumps(list(namespace["ESTIMATORS"].values())))
    estimators = load_estimators(str(tmp_path / "models.pkl"))
    assert list(estimators) == [
        "LogisticRegression",  # a pipeline is named by its last step
        "GaussianNB",
        "DecisionTreeClassifier",
        "KNeighborsClassifier",
        "LinearDiscriminantAnalysis",
    ]
    got = measure(estimators, load_dataset("load_breast_cancer"), seed=3, latency_repeats=2)
    want = pd.read_csv(measured)
    for column in ("recall_malignant", "recall_benign", "accuracy"):
        assert got.frame[column].tolist() == want[column].tolist()


def test_mistakes_in_what_is_measured_are_located(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _sklearn()
    from tradeoff.pool import load_dataset, load_estimators

    cases = tmp_path / "cases.csv"
    cases.write_text("a,b,label\n1,2,x\n3,oops,y\n")
    with pytest.raises(InputError) as err:
        load_dataset(str(cases), "label")
    assert "row 2, column 'b'" in err.value.message()
    with pytest.raises(InputError, match="target column"):
        load_dataset(str(cases), "klass")
    (tmp_path / "none.py").write_text("X = 1\n")
    with pytest.raises(InputError, match="ESTIMATORS"):
        load_estimators(str(tmp_path / "none.py"))
    (tmp_path / "bad.py").write_text("ESTIMATORS = [1, 2]\n")
    with pytest.raises(InputError, match="fit and predict"):
        load_estimators(str(tmp_path / "bad.py"))
    argv = ["pool", "from-sklearn", "--estimators", str(tmp_path / "bad.py")]
    assert main([*argv, "--dataset", "breast_cancer", "--out", str(tmp_path / "p.csv")]) == 2
    assert "Traceback" not in capsys.readouterr().err


# --- MLflow ------------------------------------------------------------------------------

RUNS = (  # name, recall malignant, recall benign, latency ms, size KB
    ("logreg", 0.93, 0.99, 0.23, 2.0),
    ("forest", 0.95, 0.97, 9.5, 900.0),
    ("tree", 0.86, 0.95, 0.15, 3.0),
    ("knn", 0.92, 0.99, 0.9, 140.0),
    ("mlp", 0.96, 0.98, 0.4, 40.0),
    ("stump", 0.80, 0.96, 0.1, 1.0),
)


def _mlflow() -> Any:
    return pytest.importorskip(
        "mlflow", reason="the mlflow extra is not installed (pip install -e '.[mlflow]')"
    )


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, list[str]]:
    """A local MLflow tracking store (sqlite when SQLAlchemy is there, else files) with an
    experiment of six runs, each registered as a version of the model 'triage'."""
    mlflow = _mlflow()
    try:
        import alembic  # noqa: F401
        import sqlalchemy  # noqa: F401

        uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    except ImportError:
        monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
        uri = (tmp_path / "mlruns").as_uri()
    client = mlflow.MlflowClient(tracking_uri=uri)
    experiment = client.create_experiment(
        "triage-models", artifact_location=(tmp_path / "artifacts").as_uri()
    )
    client.create_registered_model("triage")
    ids = []
    for name, rm, rb, latency, size in RUNS:
        run = client.create_run(experiment, run_name=name)
        rid = run.info.run_id
        client.log_metric(rid, "recall_m", rm)
        client.log_metric(rid, "recall_benign", rb)
        client.log_metric(rid, "latency_ms", latency)
        client.log_param(rid, "size_kb", str(size))
        client.set_terminated(rid)
        client.create_model_version("triage", source=f"runs:/{rid}/model", run_id=rid)
        ids.append(rid)
    return uri, ids


def test_runs_and_versions_become_pools(
    store: tuple[str, list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    uri, ids = store
    out = tmp_path / "runs.csv"
    argv = ["pool", "from-mlflow", "--tracking-uri", uri, "--experiment", "triage-models"]
    argv += ["--scenario", BREAST, "--map", "malignant=metrics.recall_m"]
    assert main([*argv, "--map", "memory=params.size_kb", "--out", str(out)]) == 0
    pool = load_pool(out, metric_objectives(load_scenario(BREAST).scenario))
    assert pool.names == tuple(r[0] for r in RUNS)
    np.testing.assert_array_equal(pool.values, np.array([r[1:] for r in RUNS]))
    assert pool.frame["mlflow_run_id"].tolist() == ids
    provenance = json.loads(out.with_suffix(".provenance.json").read_text())
    assert provenance["experiment"] == "triage-models" and provenance["rows"] == 6

    versions = tmp_path / "versions.csv"
    argv = ["pool", "from-mlflow", "--tracking-uri", uri, "--registered-model", "triage"]
    argv += ["--map", "recall_malignant=metrics.recall_m", "--map", "recall_benign=metrics."]
    assert main([*argv, "--out", str(versions)]) == 2  # a mapping without a key
    assert "NAME=metrics.KEY" in capsys.readouterr().err
    argv[-1] = "recall_benign=metrics.recall_benign"
    argv += ["--map", "latency_ms=metrics.latency_ms", "--map", "size_kb=params.size_kb"]
    assert main([*argv, "--out", str(versions), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["models"] == [f"triage-v{i}" for i in range(1, 7)]
    frame = pd.read_csv(versions)
    assert frame["mlflow_version"].tolist() == [1, 2, 3, 4, 5, 6]

    # A metric no run logged is named, with the run.
    argv = ["pool", "from-mlflow", "--tracking-uri", uri, "--experiment", "triage-models"]
    assert main([*argv, "--scenario", BREAST, "--out", str(tmp_path / "x.csv")]) == 2
    err = capsys.readouterr().err
    assert "run 'logreg'" in err and "recall_malignant" in err and "Traceback" not in err


def _sessions(tmp_path: Path, truths: list[tuple[float, ...]]) -> tuple[Path, list[Path]]:
    from tradeoff.simulation.oracles import SimulatedOracle
    from tradeoff.study.opening import start_session

    path = small_scenario_file(tmp_path, BREAST, **SMALL)
    shutil.copytree(SCENARIOS / "pools", tmp_path / "pools")
    loaded = load_scenario(path)
    out = []
    for i, truth in enumerate(truths):
        rec = start_session(
            loaded, f"p{i}", tmp_path / "sessions", spec=spec(loaded.scenario, budget=5), seed=i
        )
        oracle = SimulatedOracle.for_scenario(loaded.scenario, truth)
        with rec:
            while (q := rec.engine.next_query()) is not None:
                rec.answer(oracle.choose(q))
            rec.finish()
        out.append(rec.path)
    return path, out


def test_the_decision_is_written_back_only_with_the_flag(
    store: tuple[str, list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`select --mlflow-model` sets the alias on the recommended version, tags it and
    attaches the report to its run: read back through MLflow's own client. Without the
    flag nothing is written."""
    mlflow = _mlflow()
    uri, _ = store
    pool = tmp_path / "versions.csv"
    argv = ["pool", "from-mlflow", "--tracking-uri", uri, "--registered-model", "triage"]
    argv += ["--scenario", BREAST, "--map", "malignant=metrics.recall_m"]
    assert main([*argv, "--map", "memory=params.size_kb", "--out", str(pool)]) == 0
    scenario, sessions = _sessions(tmp_path, [(0.55, 0.25, 0.1, 0.1)])
    select = ["select", str(pool), "--scenario", str(scenario), "--session", str(sessions[0])]
    client = mlflow.MlflowClient(tracking_uri=uri)

    capsys.readouterr()
    assert main([*select, "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert "mlflow" not in plain
    assert client.get_registered_model("triage").aliases == {}
    assert all(not v.tags for v in client.search_model_versions("name = 'triage'"))
    assert main([*select, "--alias", "prod"]) == 2  # an alias alone writes nothing
    assert client.get_registered_model("triage").aliases == {}

    flags = ["--mlflow-model", "triage", "--mlflow-tracking-uri", uri, "--alias", "prod"]
    assert main([*select, *flags, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    recommended = data["stakeholders"][0]["recommended"]
    version = client.get_model_version_by_alias("triage", "prod")
    assert (
        f"triage-v{version.version}"
        == recommended
        == data["mlflow"]["tags"]["tradeoff.recommended"]
    )
    p_best = data["stakeholders"][0]["p_best"]
    assert version.tags["tradeoff.p_best"] == f"{p_best:.4f}"
    assert version.tags["tradeoff.sessions"] == sessions[0].name
    assert version.tags["tradeoff.participants"] == "p0"
    assert version.tags["tradeoff.scenario"] == BREAST
    p_ranks = [float(x) for x in version.tags["tradeoff.p_rank_1_2_3"].split(", ")]
    # each written to 4 decimals: their sum is within 3 roundings of 1
    assert p_ranks[0] == pytest.approx(p_best, abs=1e-4) and sum(p_ranks) <= 1 + 1.5e-4
    assert version.tags["tradeoff.what_would_change"].startswith(("If ", "No change"))
    listed = {a.path for a in client.list_artifacts(version.run_id, "tradeoff-decision")}
    assert listed == {"tradeoff-decision/report.html", "tradeoff-decision/report.md"}
    local = client.download_artifacts(version.run_id, "tradeoff-decision/report.md", tmp_path)
    assert recommended in Path(local).read_text()

    # The default alias is champion; a model that is not registered is a located error.
    assert main([*select, "--mlflow-model", "triage", "--mlflow-tracking-uri", uri]) == 0
    assert client.get_model_version_by_alias("triage", "champion").version == version.version
    capsys.readouterr()
    assert main([*select, "--mlflow-model", "nope", "--mlflow-tracking-uri", uri]) == 2
    err = capsys.readouterr().err
    assert "registered model 'nope'" in err and "Traceback" not in err
