"""A Dask worker's heap kept for numpy's temporaries (:mod:`tradeoff.simulation.allocation`):
with Dask's ``MALLOC_TRIM_THRESHOLD_`` set, a 1 MiB array is a fresh ``mmap`` until
:func:`keep_heap_blocks` runs, and comes from the heap after it."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

from tradeoff.simulation.allocation import keep_heap_blocks

pytestmark = pytest.mark.core

glibc = pytest.mark.skipif(
    platform.system() != "Linux" or platform.libc_ver()[0] != "glibc",
    reason="the thresholds are glibc's",
)

#: In a fresh process: mapped bytes while a 1 MiB array lives, before and after the call.
PROBE = """
import ctypes, ctypes.util, sys
import numpy as np
from tradeoff.simulation.allocation import keep_heap_blocks

class Info(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks",
        "uordblks", "fordblks", "keepcost")]

libc = ctypes.CDLL(ctypes.util.find_library("c"))
libc.mallinfo2.restype = Info

def mapped_while_alive():
    for _ in range(3):  # a freed mapped block would raise a sliding threshold
        a = np.ones(1 << 17)
        held = libc.mallinfo2().hblkhd
        del a
    return held

before = mapped_while_alive()
took = keep_heap_blocks()
print(before >= 1 << 20, took, mapped_while_alive() >= 1 << 20)
"""


@glibc
def test_a_dask_workers_trim_variable_no_longer_maps_every_temporary() -> None:
    env = {**os.environ, "MALLOC_TRIM_THRESHOLD_": "65536"}
    out = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["True", "True", "False"]


@glibc
def test_without_the_variables_glibc_slides_its_threshold_and_nothing_is_set() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    out = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True
    )
    # the first 1 MiB block is mapped, then glibc raises its threshold by itself
    assert out.stdout.split() == ["False", "False", "False"]


def test_nothing_is_done_without_an_allocation_variable() -> None:
    assert keep_heap_blocks({"PATH": "/usr/bin"}) is False
