"""Other numeric paths on this machine: the same code run on the kernels another CPU would use.

numpy picks its kernels for ``exp``, ``log``, ``tanh`` and friends by the CPU's features
(AVX-512, AVX2, NEON, SVE...) and OpenBLAS its kernels by the core type; each path computes
the same formulas to results that differ in the last bits. :func:`simd_paths` names the
paths this machine can run: ``default`` (what it picks by itself), ``no-avx512`` (numpy's
AVX-512 kernels off, OpenBLAS's Haswell kernels) and ``baseline`` (every dispatched numpy
kernel off, OpenBLAS's oldest core type that fits), each as the environment that selects it
in a new process (the variables are read when numpy starts).

The tests that compare two machines, the cross-path benchmark and ``make test`` run
commands under these paths::

    python -m tradeoff.machines no-avx512 -- pytest tests/test_machines.py

(docs/architecture.md, "The same result on every machine").
"""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Mapping, Sequence

import numpy as np

#: The environment variables that choose a numeric path.
VARIABLES = ("NPY_DISABLE_CPU_FEATURES", "OPENBLAS_CORETYPE")


def _dispatch() -> tuple[list[str], dict[str, bool]]:
    """numpy's dispatch targets and the CPU's features as numpy sees them."""
    umath = getattr(np, "_core", None) or np.core  # numpy 2 and 1
    module = umath._multiarray_umath
    return list(module.__cpu_dispatch__), dict(module.__cpu_features__)


def simd_paths() -> dict[str, dict[str, str]]:
    """The numeric paths of this machine, each as the environment variables to set.

    A path that would be the same as another (no AVX-512 on this CPU) is left out.

    >>> "default" in simd_paths() and simd_paths()["default"] == {}
    True
    """
    targets, features = _dispatch()
    x86 = platform.machine().lower() in ("x86_64", "amd64", "i686", "x86")
    out: dict[str, dict[str, str]] = {"default": {}}
    if x86:
        wide = [t for t in targets if "AVX512" in t or t == "X86_V4"]
        if wide and features.get("AVX512F", False):
            env = {"NPY_DISABLE_CPU_FEATURES": " ".join(wide)}
            if features.get("AVX2", False) and features.get("FMA3", False):
                env["OPENBLAS_CORETYPE"] = "Haswell"
            out["no-avx512"] = env
        if targets:
            env = {"NPY_DISABLE_CPU_FEATURES": " ".join(targets)}
            env["OPENBLAS_CORETYPE"] = "Sandybridge" if features.get("AVX", False) else "Nehalem"
            out["baseline"] = env
    elif targets:
        out["baseline"] = {"NPY_DISABLE_CPU_FEATURES": " ".join(targets)}
        if platform.machine().lower() in ("aarch64", "arm64"):
            out["baseline"]["OPENBLAS_CORETYPE"] = "ARMV8"
    return out


def other_path() -> str:
    """The path most unlike the default that this machine runs ("no-avx512" where there is
    AVX-512, else "baseline"; "default" on a machine with a single path)."""
    paths = simd_paths()
    for name in ("no-avx512", "baseline"):
        if name in paths:
            return name
    return "default"


def environment(path: str, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """``base`` (the current environment) with the variables of ``path`` set: numpy's
    switches of another path removed, and an OpenBLAS core type of another path removed (one
    the machine's own environment sets is kept where ``path`` sets none).

    >>> environment("default", {"NPY_DISABLE_CPU_FEATURES": "X86_V4", "HOME": "/root"})
    {'HOME': '/root'}

    Raises
    ------
    KeyError
        If this machine has no such path.
    """
    paths = simd_paths()
    if path not in paths:
        raise KeyError(f"no numeric path {path!r} here; this machine has {', '.join(paths)}")
    env = dict(os.environ if base is None else base)
    env.pop("NPY_DISABLE_CPU_FEATURES", None)
    # An OpenBLAS core type that the machine's own environment sets (some processors need
    # one with older OpenBLAS builds) is kept for the default path; one of ours is not.
    ours = {e["OPENBLAS_CORETYPE"] for e in paths.values() if "OPENBLAS_CORETYPE" in e}
    ours |= {"Haswell", "Sandybridge", "Nehalem", "ARMV8"}
    if env.get("OPENBLAS_CORETYPE") in ours:
        env.pop("OPENBLAS_CORETYPE")
    env.update(paths[path])
    return env


def describe(path: str) -> str:
    """``path`` and its variables as shell assignments, for a log line.

    >>> describe("default")
    'default: as is'
    """
    env = simd_paths()[path]
    return f"{path}: " + (" ".join(f"{k}='{v}'" for k, v in env.items()) or "as is")


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m tradeoff.machines`` lists the paths; ``… PATH -- COMMAND…`` runs
    COMMAND under PATH (``other`` names :func:`other_path`)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        for name in simd_paths():
            print(describe(name))
        return 0
    path, rest = args[0], args[1:]
    if rest[:1] == ["--"]:
        rest = rest[1:]
    if path == "other":
        path = other_path()
    if not rest:
        print("usage: python -m tradeoff.machines [PATH -- COMMAND...]", file=sys.stderr)
        return 2
    try:
        env = environment(path)
    except KeyError as exc:
        print(exc.args[0], file=sys.stderr)
        return 2
    print(f"numeric path {describe(path)}", file=sys.stderr)
    os.execvpe(rest[0], rest, env)


if __name__ == "__main__":
    raise SystemExit(main())
