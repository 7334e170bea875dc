"""A cache is a cache: an entry this user's tradeoff did not write (edited, copied from
another scenario, seed, folder, user or machine, or in a folder others may write) changes no
answer. It is rebuilt, and the command says so once; the cache's paths are checked as every
path a user gives is (docs/architecture.md, "What a cache trusts")."""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from tradeoff.ask.population import build_population
from tradeoff.ask.scenario import Scenario, load_scenario
from tradeoff.choose.candidates import decision_candidates
from tradeoff.cli import main
from tradeoff.study import cache, counted, sealed
from tradeoff.study.cache import (
    CACHE_DIR_ENV,
    cached_candidates,
    cached_population,
    read_record,
    write_record,
)

from ..conftest import ROOT, small

pytestmark = pytest.mark.core


@pytest.fixture(autouse=True)
def _fresh_process() -> Iterator[None]:
    """Each test as a command of its own: nothing said yet, the key read again, nothing
    mapped or replayed in memory."""

    def clear() -> None:
        sealed._SAID.clear()
        sealed._KEYS.clear()
        cache._MAPPED.clear()
        counted._FACTS.clear()

    clear()
    yield
    clear()


def _as_new_process() -> None:
    sealed._SAID.clear()
    cache._MAPPED.clear()
    counted._FACTS.clear()


def _rebuilt_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if "rebuilt" in line]


def _other_seed(sc: Scenario) -> Scenario:
    return sc.model_copy(
        update={"population": sc.population.model_copy(update={"seed": sc.population.seed + 1})}
    )


def _replace_files(entry: Path, other: Path) -> None:
    """Put ``other``'s files in ``entry`` (a valid entry of another key copied over)."""
    for f in entry.iterdir():
        f.unlink()
    for f in other.iterdir():
        shutil.copy2(f, entry / f.name)


def test_another_seeds_population_under_this_ones_name_is_rebuilt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sc = small("paper-k3-two-costs-reward")
    built = build_population(sc.population, tuple(c.name for c in sc.classes))
    cached_population(sc, tmp_path / "c")
    cached_population(_other_seed(sc), tmp_path / "elsewhere")
    (entry,) = (tmp_path / "c").glob("population-*")
    (other,) = (tmp_path / "elsewhere").glob("population-*")
    _replace_files(entry, other)  # a whole, valid entry: only its name is not its own
    cache._MAPPED.clear()
    for _ in range(2):  # rebuilt, then read
        pop = cached_population(sc, tmp_path / "c")
        np.testing.assert_array_equal(np.asarray(pop.eta), built.eta)
        assert pop.rbo_accuracies(0, 2, 0.3) == built.rbo_accuracies(0, 2, 0.3)
    assert isinstance(pop.eta, np.memmap)
    err = capsys.readouterr().err
    assert len(_rebuilt_lines(err)) == 1 and err.count("\n") == 1


def test_another_pools_rows_under_this_ones_name_are_rebuilt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    loaded = load_scenario(ROOT / "scenarios" / "breast-cancer-triage.toml")
    sc, base = loaded.scenario, Path(loaded.path).parent
    expected = decision_candidates(sc, base, [0.4, 0.6], None)
    assert expected is not None
    cached_candidates(sc, base, [0.4, 0.6], None, tmp_path)
    cached_candidates(sc, base, [0.2, 0.8], None, tmp_path)
    entry, other = (
        next(tmp_path.glob(f"candidates-{cache.candidates_key(sc, base, p, None)}*"))
        for p in ([0.4, 0.6], [0.2, 0.8])
    )
    if entry.is_dir():
        _replace_files(entry, other)
    else:  # one file an entry
        shutil.copy(other, entry)
    got = cached_candidates(sc, base, [0.4, 0.6], None, tmp_path)
    assert got is not None
    np.testing.assert_array_equal(got, expected)
    _replace_files(entry, other)
    (entry / "rows.npy").unlink()
    (entry / "none.json").write_bytes(b"null")  # "the pool offers nothing": not sealed so
    got = cached_candidates(sc, base, [0.4, 0.6], None, tmp_path)
    assert got is not None
    np.testing.assert_array_equal(got, expected)
    assert len(_rebuilt_lines(capsys.readouterr().err)) == 1


def test_a_record_copied_under_another_name_or_edited_is_not_read(tmp_path: Path) -> None:
    write_record(tmp_path, "facts-a", {"answers": 3})
    write_record(tmp_path, "facts-b", {"answers": 4})
    assert read_record(tmp_path, "facts-a") == {"answers": 3}
    shutil.copy(tmp_path / "facts-a.json", tmp_path / "facts-b.json")  # another file's facts
    assert read_record(tmp_path, "facts-b") is None
    assert not (tmp_path / "facts-b.json").exists()  # set aside
    text = (tmp_path / "facts-a.json").read_text()
    (tmp_path / "facts-a.json").write_text(text.replace('"answers": 3', '"answers": 42'))
    assert read_record(tmp_path, "facts-a") is None


def test_entries_in_a_folder_others_may_write_are_not_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_record(tmp_path / "c", "facts-a", {"answers": 3})
    os.chmod(tmp_path / "c", 0o777)
    assert read_record(tmp_path / "c", "facts-a") is None
    assert read_record(tmp_path / "c", "facts-a") is None
    write_record(tmp_path / "c", "facts-b", {"answers": 3})
    assert not (tmp_path / "c" / "facts-b.json").exists()  # nothing written there either
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "chmod go-w" in err and "may write" in err


def test_an_entry_file_others_may_write_is_rebuilt(tmp_path: Path) -> None:
    write_record(tmp_path, "facts-a", {"answers": 3})
    os.chmod(tmp_path / "facts-a.json", 0o666)  # anyone could have changed it since
    assert read_record(tmp_path, "facts-a") is None


def test_the_key_is_this_users_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    write_record(tmp_path / "c", "facts-a", {"answers": 3})
    key = tmp_path / "state" / "tradeoff" / "cache-key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert stat.S_IMODE(key.parent.stat().st_mode) == 0o700
    assert len(key.read_bytes()) == sealed.KEY_BYTES
    assert read_record(tmp_path / "c", "facts-a") == {"answers": 3}
    os.chmod(key, 0o644)  # others may have read it: it seals nothing any more
    sealed._KEYS.clear()
    assert read_record(tmp_path / "c", "facts-a") is None
    assert read_record(tmp_path / "c", "facts-a") is None
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(key) in err and "Fix: remove it" in err
    assert (tmp_path / "c" / "facts-a.json").exists()  # nothing set aside: not looked at
    key.unlink()
    key.symlink_to(tmp_path / "c" / "facts-a.json")  # a link is never followed
    sealed._KEYS.clear()
    assert sealed.secret() is None


def test_a_missing_key_is_made_once_and_a_new_key_rebuilds_every_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    write_record(tmp_path / "c", "facts-a", {"answers": 3})
    (tmp_path / "state" / "tradeoff" / "cache-key").unlink()  # as on another machine
    sealed._KEYS.clear()
    assert read_record(tmp_path / "c", "facts-a") is None


# -- the cache folder is a path a user gives ----------------------------------------------


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("~nosuchuser/x", ["'~nosuchuser/x'", "no user 'nosuchuser'", "absolute path"]),
        ("relative/cache", ["'relative/cache'", "relative path", "$PWD/relative/cache"]),
        ("{file}", ["is a file, not a folder"]),
        ("{file}/cache", ["is below", "which is a file, not a folder"]),
    ],
)
def test_a_cache_folder_that_is_no_folder_is_a_located_error(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    value: str,
    words: list[str],
) -> None:
    (tmp_path / "a-file").write_text("")
    monkeypatch.setenv(CACHE_DIR_ENV, value.format(file=tmp_path / "a-file"))
    monkeypatch.chdir(tmp_path)
    scenario = str(ROOT / "scenarios" / "breast-cancer-triage-real.toml")  # read through the cache
    for argv in (["scenario", "check", scenario], ["scenario", "check", scenario, "--json"]):
        assert main(argv) == 2
        out, err = capsys.readouterr()
        assert out == ""
        assert err.startswith(f"{CACHE_DIR_ENV}: ") and "Fix:" in err and err.count("\n") == 1
        for word in words:
            assert word in err
    assert not (tmp_path / "relative").exists()  # nothing written into the working folder


def test_a_link_or_a_fifo_in_an_entry_is_never_followed_nor_waited_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A link in place of a part (to a file sealed right, elsewhere) or of the whole entry,
    and a FIFO in place of a part: none is opened as a file; each entry is rebuilt."""
    sc = small("glaucoma-screening")
    built = build_population(sc.population, tuple(c.name for c in sc.classes))
    cached_population(sc, tmp_path / "c")
    cached_population(sc, tmp_path / "copy")
    (entry,) = (tmp_path / "c").glob("population-*")
    meta = entry / "meta.json"
    meta.unlink()
    meta.symlink_to(tmp_path / "copy" / entry.name / "meta.json")
    cache._MAPPED.clear()
    np.testing.assert_array_equal(np.asarray(cached_population(sc, tmp_path / "c").eta), built.eta)
    assert not meta.is_symlink()
    (entry / "eta.npy").unlink()
    os.mkfifo(entry / "eta.npy")
    cache._MAPPED.clear()
    np.testing.assert_array_equal(np.asarray(cached_population(sc, tmp_path / "c").eta), built.eta)
    shutil.rmtree(entry)
    entry.symlink_to(tmp_path / "copy" / entry.name)
    cache._MAPPED.clear()
    np.testing.assert_array_equal(np.asarray(cached_population(sc, tmp_path / "c").eta), built.eta)
    assert entry.is_dir() and not entry.is_symlink()
    assert (tmp_path / "copy" / entry.name / "seal").exists()  # the link's target untouched
    assert len(_rebuilt_lines(capsys.readouterr().err)) == 1


def test_study_create_refuses_a_key_others_may_read_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tradeoff.errors import InputError
    from tradeoff.study.folder import create_study

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    key = tmp_path / "state" / "tradeoff" / "cache-key"
    key.parent.mkdir(parents=True)
    key.write_bytes(os.urandom(sealed.KEY_BYTES))
    os.chmod(key, 0o640)
    scenario = tmp_path / "glaucoma-screening.toml"
    scenario.write_text((ROOT / "scenarios" / "glaucoma-screening.toml").read_text())
    with pytest.raises(InputError) as caught:
        create_study(scenario, ["p01"], tmp_path / "s")
    assert caught.value.source == str(key)
    assert "read or written by others" in caught.value.message()
    assert "Fix: remove it" in caught.value.message()
    assert not (tmp_path / "s").exists()


def test_an_entry_sealed_with_another_key_names_the_key_in_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """One user, two key folders (a process that saw another ``$XDG_STATE_HOME``): the
    entries are rebuilt, and the command says another key sealed them and which key it
    used, not that they were edited or copied."""
    sc = small("paper-k3-two-costs-reward")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "one"))
    cached_population(sc, tmp_path / "c")
    write_record(tmp_path / "c", "facts-a", {"answers": 3})
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "two"))
    _fresh_state()
    assert read_record(tmp_path / "c", "facts-a") is None
    cached_population(sc, tmp_path / "c")
    err = capsys.readouterr().err
    assert len(_rebuilt_lines(err)) == 1 and err.count("\n") == 1
    assert "another key" in err and "edited" not in err
    assert str(tmp_path / "two" / "tradeoff" / "cache-key") in err
    write_record(tmp_path / "c", "facts-a", {"answers": 3})
    (entry,) = (tmp_path / "c").glob("population-*")
    (entry / "meta.json").write_bytes((entry / "meta.json").read_bytes() + b" ")  # edited
    _fresh_state()
    cached_population(sc, tmp_path / "c")
    assert read_record(tmp_path / "c", "facts-a") == {"answers": 3}  # its own: read
    err = capsys.readouterr().err
    assert len(_rebuilt_lines(err)) == 1 and "did not write (edited" in err


def _fresh_state() -> None:
    sealed._SAID.clear()
    sealed._KEYS.clear()
    cache._MAPPED.clear()


def test_nothing_is_said_of_an_entry_another_process_set_aside_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_record(tmp_path, "facts-a", {"answers": 3})
    cache._set_aside(tmp_path / "facts-b.json")  # gone before this process moved it
    assert capsys.readouterr().err == ""
    cache._set_aside(tmp_path / "facts-a.json")
    assert len(_rebuilt_lines(capsys.readouterr().err)) == 1
    assert list(tmp_path.iterdir()) == []


def test_the_loser_of_a_race_to_make_the_key_uses_the_winners(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process makes the key between this one's finding none and its making one:
    this one's key is not linked in place, and it reads the winner's."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    make = sealed._make_key
    won: list[bytes] = []

    def racing(path: Path) -> None:
        make(path)  # the other process, first
        won.append(path.read_bytes())
        make(path)  # this one's, too late

    monkeypatch.setattr(sealed, "_make_key", racing)
    assert sealed.require_secret() == won[0]
    assert [p.name for p in (tmp_path / "state" / "tradeoff").iterdir()] == ["cache-key"]
