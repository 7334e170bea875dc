"""Simulated people on local worker processes and on a two-worker Dask ``LocalCluster``:
the same summary as in one process, from the library and from the command line."""

from __future__ import annotations

import importlib
import json

import pytest

from tradeoff.cli import main
from tradeoff.errors import InputError
from tradeoff.simulation.oracles import Noise
from tradeoff.simulation.parallel import Backend, connect
from tradeoff.simulation.simulate import simulate

from ..conftest import SCENARIOS, small

pytestmark = pytest.mark.e2e

#: The module that keeps a worker's heap (:mod:`tradeoff.simulation.allocation`).
ALLOCATION = "tradeoff.simulation.allocation"


def _summary(backend: Backend | None) -> str:
    summary = simulate(
        small("glaucoma-screening"),
        runs=5,
        seed=4,
        noise=Noise.parse("flip:0.1"),
        backend=backend,
    )
    return json.dumps(summary.to_dict())


@pytest.mark.slow
def test_two_local_workers_and_a_two_worker_cluster_give_the_same_summary() -> None:
    distributed = pytest.importorskip("distributed")
    one = _summary(None)
    assert _summary(Backend(workers=2)) == one
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        assert _summary(Backend(scheduler=cluster.scheduler_address)) == one
        # each worker kept its heap for numpy's temporaries (Dask's nanny sets
        # MALLOC_TRIM_THRESHOLD_, which made a simulated person 1.8 times slower)
        with distributed.Client(cluster) as client:
            kept = client.run(lambda: list(importlib.import_module(ALLOCATION)._done))
        assert list(kept.values()) == [[True], [True]]


def test_an_unreachable_scheduler_is_a_located_error() -> None:
    pytest.importorskip("distributed")
    with pytest.raises(InputError) as caught:
        connect("tcp://127.0.0.1:9", timeout=1)
    text = str(caught.value)
    assert "--dask-scheduler" in text
    assert "dask scheduler" in text


def test_the_command_line_takes_workers_and_refuses_both(
    capsys: pytest.CaptureFixture[str],
) -> None:
    k2 = str(SCENARIOS / "paper-k2-two-costs.toml")
    argv = ["simulate", k2, "--runs", "3", "--seed", "2", "--budget", "8", "--json"]
    assert main(argv) == 0
    alone = capsys.readouterr().out
    assert main([*argv, "--workers", "2"]) == 0
    assert capsys.readouterr().out == alone
    assert main([*argv, "--workers", "2", "--dask-scheduler", "tcp://127.0.0.1:9"]) == 2
    assert "not both" in capsys.readouterr().err
    assert main([*argv, "--workers", "0"]) == 2
    assert "--workers" in capsys.readouterr().err


def test_a_scheduler_without_workers_is_a_located_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A scheduler whose workers are not started (or have stopped) is said as such, with
    the command that starts one: it was a 54-line traceback ending in "No valid workers
    found" after 22 s."""
    distributed = pytest.importorskip("distributed")
    import tradeoff.simulation.parallel as parallel

    monkeypatch.setattr(parallel, "WORKER_TIMEOUT", 1.0)
    with distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=None) as cluster:
        address = cluster.scheduler_address
        args = ["simulate", str(SCENARIOS / "glaucoma-screening.toml"), "--runs", "2"]
        assert main([*args, "--dask-scheduler", address]) == 2
    err = capsys.readouterr().err
    assert f"--dask-scheduler: {address}: the scheduler answered, but no worker" in err, err
    assert f"dask worker {address}" in err and "Traceback" not in err
