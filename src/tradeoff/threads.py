"""One thread per numeric library call while the engine works.

The engine's matrix products are small (2,000 particles by a few weights, 20,000 reference
draws by a few dozen models), and OpenBLAS starts a thread per core for each of them. On
the project's 2-core CPU the second thread brought little with nothing else running (an
answer about a tenth faster, 9.0–9.7 against 10.3–10.4 ms median, at twice the CPU; 30
simulated people in one process no faster) and cost much more beside other work (an answer
36 ms against 15 ms median, p95 223 against 43 ms; the engine_step benchmark with
``OPENBLAS_NUM_THREADS`` at 2 and at 1). The study server's processes, the command line
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
