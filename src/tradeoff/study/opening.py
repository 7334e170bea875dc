"""Opening a session for a person: what a face calls to start or continue one.

:func:`start_session` prepares what the recorder needs and does not look up itself (the
scenario's population and the pool's models as metric rows, from the study cache when
there is one: :mod:`tradeoff.study.cache`) and starts the
:class:`~tradeoff.record.recorder.Recorder`;
:func:`resume_session` does the same for a session already on disk. The app,
the study server and the tests open sessions through these, so every face prepares a
session the same way (docs/architecture.md, "The decide step").
"""

from __future__ import annotations

from pathlib import Path

from tradeoff.ask.scenario import ElicitationSpec, LoadedScenario
from tradeoff.learn.starting_prior import StartingPrior
from tradeoff.record.log import SessionLog
from tradeoff.record.recorder import Recorder
from tradeoff.record.records import ConsentRecord, EntryRecord, SourceRecord
from tradeoff.study.cache import cached_candidates, cached_measurement, cached_population


def start_session(
    loaded: LoadedScenario,
    participant: str,
    sessions_dir: str | Path = "sessions",
    *,
    spec: ElicitationSpec | None = None,
    seed: int = 0,
    cache_dir: str | Path | None = None,
    consent: ConsentRecord | None = None,
    entry: EntryRecord | None = None,
    start: StartingPrior | None = None,
    source: SourceRecord | None = None,
    scenario_path: str | None = None,
) -> Recorder:
    """A new session of ``loaded`` for ``participant``, its first lines on disk.

    The questions aim at the scenario's pool (its models as metric rows, resolved beside
    the scenario file) unless ``spec`` stops on the weights; with ``cache_dir`` the
    population, its sorted tables and those rows are memory-mapped from there (built there
    first if missing). ``consent`` and ``entry`` (how a study participant came in) open
    the file, before its header. ``start``: a study's population prior
    (:func:`tradeoff.study.pooling.current_prior`), used when the strategy is ``joint``
    (the only one that starts from a prior over the whole weight vector). ``source``: the
    file of recorded choices its answers will be read from. ``scenario_path``: the path the
    header names the scenario file by (:meth:`Recorder.start
    <tradeoff.record.recorder.Recorder.start>`; by default ``loaded.path`` made absolute).
    """
    if (spec or loaded.scenario.elicitation).strategy != "joint":
        start = None
    population = cached_population(loaded.scenario, cache_dir)
    stop = (spec or loaded.scenario.elicitation).stop
    candidates = cached_candidates(
        loaded.scenario, Path(loaded.path).parent, population.priors.tolist(), stop, cache_dir
    )
    measurement = cached_measurement(
        loaded.scenario,
        Path(loaded.path).parent,
        population.priors.tolist(),
        candidates,
        cache_dir,
    )
    return Recorder.start(
        loaded,
        participant,
        sessions_dir,
        candidates=candidates,
        measurement=measurement,
        population=population,
        spec=spec,
        seed=seed,
        consent=consent,
        entry=entry,
        start=start,
        source=source,
        scenario_path=scenario_path,
    )


def resume_session(
    path: str | Path,
    *,
    current: LoadedScenario | None = None,
    use_embedded: bool = False,
    log: SessionLog | None = None,
    cache_dir: str | Path | None = None,
    wait: float = 0.0,
) -> Recorder:
    """Continue the session in ``path`` (see :meth:`Recorder.resume`); with ``cache_dir``
    its population is memory-mapped from there; ``wait``: seconds to wait for the file's
    lock (it is then read again under the lock)."""
    population = None
    if cache_dir is not None:
        from tradeoff.record.log import read_session

        log = log if log is not None else read_session(path)
        population = cached_population(log.header.scenario, cache_dir)
    return Recorder.resume(
        path,
        current=current,
        use_embedded=use_embedded,
        log=log,
        population=population,
        wait=wait,
    )
