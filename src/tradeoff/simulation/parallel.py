"""Run simulated people side by side: in this process, in local worker processes, or on a
Dask cluster, with the same results whatever runs them.

Every simulated person is independent once their true weights and seed are drawn, and
:func:`~tradeoff.simulation.simulate.simulate` draws them all in the calling process
before any is run. What runs them only decides where: :class:`Backend` is one process
(the default), ``workers`` local processes through joblib's loky backend, or the workers of
a running ``dask.distributed`` scheduler (joblib's dask backend). People are sent in chunks,
so the scenario, its population and the pool travel once a chunk (once a worker on a
cluster, where they are scattered), and the outcomes come back in the people's order, so the
summary is the same list whatever the backend and the number of workers.

>>> Backend().describe()
'this process'
>>> Backend(workers=4).describe()
'4 local worker processes'
>>> chunks(7, 3)
[range(0, 3), range(3, 6), range(6, 7)]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any, TypeVar

from tradeoff.errors import InputError
from tradeoff.simulation.allocation import keep_heap_blocks
from tradeoff.threads import one_thread

T = TypeVar("T")
R = TypeVar("R")

#: Chunks a worker is given over a run at least (smaller chunks show progress more often and
#: balance slow and fast people; larger ones send the shared arguments less often).
CHUNKS_PER_WORKER = 4
#: The most people in one chunk.
MOST_PER_CHUNK = 50
#: Seconds to wait for a Dask scheduler to answer before giving up with a located error.
CONNECT_TIMEOUT = 20
#: Seconds to wait for a worker to join a scheduler that has none yet.
WORKER_TIMEOUT = 20.0


@dataclass(frozen=True)
class Backend:
    """Where simulated people run.

    ``workers`` local processes (1: this process), or, with ``scheduler``, the workers of
    the ``dask.distributed`` scheduler at that address (``tcp://host:8786``); ``workers`` is
    then ignored.
    """

    workers: int = 1
    scheduler: str | None = None

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ValueError("workers must be at least 1")

    @property
    def parallel(self) -> bool:
        """Whether people run anywhere but this process."""
        return self.scheduler is not None or self.workers > 1

    def describe(self) -> str:
        """Where the people run, in words."""
        if self.scheduler is not None:
            return f"the Dask cluster at {self.scheduler}"
        if self.workers == 1:
            return "this process"
        return f"{self.workers} local worker processes"


def chunks(total: int, size: int) -> list[range]:
    """The indices ``0 … total−1`` in consecutive runs of at most ``size``."""
    return [range(i, min(i + size, total)) for i in range(0, total, max(1, size))]


def chunk_size(total: int, workers: int) -> int:
    """People in one chunk for ``total`` people on ``workers`` workers.

    >>> chunk_size(1000, 2), chunk_size(10, 2), chunk_size(1, 8)
    (50, 2, 1)
    """
    return max(1, min(MOST_PER_CHUNK, math.ceil(total / (workers * CHUNKS_PER_WORKER))))


def each(fn: Callable[[T], R], item: T) -> R:
    """``fn(item)``: for :func:`run_people` over tasks that need nothing shared
    (``run_people(each, fn, tasks)``).

    >>> run_people(each, abs, [-1, 2, -3])
    [1, 2, 3]
    """
    return fn(item)


def _run_chunk(run: Callable[[Any, T], R], shared: Any, people: Sequence[T]) -> list[R]:
    """``run(shared, person)`` for each person of one chunk, in order (in a Dask worker,
    its heap kept for numpy's temporaries first: :func:`keep_heap_blocks`)."""
    keep_heap_blocks()
    return [run(shared, person) for person in people]


def run_people(
    run: Callable[[Any, T], R],
    shared: Any,
    people: Sequence[T],
    backend: Backend | None = None,
    progress: Callable[[int, int], None] | None = None,
    per_chunk: int | None = None,
) -> list[R]:
    """``[run(shared, p) for p in people]``, run where ``backend`` says.

    ``run`` is a module-level function (it is pickled by name); ``shared`` is what every
    person needs (sent once a chunk, or scattered once to a cluster's workers); ``progress``
    is called with (people done, people in all) after every chunk, in order; ``per_chunk``
    fixes the people in a chunk (default :func:`chunk_size`).

    >>> def add(k, x):
    ...     return k + x
    >>> run_people(add, 10, [1, 2, 3])
    [11, 12, 13]
    """
    backend = backend or Backend()
    total = len(people)
    out: list[R] = []
    if not backend.parallel:
        with one_thread():  # as a local or a Dask worker runs them
            for part in chunks(total, per_chunk or chunk_size(total, 1)):
                out.extend(_run_chunk(run, shared, [people[i] for i in part]))
                if progress is not None:
                    progress(len(out), total)
        return out
    for done in _parallel(run, shared, people, backend, per_chunk):
        out.extend(done)
        if progress is not None:
            progress(len(out), total)
    return out


def _parallel(
    run: Callable[[Any, T], R],
    shared: Any,
    people: Sequence[T],
    backend: Backend,
    per_chunk: int | None,
) -> Iterator[list[R]]:
    """The chunks' outcomes, in order, from joblib's loky or dask backend."""
    import joblib

    with ExitStack() as stack:
        if backend.scheduler is not None:
            client = stack.enter_context(connect(backend.scheduler))
            workers = len(client.scheduler_info().get("workers", {})) or _first_worker(
                client, backend.scheduler, WORKER_TIMEOUT
            )
            stack.enter_context(
                joblib.parallel_config(backend="dask", client=client, scatter=[shared])
            )
            n_jobs = -1
        else:
            workers = n_jobs = backend.workers
        size = per_chunk or chunk_size(len(people), workers)
        tasks = (
            joblib.delayed(_run_chunk)(run, shared, [people[i] for i in part])
            for part in chunks(len(people), size)
        )
        parallel = joblib.Parallel(n_jobs=n_jobs, return_as="generator", backend=None)
        yield from parallel(tasks)


def _first_worker(client: Any, address: str, timeout: float) -> int:
    """1 once a worker has joined the scheduler at ``address``, which has none yet; or an
    :class:`~tradeoff.errors.InputError` that names the address and the fix when none joins
    within ``timeout`` seconds (a cluster whose workers are not started, or have stopped)."""
    try:
        client.wait_for_workers(1, timeout=timeout)
    except TimeoutError:
        raise InputError.single(
            "--dask-scheduler",
            address,
            f"the scheduler answered, but no worker joined it within {timeout:g} s.",
            f"start workers with `dask worker {address}` (on every machine of the cluster), "
            "then run this again.",
        ) from None
    return 1


def connect(address: str, timeout: float = CONNECT_TIMEOUT) -> Any:
    """A ``dask.distributed`` client of the scheduler at ``address``, or an
    :class:`~tradeoff.errors.InputError` that names the address and the fix."""
    where = "--dask-scheduler"
    try:
        from distributed import Client
    except ImportError:
        raise InputError.single(
            where,
            "",
            "needs dask.distributed, which is not installed.",
            "install it with pip install 'tradeoff[cluster]' (on every machine of the "
            "cluster too), or leave out --dask-scheduler and use --workers N.",
        ) from None
    try:
        make: Any = Client  # untyped in distributed
        return make(address, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise InputError.single(
            where,
            address,
            f"no Dask scheduler answered within {timeout:g} s ({type(exc).__name__}).",
            "start one with `dask scheduler` and workers with `dask worker ADDRESS`, then "
            "give the address it prints (tcp://host:8786).",
        ) from None
