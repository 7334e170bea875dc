"""One thread per numeric library call while the engine works.

The engine's matrix products are small (2,000 particles by a few weights, 20,000 reference
draws by a few dozen models), and OpenBLAS starts a thread per core for each of them. The
threads cost more than they bring, and much more when anything else runs on the machine:
on the project's 2-core CPU, beside other work, an answer took a median of 36 ms with
OpenBLAS's two threads against 15 ms with one (p95 223 against 43 ms,
``benchmarks.engine_step``'s ``measure`` with ``OPENBLAS_NUM_THREADS`` 2 and 1), and
``tradeoff simulate`` 2.7 times as long. The study server's processes, the command line
(:func:`one_thread`) and the simulated people run in this process
(:func:`~tradeoff.simulation.parallel.run_people`) hold numeric libraries to one thread;
local workers (joblib's loky) and Dask workers already do. How many threads a product uses
does not change its result here: OpenBLAS splits a product's rows and columns between its
threads, never the sums.

>>> with one_thread():
...     pass
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

__all__ = ["one_thread", "one_thread_from_now"]


def one_thread() -> AbstractContextManager[Any]:
    """A context in which each numeric library call (BLAS, OpenMP) uses one thread; the
    limits before it come back when it ends (numpy is loaded first: a library loaded
    inside the context would start with its own default)."""
    import numpy  # noqa: F401
    from threadpoolctl import threadpool_limits

    limits: AbstractContextManager[Any] = threadpool_limits(limits=1)
    return limits


def one_thread_from_now() -> None:
    """Each numeric library call uses one thread for the rest of this process (a study
    server's process: many engines' work side by side in its own threads)."""
    import numpy  # noqa: F401
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1)
