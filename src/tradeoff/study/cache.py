"""What every participant's process would rebuild, kept on disk once per scenario.

A study serves each participant from their own process (docs/architecture.md, "Files":
Study). Without a cache every one of them builds the scenario's population (10⁶ samples: about a
second of CPU and 150 MB at its peak), sorts it for each class pair (paper 004 Prop. 2's
restricted Bayes-optimal classifiers are read off those sorted tables) and reads the pool
to find the models its questions aim at (pandas alone takes half a second to import). With
a cache folder they are built once, written as ``.npy`` files and memory-mapped: the
operating system shares the pages between all participants' processes, and a process only
touches the few pages a binary search visits.

Layout of a cache folder (one entry per key; a key is the SHA-256 of everything the entry
depends on, so a changed scenario, population file, pool or numpy version gets a new one)::

    population-<key>/meta.json        n, k, the class priors, the format version
    population-<key>/eta.npy          class probabilities, n × k
    population-<key>/pair-0-<j>-{rho,cs0,cs1}.npy   sorted tables of class 1 against j+1
    candidates-<key>.npy              the pool's models as metric rows (.none: no pool)

Entries are written to a temporary name and renamed into place, so a process never reads
half an entry even when several build the same one at once. An entry that cannot be read
is set aside and built again; a folder that cannot be written (a read-only home, a full
disk) costs time, never the work: what was built is used from memory, and only
``study create`` (``strict``) refuses to go on without its entries.

Commands outside a study (``tradeoff session show``, ``select``, ``scenario check``,
``simulate``, the app) keep the same entries in the user's cache folder
(:func:`user_cache_dir`: ``$TRADEOFF_CACHE_DIR``, else ``$XDG_CACHE_HOME/tradeoff``, else
``~/.cache/tradeoff``; ``TRADEOFF_CACHE_DIR=`` set but empty keeps nothing), through
:func:`command_population`. Small JSON entries (:func:`read_record`, :func:`write_record`)
hold what a session file says, so ``study status`` replays a file once, not on every run
(:mod:`tradeoff.study.counted`); their keys include :func:`package_digest`, since the
engine's code decides what a replay says.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np
from numpy.typing import NDArray

from tradeoff.ask.population import Population, build_population
from tradeoff.ask.scenario import Scenario

if TYPE_CHECKING:
    from tradeoff.record.records import MeasurementRecord

FloatArray = NDArray[np.float64]

#: Bumped when the files' layout or meaning changes (old entries are then ignored).
CACHE_VERSION = 1
#: The environment variable naming the commands' cache folder (:func:`user_cache_dir`);
#: set but empty, commands keep nothing and build in memory.
CACHE_DIR_ENV = "TRADEOFF_CACHE_DIR"


def user_cache_dir() -> Path | None:
    """Where commands outside a study keep their entries: ``$TRADEOFF_CACHE_DIR`` when it
    is set (``None`` when it is set but empty: nothing is kept), else
    ``$XDG_CACHE_HOME/tradeoff`` (an absolute path only, as the XDG specification says),
    else ``~/.cache/tradeoff``; ``None`` when there is no home to find either.
    """
    value = os.environ.get(CACHE_DIR_ENV)
    if value is not None:
        return Path(value).expanduser() if value.strip() else None
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / "tradeoff"
    try:
        return Path.home() / ".cache" / "tradeoff"
    except RuntimeError:  # no home directory to be found
        return None


def command_population(scenario: Scenario) -> Population:
    """A scenario's population for a command outside a study: memory-mapped from the
    user's cache folder (:func:`user_cache_dir`), built and written there first when it is
    not there; built in memory when the cache is switched off or cannot be written."""
    return cached_population(scenario, user_cache_dir())


def entry_key(payload: dict[str, Any]) -> str:
    """The key of an entry: the SHA-256 (32 hex digits) of everything it depends on, given
    as a JSON-able ``payload``.

    >>> entry_key({"a": 1, "b": [2]}) == entry_key({"b": [2], "a": 1})
    True
    """
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


@lru_cache(maxsize=1)
def package_digest() -> str:
    """The SHA-256 of every Python file of the installed package (names and contents):
    an entry whose meaning depends on what the code computes (a replayed session's facts)
    is keyed by it, so a changed engine never reads an entry an older one wrote, even
    under the same version number (an editable install)."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(path.relative_to(root).as_posix().encode() + b"\0")
        h.update(path.read_bytes())
    return h.hexdigest()[:32]


def _file_sha256(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def population_key(scenario: Scenario) -> str:
    """The key of a scenario's population: its ``[population]`` settings, the class names,
    the probability file's content (not its path) and numpy's version.

    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/glaucoma-screening.toml").scenario
    >>> population_key(sc) == population_key(sc.model_copy())
    True
    """
    spec = scenario.population
    payload: dict[str, Any] = {
        "version": CACHE_VERSION,
        "numpy": np.__version__,
        "classes": [c.name for c in scenario.classes],
        "spec": spec.model_dump(mode="json", exclude={"path"}),
    }
    if spec.kind == "probabilities":
        assert spec.path is not None
        payload["file"] = _file_sha256(spec.path)
    return entry_key(payload)


def _atomic_write(path: Path, write: Callable[[BinaryIO], object]) -> None:
    """``path`` written whole by ``write`` or not at all: a temporary name in the same
    folder (made by ``mkstemp``: readable by its owner only), then one rename. A cache
    entry needs no ``fsync``: one lost in a crash is built again."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _atomic_save(path: Path, array: NDArray[Any]) -> None:
    _atomic_write(path, lambda fh: np.save(fh, array))


def _make_folder(folder: Path) -> None:
    """The cache folder, made if missing (its entries are made by ``mkstemp`` and
    ``mkdtemp``: readable by their owner only)."""
    folder.mkdir(parents=True, exist_ok=True)


def _write_population(folder: Path, population: Population) -> None:
    """Build the tables and write the entry to a temporary folder, then rename it."""
    _make_folder(folder.parent)
    tmp = Path(tempfile.mkdtemp(dir=folder.parent, prefix=".tmp-population-"))
    try:
        np.save(tmp / "eta.npy", np.ascontiguousarray(population.eta))
        for j in range(1, population.k):
            rho, cs0, cs1 = population.pair_tables(0, j)
            np.save(tmp / f"pair-0-{j}-rho.npy", rho)
            np.save(tmp / f"pair-0-{j}-cs0.npy", cs0)
            np.save(tmp / f"pair-0-{j}-cs1.npy", cs1)
        meta = {
            "version": CACHE_VERSION,
            "n": population.n,
            "k": population.k,
            "priors": [float(z) for z in population.priors],
        }
        (tmp / "meta.json").write_text(json.dumps(meta))
        try:
            os.rename(tmp, folder)
        except OSError:  # another process put the same entry in place first
            shutil.rmtree(tmp, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _read_population(folder: Path) -> Population:
    """Memory-map an entry; ``ValueError`` or ``OSError`` if it is not whole."""
    meta = json.loads((folder / "meta.json").read_text())
    if meta.get("version") != CACHE_VERSION:
        raise ValueError("another cache version")
    n, k = int(meta["n"]), int(meta["k"])
    eta = np.load(folder / "eta.npy", mmap_mode="r")
    if eta.shape != (n, k) or eta.dtype != np.float64:
        raise ValueError("eta has the wrong shape")
    pairs: dict[tuple[int, int], tuple[FloatArray, FloatArray, FloatArray]] = {}
    for j in range(1, k):
        rho = np.load(folder / f"pair-0-{j}-rho.npy", mmap_mode="r")
        cs0 = np.load(folder / f"pair-0-{j}-cs0.npy", mmap_mode="r")
        cs1 = np.load(folder / f"pair-0-{j}-cs1.npy", mmap_mode="r")
        if rho.shape != (n,) or cs0.shape != (n + 1,) or cs1.shape != (n + 1,):
            raise ValueError("a pair table has the wrong shape")
        pairs[(0, j)] = (rho, cs0, cs1)
    priors = np.array(meta["priors"], dtype=np.float64)
    if priors.shape != (k,):
        raise ValueError("priors have the wrong shape")
    return Population.prepared(eta, priors=priors, pairs=pairs)


def _set_aside(path: Path) -> None:
    """Move an unreadable entry out of the way (another process may be reading it)."""
    aside = path.with_name(f".broken-{path.name}-{os.getpid()}")
    with contextlib.suppress(OSError):
        os.rename(path, aside)
        if aside.is_dir():
            shutil.rmtree(aside, ignore_errors=True)
        else:
            aside.unlink(missing_ok=True)


def cached_population(
    scenario: Scenario, folder: str | Path | None, *, strict: bool = False
) -> Population:
    """The scenario's population, memory-mapped from ``folder`` (built and written there
    first if it is not); without a folder, built in memory as
    :func:`tradeoff.ask.population.scenario_population` does.

    The arrays are the same numbers either way: the entry is the built population, written.
    When the entry can be neither read nor written (a read-only or full folder), the
    population built in memory is returned, unless ``strict``: then the ``OSError`` is
    raised (``study create`` makes sure its cache is there). A process out of descriptors
    or memory gets the error either way (the entry is not broken).
    """
    names = tuple(c.name for c in scenario.classes)
    if folder is None:
        return build_population(scenario.population, names)
    try:
        key = population_key(scenario)
    except OSError:  # an unreadable probability file: reported as building it reports it
        return build_population(scenario.population, names)
    entry = Path(folder) / f"population-{key}"
    try:
        for _ in range(2):
            if entry.is_dir():
                try:
                    return _mapped(entry)
                except OSError as exc:
                    if exc.errno in _TRANSIENT:  # out of descriptors or memory: not broken
                        raise
                    _set_aside(entry)
                except (ValueError, KeyError, TypeError):
                    _set_aside(entry)
            _write_population(entry, build_population(scenario.population, names))
        return _mapped(entry)
    except OSError as exc:
        if strict or exc.errno in _TRANSIENT:
            raise
        return build_population(scenario.population, names)  # built once: lru_cache


#: Errors that say nothing about an entry (the process is out of descriptors or memory):
#: the entry is left in place for the next try.
_TRANSIENT = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.EAGAIN, errno.EINTR})
#: Populations this process has mapped, by entry (its path and each file's inode, time and
#: size: an entry edited or replaced is read again): a server that
#: opens many sessions maps each entry once and every engine shares it (each mapping holds
#: a file descriptor).
_MAPPED: dict[tuple[str, tuple[tuple[str, int, int, int], ...]], Population] = {}
_MAPPED_LOCK = threading.Lock()


def _mapped(entry: Path) -> Population:
    stats = tuple(
        (f.name, st.st_ino, st.st_mtime_ns, st.st_size)
        for f in sorted(entry.iterdir())
        for st in (f.stat(),)
    )
    key = (str(entry), stats)
    with _MAPPED_LOCK:
        found = _MAPPED.get(key)
    if found is None:
        found = _read_population(entry)
        with _MAPPED_LOCK:
            if len(_MAPPED) >= 8:
                _MAPPED.clear()
            found = _MAPPED.setdefault(key, found)
    return found


def candidates_key(
    scenario: Scenario, base: str | Path, priors: Sequence[float], stop: str | None
) -> str | None:
    """The key of a scenario's decision candidates (``None`` without a readable pool file:
    then nothing is cached)."""
    if scenario.pool is None:
        return None
    pool_path = Path(base) / scenario.pool.path
    try:
        pool_sha = _file_sha256(pool_path)
    except OSError:
        return None
    return entry_key(
        {
            "version": CACHE_VERSION,
            "numpy": np.__version__,
            "scenario": scenario.model_dump(mode="json"),
            "pool": pool_sha,
            "priors": [float(z) for z in priors],
            "stop": stop,
        }
    )


def cached_candidates(
    scenario: Scenario,
    base: str | Path,
    priors: Sequence[float],
    stop: str | None,
    folder: str | Path | None,
    *,
    strict: bool = False,
) -> FloatArray | None:
    """:func:`tradeoff.choose.candidates.decision_candidates`, read from ``folder`` when an entry
    for the same scenario, pool file, priors and stop rule is there (and written there
    when it is not; a folder that cannot be written keeps nothing, unless ``strict``: then
    the ``OSError`` is raised)."""
    if scenario.pool is None or stop == "weights":
        return None  # what decision_candidates answers, without importing pandas
    key = None if folder is None else candidates_key(scenario, base, priors, stop)
    path = None if key is None or folder is None else Path(folder) / f"candidates-{key}.npy"
    none_marker = None if path is None else path.with_suffix(".none")
    if path is not None and none_marker is not None:
        if none_marker.is_file():
            return None
        if path.is_file():
            try:
                rows: FloatArray = np.load(path)
                if rows.ndim == 2 and rows.dtype == np.float64:
                    return rows
            except (OSError, ValueError):
                pass
            _set_aside(path)
    from tradeoff.choose.candidates import decision_candidates  # pandas only when it is needed

    candidates = decision_candidates(scenario, base, priors, stop)
    if path is not None and none_marker is not None:
        try:
            _make_folder(path.parent)
            if candidates is None:
                none_marker.touch()
            else:
                _atomic_save(path, np.ascontiguousarray(candidates, dtype=np.float64))
        except OSError:
            if strict:
                raise
    return candidates


def cached_measurement(
    scenario: Scenario,
    base: str | Path,
    priors: Sequence[float],
    candidates: FloatArray | None,
    folder: str | Path | None,
) -> MeasurementRecord | None:
    """How the scenario pool's models were measured when ``candidates`` are its models and
    the pool carries a measurement noise (:func:`tradeoff.choose.recommend.measurement_record`),
    read from ``folder`` when an entry for the same scenario, pool and priors is there
    (written there when it is not); ``None`` without candidates or noise."""
    from tradeoff.record.records import MeasurementRecord

    if candidates is None or scenario.pool is None:
        return None
    key = None if folder is None else candidates_key(scenario, base, priors, "pick")
    name = None if key is None else f"measurement-{key}"
    if name is not None and folder is not None:
        known = read_record(folder, name)
        if isinstance(known, dict):
            if not known:
                return None
            try:
                return MeasurementRecord.model_validate(known)
            except ValueError:
                pass
    from tradeoff.choose.candidates import scenario_pool
    from tradeoff.choose.recommend import measurement_record
    from tradeoff.errors import InputError

    try:
        pool = scenario_pool(scenario, base)
    except InputError:
        return None
    found = measurement_record(scenario, pool, priors, candidates)
    if name is not None and folder is not None:
        write_record(folder, name, {} if found is None else found.model_dump(mode="json"))
    return found


def read_record(folder: str | Path, name: str) -> Any:
    """The JSON entry ``<name>.json`` in ``folder``, or ``None`` when there is none; one
    that cannot be read or parsed is set aside (the caller builds it again)."""
    path = Path(folder) / f"{name}.json"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError):
        _set_aside(path)
        return None
    try:
        return json.loads(text)
    except ValueError:
        _set_aside(path)
        return None


def write_record(folder: str | Path, name: str, data: Any) -> None:
    """Write the JSON entry ``<name>.json`` whole (a temporary name, then one rename); a
    folder that cannot be written keeps nothing."""
    folder = Path(folder)
    try:
        text = json.dumps(data).encode()
        _make_folder(folder)
        _atomic_write(folder / f"{name}.json", lambda fh: fh.write(text))
    except (OSError, TypeError, ValueError):
        return
