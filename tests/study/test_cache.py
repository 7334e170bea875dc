"""The on-disk cache a study's participants share: the same numbers as building in memory,
memory-mapped, rebuilt when broken (its sessions, commands and processes:
test_cache_commands.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import beta as scipy_beta

from tradeoff.ask.population import build_population
from tradeoff.ask.scenario import load_scenario
from tradeoff.choose.candidates import decision_candidates
from tradeoff.cli import main
from tradeoff.errors import InputError
from tradeoff.learn.probabilistic import ERROR_GRID, beta_pdf
from tradeoff.simulation.oracles import SimulatedOracle
from tradeoff.study.cache import (
    CACHE_DIR_ENV,
    cached_candidates,
    cached_population,
    command_population,
    population_key,
    user_cache_dir,
)
from tradeoff.study.opening import start_session

from ..conftest import ROOT, TEST_CACHE, small, small_scenario_file

pytestmark = pytest.mark.core


def _entry(folder: Path) -> Path:
    (entry,) = folder.glob("population-*")
    return entry


@pytest.mark.parametrize("name", ["glaucoma-screening", "paper-k3-two-costs-reward"])
def test_a_cached_population_is_the_built_one_memory_mapped(tmp_path: Path, name: str) -> None:
    sc = small(name)
    built = build_population(sc.population, tuple(c.name for c in sc.classes))
    first = cached_population(sc, tmp_path)  # builds and writes the entry
    again = cached_population(sc, tmp_path)  # reads it
    assert isinstance(again.eta, np.memmap)
    for pop in (first, again):
        np.testing.assert_array_equal(np.asarray(pop.eta), built.eta)
        np.testing.assert_array_equal(pop.priors, built.priors)
        for j in range(1, sc.n_classes):
            for m in (0.0, 0.013, 0.37, 0.5, 0.81, 1.0):
                assert pop.rbo_accuracies(0, j, m) == built.rbo_accuracies(0, j, m)
    if sc.n_classes > 2:  # pairs not in the cache are built from the mapped η
        assert again.rbo_accuracies(1, 2, 0.4) == built.rbo_accuracies(1, 2, 0.4)


def test_the_key_follows_what_the_population_depends_on(tmp_path: Path) -> None:
    sc = small("glaucoma-screening")
    other_seed = sc.model_copy(update={"population": sc.population.model_copy(update={"seed": 12})})
    renamed = sc.model_copy(update={"title": "another title"})
    assert population_key(sc) != population_key(other_seed)
    assert population_key(sc) == population_key(renamed)  # the text does not matter


def test_a_probability_file_is_keyed_by_its_content_not_its_path(tmp_path: Path) -> None:
    src = ROOT / "scenarios" / "breast-cancer-triage-real.toml"
    sc = load_scenario(src).scenario
    key = population_key(sc)
    csv = Path(sc.population.path or "")
    copy = tmp_path / "copy.csv"
    copy.write_bytes(csv.read_bytes())
    moved = sc.model_copy(
        update={"population": sc.population.model_copy(update={"path": str(copy)})}
    )
    assert population_key(moved) == key
    copy.write_bytes(csv.read_bytes().replace(b"\n", b"\r\n", 1))
    assert population_key(moved) != key


def test_a_broken_entry_is_set_aside_and_built_again(tmp_path: Path) -> None:
    sc = small("glaucoma-screening")
    built = build_population(sc.population, tuple(c.name for c in sc.classes))
    cached_population(sc, tmp_path)
    entry = _entry(tmp_path)
    eta = entry / "eta.npy"
    eta.write_bytes(eta.read_bytes()[: eta.stat().st_size // 2])  # a cut-off write
    pop = cached_population(sc, tmp_path)
    np.testing.assert_array_equal(np.asarray(pop.eta), built.eta)
    meta = json.loads((_entry(tmp_path) / "meta.json").read_text())
    meta["n"] += 1  # a table that does not match its description
    (_entry(tmp_path) / "meta.json").write_text(json.dumps(meta))
    pop = cached_population(sc, tmp_path)
    assert pop.n == built.n
    assert [p.name for p in tmp_path.iterdir()] == [_entry(tmp_path).name]  # nothing left over


def test_cached_candidates_are_the_pools_rows(tmp_path: Path) -> None:
    loaded = load_scenario(ROOT / "scenarios" / "breast-cancer-triage.toml")
    sc, base = loaded.scenario, Path(loaded.path).parent
    priors = [0.37, 0.63]
    expected = decision_candidates(sc, base, priors, None)
    assert expected is not None
    for _ in range(2):  # written, then read
        got = cached_candidates(sc, base, priors, None, tmp_path)
        assert got is not None
        np.testing.assert_array_equal(got, expected)
    assert len(list(tmp_path.glob("candidates-*/rows.npy"))) == 1
    assert cached_candidates(sc, base, priors, "weights", tmp_path) is None
    assert cached_candidates(sc, base, [0.5, 0.5], None, tmp_path) is not None
    assert len(list(tmp_path.glob("candidates-*/rows.npy"))) == 2  # other priors: another entry


def test_beta_density_is_scipys() -> None:
    for a, b in ((0.2, 3.8), (0.02, 3.98), (1.6, 2.4), (2.0, 2.0)):
        x = ERROR_GRID / 0.5
        np.testing.assert_allclose(beta_pdf(x, a, b), scipy_beta.pdf(x, a, b), rtol=1e-12)


def test_a_missing_probability_file_is_reported_as_without_the_cache(tmp_path: Path) -> None:
    sc = load_scenario(ROOT / "scenarios" / "breast-cancer-triage-real.toml").scenario
    gone = sc.model_copy(
        update={"population": sc.population.model_copy(update={"path": str(tmp_path / "x.csv")})}
    )
    with pytest.raises(InputError, match=r"x\.csv"):
        cached_population(gone, tmp_path / "cache")


def test_a_process_maps_an_entry_once_and_keeps_it_when_out_of_descriptors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    from tradeoff.study import cache

    sc = small("glaucoma-screening")
    first = cached_population(sc, tmp_path)
    assert cached_population(sc, tmp_path) is first  # every engine shares one mapping
    cache._MAPPED.clear()

    def out_of_descriptors(folder: Path) -> object:
        raise OSError(errno.EMFILE, "Too many open files")

    monkeypatch.setattr(cache, "_read_population", out_of_descriptors)
    with pytest.raises(OSError, match="Too many open files"):
        cached_population(sc, tmp_path)
    assert _entry(tmp_path).is_dir()  # not set aside as broken


# -- the commands' cache: the same entries in the user's cache folder ----------------------


def test_the_commands_cache_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "mine"))
    assert user_cache_dir() == tmp_path / "mine"
    monkeypatch.setenv(CACHE_DIR_ENV, "")  # set but empty: nothing is kept
    assert user_cache_dir() is None
    monkeypatch.delenv(CACHE_DIR_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert user_cache_dir() == tmp_path / "xdg" / "tradeoff"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # not absolute: ignored (XDG)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert user_cache_dir() == tmp_path / "home" / ".cache" / "tradeoff"


def test_the_tests_keep_their_entries_out_of_the_real_cache() -> None:
    assert user_cache_dir() == Path(TEST_CACHE)
    assert not str(TEST_CACHE).startswith(str(Path.home() / ".cache"))


def test_commands_map_the_population_from_the_users_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "cache"))
    sc = small("paper-k3-two-costs-reward")
    built = build_population(sc.population, tuple(c.name for c in sc.classes))
    for _ in range(2):  # written, then read
        pop = command_population(sc)
        np.testing.assert_array_equal(np.asarray(pop.eta), built.eta)
        np.testing.assert_array_equal(pop.priors, built.priors)
    assert isinstance(pop.eta, np.memmap)
    assert len(list((tmp_path / "cache").glob("population-*"))) == 1
    monkeypatch.setenv(CACHE_DIR_ENV, "")
    assert not isinstance(command_population(sc).eta, np.memmap)  # switched off: in memory


def test_a_cache_folder_that_cannot_be_written_costs_time_not_the_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Below a regular file no folder can be made (for root too); a read-only folder says
    EACCES or EROFS when written. Either way the same numbers come from memory."""
    import errno

    from tradeoff.study import cache

    blocked = tmp_path / "a-file"
    blocked.write_text("")
    sc = small("glaucoma-screening")
    built = build_population(sc.population, tuple(c.name for c in sc.classes))
    np.testing.assert_array_equal(np.asarray(cached_population(sc, blocked / "c").eta), built.eta)
    with pytest.raises(NotADirectoryError):  # study create must have its entries
        cached_population(sc, blocked / "cache", strict=True)
    loaded = load_scenario(ROOT / "scenarios" / "breast-cancer-triage.toml")
    base = Path(loaded.path).parent
    expected = decision_candidates(loaded.scenario, base, [0.4, 0.6], None)
    got = cached_candidates(loaded.scenario, base, [0.4, 0.6], None, blocked / "cache")
    assert got is not None and expected is not None
    np.testing.assert_array_equal(got, expected)
    with pytest.raises(NotADirectoryError):
        cached_candidates(loaded.scenario, base, [0.4, 0.6], None, blocked / "c", strict=True)

    def read_only(folder: Path, tables: object) -> None:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(cache, "_write_population", read_only)
    pop = cached_population(sc, tmp_path / "ro")
    np.testing.assert_array_equal(np.asarray(pop.eta), built.eta)


def _recorded(tmp_path: Path, budget: int = 6) -> Path:
    """A finished session of a small copy of the breast-cancer scenario (its pool beside)."""
    path = small_scenario_file(tmp_path, "breast-cancer-triage")
    if not (tmp_path / "pools").exists():
        shutil.copytree(ROOT / "scenarios" / "pools", tmp_path / "pools")
    loaded = load_scenario(path)
    oracle = SimulatedOracle.for_scenario(loaded.scenario, (0.45, 0.3, 0.15, 0.1))
    spec = loaded.scenario.elicitation.override(budget=budget)
    rec = start_session(loaded, "p01", tmp_path / "sessions", spec=spec)
    with rec:
        while (q := rec.engine.next_query()) is not None:
            rec.answer(oracle.choose(q))
        rec.finish()
    return rec.path


def test_a_changed_probability_file_is_read_again_not_served_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "cache"))
    scenario = tmp_path / "real.toml"
    scenario.write_text((ROOT / "scenarios" / "breast-cancer-triage-real.toml").read_text())
    shutil.copytree(ROOT / "scenarios" / "pools", tmp_path / "pools")
    shutil.copytree(ROOT / "scenarios" / "populations", tmp_path / "populations")
    assert main(["scenario", "check", str(scenario)]) == 0
    assert len(list((tmp_path / "cache").glob("population-*"))) == 1
    csv = tmp_path / "populations" / "breast-cancer-lr.csv"
    lines = csv.read_text().splitlines()
    lines[1] = ",".join(["0.7"] * len(lines[1].split(",")))  # not a probability vector
    csv.write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    assert main(["scenario", "check", str(scenario)]) == 2  # read again, and refused
    assert "row" in capsys.readouterr().err
    assert len(list((tmp_path / "cache").glob("population-*"))) == 1  # nothing kept of it


def test_the_app_outside_a_study_maps_from_the_users_cache() -> None:
    from tradeoff.tui import make_app

    app = make_app(ROOT / "scenarios" / "glaucoma-screening.toml")
    assert app.settings.cache_dir == user_cache_dir()


# -- what a session file says, kept: study status replays a file once ----------------------
