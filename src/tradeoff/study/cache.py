"""What every participant's process would rebuild, kept on disk once per scenario.

A study serves each participant from their own process (docs/architecture.md, "Files":
Study). Without a cache every one of them builds the scenario's population (10⁶ samples: about a
second of CPU and 150 MB at its peak), sorts it for each class pair (paper 004 Prop. 2's
restricted Bayes-optimal classifiers are read off those sorted tables) and reads the pool
to find the models its questions aim at (pandas alone takes half a second to import). With
a cache folder they are built once, written as ``.npy`` files and memory-mapped: the
operating system shares the pages between all participants' processes (a process reads
each page once, to check the entry's seal, then only the few a binary search visits).

Layout of a cache folder (one entry per key; a key is the SHA-256 of everything the entry
depends on, so a changed scenario, population file, pool or numpy version gets a new one)::

    population-<key>/meta.json        n, k, the class priors, the format version
    population-<key>/eta.npy          class probabilities, n × k
    population-<key>/pair-0-<j>-{rho,cs0,cs1}.npy   sorted tables of class 1 against j+1
    population-<key>/seal             its HMAC-SHA256 under this user's key
    candidates-<key>/rows.npy         the pool's models as metric rows (none.json: no pool)
    candidates-<key>/seal
    facts-<key>.json                  a record: its seal on the first line, then JSON

Entries are written to a temporary name and renamed into place, so a process never reads
half an entry even when several build the same one at once. Each is sealed with a key of
this user's, and one that this user's tradeoff did not write (edited, copied from another
scenario, folder, user or machine), or that cannot be read, is set aside and built again,
said once per folder; a folder others may write is not used at all
(:mod:`tradeoff.study.sealed`; docs/architecture.md, "What a cache trusts"). A folder that
cannot be written (a read-only home, a full disk) costs time, never the work: what was
built is used from memory, and only ``study create`` (``strict``) refuses to go on
without its entries.

Commands outside a study (``tradeoff session show``, ``select``, ``scenario check``,
``simulate``, the app) keep the same entries in the user's cache folder
(:func:`user_cache_dir`: ``$TRADEOFF_CACHE_DIR``, else ``$XDG_CACHE_HOME/tradeoff``, else
``~/.cache/tradeoff``; ``TRADEOFF_CACHE_DIR=`` set but empty keeps nothing; a value that
is not an absolute path to a folder is a located error: :func:`checked_cache_dir`), through
:func:`command_population`. Small JSON entries (:func:`read_record`, :func:`write_record`)
hold what a session file says, so ``study status`` replays a file once, not on every run
(:mod:`tradeoff.study.counted`); their keys include :func:`package_digest`, since the
engine's code decides what a replay says.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import stat
import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from tradeoff.arrays import FloatArray
from tradeoff.ask.population import (
    Population,
    PopulationTables,
    build_population,
    scenario_population,
)
from tradeoff.ask.scenario import Scenario, load_scenario
from tradeoff.errors import InputError
from tradeoff.study import sealed
from tradeoff.study.files import file_kind

if TYPE_CHECKING:
    from tradeoff.record.records import MeasurementRecord


#: Bumped when the files' layout or meaning changes (old entries are then ignored; 3: the
#: seal names its key).
CACHE_VERSION = 3
#: The environment variable naming the commands' cache folder (:func:`user_cache_dir`);
#: set but empty, commands keep nothing and build in memory.
CACHE_DIR_ENV = "TRADEOFF_CACHE_DIR"


def user_cache_dir() -> Path | None:
    """Where commands outside a study keep their entries: ``$TRADEOFF_CACHE_DIR`` when it
    is set (``None`` when it is set but empty: nothing is kept; checked as every path a
    user gives is: :func:`checked_cache_dir`), else ``$XDG_CACHE_HOME/tradeoff`` (an
    absolute path only, as the XDG specification says), else ``~/.cache/tradeoff``;
    ``None`` when there is no home to find either.
    """
    value = os.environ.get(CACHE_DIR_ENV)
    if value is not None:
        return checked_cache_dir(value, CACHE_DIR_ENV) if value.strip() else None
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / "tradeoff"
    try:
        return Path.home() / ".cache" / "tradeoff"
    except RuntimeError:  # no home directory to be found
        return None


def checked_cache_dir(value: str, source: str) -> Path:
    """The cache folder a user named in ``source`` (an environment variable), or an
    :class:`InputError` naming it, the problem and the fix: a ``~user`` that names no
    one, a relative path (refused, not resolved: each working folder would get a cache
    of its own, written where the command happens to run, perhaps a folder others share),
    or a path that is, or is below, something other than a folder.

    >>> checked_cache_dir("/tmp/x/../y", "TRADEOFF_CACHE_DIR")
    PosixPath('/tmp/x/../y')
    >>> checked_cache_dir("cache", "TRADEOFF_CACHE_DIR")
    Traceback (most recent call last):
    ...
    tradeoff.errors.InputError: TRADEOFF_CACHE_DIR: 'cache' is a relative path, ...
    """
    shown = repr(value)
    try:
        path = Path(value).expanduser()
    except RuntimeError:
        user = value[1:].split("/", 1)[0]
        who = f"there is no user {user!r}" if user else "no home folder is set"
        raise InputError.single(
            source,
            "",
            f"{shown} starts with a home folder that cannot be found ({who}).",
            f"give an absolute path, e.g. {source}=$HOME/.cache/tradeoff, or unset {source}.",
        ) from None
    if not path.is_absolute():
        raise InputError.single(
            source,
            "",
            f"{shown} is a relative path, which would put a cache in every folder a command "
            "runs in.",
            f"give an absolute path (for a folder here: {source}=$PWD/{value}), or unset {source}.",
        )
    for at in (path, *path.parents):
        try:
            mode = os.stat(at).st_mode
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError:
            break  # not reachable from here: building in memory, as for a read-only folder
        if not stat.S_ISDIR(mode):
            where = "is" if at == path else f"is below {at}, which is"
            raise InputError.single(
                source,
                "",
                f"{shown} {where} {_kind(mode)}, not a folder.",
                f"name a folder (one that does not exist yet is made), or unset {source}.",
            )
        break
    return path


def _kind(mode: int) -> str:
    return "a file" if stat.S_ISREG(mode) else file_kind(mode)


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
        "spec": None if spec is None else spec.model_dump(mode="json", exclude={"path"}),
    }
    if spec is not None and spec.kind == "probabilities":
        assert spec.path is not None
        payload["file"] = _file_sha256(spec.path)
    return entry_key(payload)


def _write_population(entry: Path, tables: PopulationTables) -> None:
    """Write a population's tables (:meth:`~tradeoff.ask.population.Population.tables`:
    η, the priors, each class against the first) as a sealed entry
    (:func:`tradeoff.study.sealed.write_entry`)."""
    eta, priors, pairs = tables
    parts: dict[str, bytes | NDArray[Any]] = {"eta.npy": np.ascontiguousarray(eta)}
    for (_, j), (rho, cs0, cs1) in sorted(pairs.items()):
        parts[f"pair-0-{j}-rho.npy"] = rho
        parts[f"pair-0-{j}-cs0.npy"] = cs0
        parts[f"pair-0-{j}-cs1.npy"] = cs1
    n, k = eta.shape
    meta = {
        "version": CACHE_VERSION,
        "n": int(n),
        "k": int(k),
        "priors": [float(z) for z in priors],
    }
    parts["meta.json"] = json.dumps(meta).encode()
    sealed.write_entry(entry, parts)


def _array(parts: dict[str, bytes | NDArray[Any]], name: str, shape: tuple[int, ...]) -> Any:
    value = parts.get(name)
    if not isinstance(value, np.ndarray) or value.shape != shape or value.dtype != np.float64:
        raise ValueError(f"{name} is missing or has the wrong shape")
    return value


def _read_population(entry: Path) -> Population:
    """Memory-map a sealed entry; :class:`~tradeoff.study.sealed.Untrusted` if this user's
    tradeoff did not write it, ``ValueError`` or ``OSError`` if it is not whole."""
    parts = sealed.read_entry(entry)
    raw = parts.get("meta.json")
    if not isinstance(raw, bytes):
        raise ValueError("no meta.json")
    meta = json.loads(raw)
    if meta.get("version") != CACHE_VERSION:
        raise ValueError("another cache version")
    n, k = int(meta["n"]), int(meta["k"])
    eta = _array(parts, "eta.npy", (n, k))
    pairs: dict[tuple[int, int], tuple[FloatArray, FloatArray, FloatArray]] = {}
    for j in range(1, k):
        pairs[(0, j)] = (
            _array(parts, f"pair-0-{j}-rho.npy", (n,)),
            _array(parts, f"pair-0-{j}-cs0.npy", (n + 1,)),
            _array(parts, f"pair-0-{j}-cs1.npy", (n + 1,)),
        )
    priors = np.array(meta["priors"], dtype=np.float64)
    if priors.shape != (k,):
        raise ValueError("priors have the wrong shape")
    return Population.prepared(eta, priors=priors, pairs=pairs)


def _set_aside(path: Path, why: BaseException | None = None) -> None:
    """Move an entry that cannot be used (``why``) out of the way (another process may be
    reading it), and say once for its folder that it was rebuilt; nothing is said when it
    is gone already (another process set it aside first, and said so)."""
    aside = path.with_name(f".broken-{path.name}-{os.getpid()}")
    try:
        os.rename(path, aside)
    except FileNotFoundError:
        return
    except OSError:
        pass  # a folder that cannot be written: rebuilt in memory
    else:
        if aside.is_dir() and not aside.is_symlink():
            shutil.rmtree(aside, ignore_errors=True)
        else:
            aside.unlink(missing_ok=True)
    sealed.rebuilt(path.parent, why)


def cached_population(
    scenario: Scenario, folder: str | Path | None, *, strict: bool = False
) -> Population:
    """The scenario's population, memory-mapped from ``folder`` (built and written there
    first if it is not); without a folder, built in memory as
    :func:`tradeoff.ask.population.scenario_population` does.

    The arrays are the same numbers either way: the entry is the built population, written
    and sealed under this user's key (:mod:`tradeoff.study.sealed`). An entry this user's
    tradeoff did not write is set aside and rebuilt; a folder that is not this user's
    alone, or a key that cannot be used, is not read (built in memory, said once). When
    the entry can be neither read nor written (a read-only or full folder), the
    population built in memory is returned, unless ``strict``: then the ``OSError`` (or
    the :class:`InputError` about the key or the folder) is raised (``study create`` makes
    sure its cache is there). A process out of descriptors or memory gets the error
    either way (the entry is not broken).
    """
    names = tuple(c.name for c in scenario.classes)
    if scenario.population is None:
        return scenario_population(scenario)  # no classes: nothing to build or keep
    if folder is None:
        return build_population(scenario.population, names)
    try:
        key = population_key(scenario)
    except OSError:  # an unreadable probability file: reported as building it reports it
        return build_population(scenario.population, names)
    folder = Path(folder)
    if not sealed.usable_folder(folder, strict=strict):
        return build_population(scenario.population, names)  # built once: lru_cache
    entry = folder / f"population-{key}"
    try:
        for _ in range(2):
            if os.path.lexists(entry):
                try:
                    return _mapped(entry)
                except OSError as exc:
                    if exc.errno in _TRANSIENT:  # out of descriptors or memory: not broken
                        raise
                    _set_aside(entry, exc)
                except (ValueError, KeyError, TypeError) as exc:  # Untrusted is a ValueError
                    _set_aside(entry, exc)
            _write_population(entry, build_population(scenario.population, names).tables())
        try:
            return _mapped(entry)
        except (ValueError, KeyError, TypeError) as exc:  # replaced again at once: not used
            _set_aside(entry, exc)
            return build_population(scenario.population, names)
    except OSError as exc:
        if strict or exc.errno in _TRANSIENT:
            raise
        return build_population(scenario.population, names)  # built once: lru_cache


#: Errors that say nothing about an entry (the process is out of descriptors or memory):
#: the entry is left in place for the next try.
_TRANSIENT = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.EAGAIN, errno.EINTR})
#: Populations this process has mapped and whose seal it checked, by entry (the key in use,
#: its path, and each file's inode, times and size: an entry edited or replaced is read and
#: checked again): a server that opens many sessions maps each entry once and every engine
#: shares it (each mapping holds a file descriptor).
_MAPPED: dict[tuple[str, str, tuple[tuple[str, int, int, int, int], ...]], Population] = {}
_MAPPED_LOCK = threading.Lock()


def _mapped(entry: Path) -> Population:
    stats = tuple(
        (f.name, st.st_ino, st.st_mtime_ns, st.st_ctime_ns, st.st_size)
        for f in sorted(entry.iterdir())
        for st in (f.lstat(),)
    )
    key = (sealed.key_id(), str(entry), stats)
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


def _read_candidates(entry: Path) -> tuple[FloatArray | None] | None:
    """The candidates a sealed entry holds (in a 1-tuple: ``(None,)`` when it says the pool
    offers none), or ``None`` when there is no entry; one that cannot be used is set
    aside."""
    if not os.path.lexists(entry):
        return None
    why: BaseException | None = None
    try:
        parts = sealed.read_entry(entry)
        if set(parts) == {"none.json"} and parts["none.json"] == b"null":
            return (None,)
        rows = parts.get("rows.npy")
        if (
            set(parts) == {"rows.npy"}
            and isinstance(rows, np.ndarray)
            and rows.ndim == 2
            and rows.dtype == np.float64
        ):
            return (np.array(rows),)
    except OSError as exc:
        if exc.errno in _TRANSIENT:
            raise
        why = exc
    except ValueError as exc:
        why = exc
    _set_aside(entry, why)
    return None


def cached_candidates(
    scenario: Scenario,
    base: str | Path,
    priors: Sequence[float],
    stop: str | None,
    folder: str | Path | None,
    *,
    strict: bool = False,
) -> FloatArray | None:
    """:func:`tradeoff.choose.candidates.decision_candidates`, read from ``folder`` when a
    sealed entry for the same scenario, pool file, priors and stop rule is there (and
    written there when it is not; a folder that cannot be written keeps nothing, unless
    ``strict``: then the ``OSError`` is raised). An entry this user's tradeoff did not
    write is set aside and rebuilt, as for :func:`cached_population`."""
    if scenario.pool is None or stop == "weights":
        return None  # what decision_candidates answers, without importing pandas
    key = None if folder is None else candidates_key(scenario, base, priors, stop)
    entry = None
    if key is not None and folder is not None and sealed.usable_folder(Path(folder), strict=strict):
        entry = Path(folder) / f"candidates-{key}"
        found = _read_candidates(entry)
        if found is not None:
            return found[0]
    from tradeoff.choose.candidates import decision_candidates  # pandas only when it is needed

    candidates = decision_candidates(scenario, base, priors, stop)
    if entry is not None:
        parts: dict[str, bytes | NDArray[Any]] = (
            {"none.json": b"null"}
            if candidates is None
            else {"rows.npy": np.ascontiguousarray(candidates, dtype=np.float64)}
        )
        try:
            sealed.write_entry(entry, parts)
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
                cached = MeasurementRecord.model_validate(known)
            except ValueError:
                cached = None
            if cached is not None and cached.pick == "likeliest":
                return cached  # else written before the pick was the likeliest best
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
    """The JSON entry ``<name>.json`` in ``folder`` once its seal is checked, or ``None``
    when there is none, or the folder is not this user's alone; one that this user's
    tradeoff did not write, or that cannot be read or parsed, is set aside (the caller
    builds it again)."""
    folder = Path(folder)
    if not sealed.usable_folder(folder):
        return None
    path = folder / f"{name}.json"
    try:
        payload = sealed.read_record(path)
        return None if payload is None else json.loads(payload)
    except OSError as exc:
        if exc.errno in _TRANSIENT:
            return None
        why: BaseException = exc
    except ValueError as exc:  # Untrusted and UnicodeDecodeError are ValueErrors
        why = exc
    _set_aside(path, why)
    return None


def write_record(folder: str | Path, name: str, data: Any) -> None:
    """Write the JSON entry ``<name>.json`` whole and sealed (a temporary name, then one
    rename); a folder that cannot be written, or is not this user's alone, keeps nothing."""
    folder = Path(folder)
    try:
        if not sealed.usable_folder(folder):
            return
        sealed.write_record(folder / f"{name}.json", json.dumps(data).encode())
    except (OSError, TypeError, ValueError, InputError):
        return


def prepare_caches(scenarios: Sequence[Path], folder: Path, *, strict: bool = True) -> None:
    """:func:`prepare_cache` for each of a study's ``scenarios`` (its own and every arm's,
    :attr:`tradeoff.study.folder.Study.scenario_paths`) in its cache ``folder``. ``study
    create`` calls it (``strict``: a cache that cannot be made is an error there) and
    ``study serve`` before it listens (not ``strict``: entries sealed with another key, or
    not written by this user's tradeoff, are said at once and rebuilt, and what is missing
    is built before the first participant waits for it)."""
    for path in scenarios:
        prepare_cache(path, folder, strict=strict)


def prepare_cache(scenario_path: Path, folder: Path, *, strict: bool = True) -> None:
    """Build what every participant's process would otherwise rebuild (the population,
    its sorted tables, the pool's models) in a study's cache ``folder``, so each process
    memory-maps them. ``strict``: a folder or key that
    cannot be used, or an entry that cannot be written, is an error (else what cannot be
    kept is built in memory, said once).

    A participant's process builds a missing entry itself, so a deleted cache only costs
    time.
    """
    scenario = load_scenario(scenario_path).scenario
    population = cached_population(scenario, folder, strict=strict)
    priors = population.priors.tolist()
    candidates = cached_candidates(
        scenario, scenario_path.parent, priors, scenario.elicitation.stop, folder, strict=strict
    )
    cached_measurement(scenario, scenario_path.parent, priors, candidates, folder)
