"""Large arrays from the heap in a Dask worker: the engine's numpy temporaries (a few
hundred kilobytes each, made and freed many times an answer) are slow when every one is a
fresh ``mmap``.

A ``dask.distributed`` nanny starts its workers with ``MALLOC_TRIM_THRESHOLD_=65536``
(its ``distributed.nanny.pre-spawn-environ`` default, which hands freed memory back to the
system). Any such variable turns off glibc's sliding ``mmap`` threshold, so every block
over 128 KiB is mapped and unmapped, its pages zeroed again each time: on the project's
CPU a simulated person took 1.8 times as long in a Dask worker as in a local one.
:func:`keep_heap_blocks` sets the thresholds a long-running numeric worker wants
(``mallopt``), once a process, where the variables are set and the C library is glibc;
elsewhere it does nothing. Only where memory comes from changes, never a number.

>>> keep_heap_blocks({})  # no allocation variable set: nothing to undo
False
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import platform
from collections.abc import Mapping

__all__ = ["ALLOCATION_VARIABLES", "MMAP_THRESHOLD", "TRIM_THRESHOLD", "keep_heap_blocks"]

#: glibc's environment variables that turn off its sliding ``mmap`` threshold.
ALLOCATION_VARIABLES = (
    "MALLOC_TRIM_THRESHOLD_",
    "MALLOC_TOP_PAD_",
    "MALLOC_MMAP_THRESHOLD_",
    "MALLOC_MMAP_MAX_",
)
#: Blocks up to this size come from the heap (glibc's own ceiling for its sliding
#: threshold on 64-bit machines).
MMAP_THRESHOLD = 32 * 1024 * 1024
#: Free memory at the heap's top kept, not handed back, up to this size.
TRIM_THRESHOLD = 64 * 1024 * 1024
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_done: list[bool] = []


def keep_heap_blocks(environ: Mapping[str, str] | None = None) -> bool:
    """Set glibc's ``mmap`` and trim thresholds to :data:`MMAP_THRESHOLD` and
    :data:`TRIM_THRESHOLD` when one of :data:`ALLOCATION_VARIABLES` is set in ``environ``
    (default: this process's) and the C library is glibc; whether they were set. Once a
    process (later calls return what the first did)."""
    env = os.environ if environ is None else environ
    if not any(name in env for name in ALLOCATION_VARIABLES):
        return False
    if _done:
        return _done[0]
    _done.append(_set_thresholds())
    return _done[0]


def _set_thresholds() -> bool:
    """``mallopt`` the two thresholds through glibc; whether both took."""
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return False
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    libc = ctypes.CDLL(name)
    mmap_ok = libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
    trim_ok = libc.mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    return bool(mmap_ok) and bool(trim_ok)
