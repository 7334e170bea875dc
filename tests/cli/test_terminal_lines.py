"""Messages on stderr read at a terminal's width: on an 80-column terminal a cache's
"sealed with another key" message broke inside "rebuilt" and inside its key's path, and so
did every long error. On a terminal they are broken between words (paths whole); written
to a file or a pipe (a log, a test) they stay one line a message."""

from __future__ import annotations

import fcntl
import io
import os
import select
import shutil
import struct
import termios
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

import pytest

from tradeoff.cli.common import error, say
from tradeoff.study import sealed
from tradeoff.text import terminal_fit

pytestmark = pytest.mark.core

MESSAGE = (
    "/work/tmp/coord/s/cache: cache entries sealed with another key than this user's "
    "(/work/tmp/coord/other-home/.local/state/tradeoff/cache-key) were not used: they were "
    "set aside and rebuilt. They were made by another user, or by a tradeoff that read "
    "XDG_STATE_HOME or HOME from another folder; give every command of a study the same ones."
)


@contextmanager
def terminal(columns: int) -> Iterator[tuple[TextIO, int]]:
    """A pseudo-terminal ``columns`` wide: the stream a program writes to, and the fd
    what it wrote is read from."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    attrs = termios.tcgetattr(slave)
    attrs[1] &= ~termios.ONLCR  # "\n" as written, not "\r\n"
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    stream = os.fdopen(slave, "w", encoding="utf-8")
    try:
        yield stream, master
    finally:
        stream.close()
        os.close(master)


def written(master: int) -> str:
    """Everything written to the terminal so far: a pseudo-terminal hands it out a few
    kilobytes a read (4,095 bytes on Linux), so it is read until nothing more is waiting."""
    chunks = []
    while select.select([master], [], [], 0.2)[0]:
        chunk = os.read(master, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode("utf-8")


def check_fitted(text: str, columns: int, original: str) -> None:
    lines = text.rstrip("\n").split("\n")
    assert len(lines) > 1 and all(len(line) <= columns for line in lines), lines
    assert " ".join(lines).split() == original.split()  # no word split, none lost


@pytest.mark.parametrize("columns", [80, 60])
def test_a_terminal_gets_lines_broken_between_words(columns: int) -> None:
    with terminal(columns) as (stream, _):
        check_fitted(terminal_fit(MESSAGE, stream), columns, MESSAGE)


def test_a_file_gets_one_line() -> None:
    assert terminal_fit(MESSAGE, io.StringIO()) == MESSAGE


def test_the_caches_message_and_an_error_fit_the_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sealed, "_SAID", set())
    monkeypatch.setattr(sealed, "_QUIET", False)
    with terminal(80) as (stream, master):
        monkeypatch.setattr("sys.stderr", stream)
        sealed.say_once("topic", MESSAGE)
        stream.flush()
        check_fitted(written(master), 80, "tradeoff: " + MESSAGE)
        error("error: " + MESSAGE)
        stream.flush()
        check_fitted(written(master), 80, "error: " + MESSAGE)


def test_what_a_command_says_fits_the_terminal_it_is_written_to(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``say(wrap=True)`` (``session show``) breaks its lines at the width of the terminal
    standard output is, whatever COLUMNS says, and leaves them whole in a pipe."""
    monkeypatch.setenv("COLUMNS", "200")
    with terminal(80) as (stream, master):
        monkeypatch.setattr("sys.stdout", stream)
        say("  • " + MESSAGE, wrap=True)
        stream.flush()
        out = written(master)
        check_fitted(out, 80, "• " + MESSAGE)
        assert all(line.startswith("    ") for line in out.rstrip("\n").split("\n")[1:])
    pipe = io.StringIO()
    monkeypatch.setattr("sys.stdout", pipe)
    say("  • " + MESSAGE, wrap=True)
    assert pipe.getvalue() == "  • " + MESSAGE + "\n"


@pytest.mark.parametrize(
    ("argv", "hang"),
    [
        (["scenario", "list"], 33),  # a title goes on under the titles (ids: 25, pool: 4)
        (["scenario", "check", "breast-cancer-triage"], 4),
    ],
)
def test_the_scenarios_fit_an_80_column_terminal(
    monkeypatch: pytest.MonkeyPatch, argv: list[str], hang: int
) -> None:
    """``scenario list`` printed rows of 86–94 characters (long titles) and ``scenario
    check`` its population line at 98; in a pipe they stay one line each."""
    from tradeoff.cli import main

    pipe = io.StringIO()
    monkeypatch.setattr("sys.stdout", pipe)
    assert main(argv) == 0
    whole = pipe.getvalue()
    assert max(len(line) for line in whole.splitlines()) > 80
    with terminal(80) as (stream, master):
        monkeypatch.setattr("sys.stdout", stream)
        assert main(argv) == 0
        stream.flush()
        out = written(master)
    lines = out.rstrip("\n").split("\n")
    assert all(len(line) <= 80 for line in lines), lines
    assert out.split() == whole.split()  # no word split, none lost
    starts = [line for line in lines if any(w.startswith(line) for w in whole.splitlines())]
    goes_on = [line for line in lines if line not in starts]
    indents = {len(line) - len(line.lstrip()) for line in goes_on if line.startswith(" ")}
    assert indents == {hang}


def test_the_coordinators_messages_fit_an_80_column_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``study withdraw`` said "p02 withdrawn from … at …: status, export and report leave
    their answers out from now on." in one line of 123 characters, which the terminal broke
    inside a word; so did ``study export``, ``erase``, ``pilot-link``, ``coordinator-key``
    and ``remove-pilots``. In a pipe each stays one line."""
    from tradeoff.ask.scenario import load_scenario
    from tradeoff.cli import main
    from tradeoff.learn import Choice
    from tradeoff.study.folder import create_study
    from tradeoff.study.opening import start_session

    from ..conftest import small_scenario_file

    scenario = small_scenario_file(tmp_path)
    study, _ = create_study(scenario, ["p01", "p02", "p03"], tmp_path / "a-study-folder")
    rec = start_session(load_scenario(study.scenario_path), "p01", study.sessions_dir)
    with rec:
        rec.answer(Choice.LEFT, response_ms=900.0)
    monkeypatch.chdir(tmp_path)  # paths short enough to fit a line
    where = "a-study-folder"
    commands = [
        ["study", "withdraw", where, "p02"],
        ["study", "export", where, "--out", "out/answers.csv"],
        ["study", "erase", where, "p03", "--yes"],
        ["study", "pilot-link", where],
        ["study", "coordinator-key", where],
    ]
    for argv in commands:
        kept = tmp_path / "kept"
        shutil.copytree(study.path, kept)
        (tmp_path / "out").mkdir()
        pipe = io.StringIO()
        monkeypatch.setattr("sys.stdout", pipe)
        assert main(argv) == 0, argv
        whole = pipe.getvalue()
        assert max(len(line) for line in whole.splitlines()) > 80, whole
        shutil.rmtree(study.path)
        kept.rename(study.path)  # as it was: the command runs again at the terminal
        shutil.rmtree(tmp_path / "out")
        (tmp_path / "out").mkdir()
        with terminal(80) as (stream, master):
            monkeypatch.setattr("sys.stdout", stream)
            assert main(argv) == 0, argv
            stream.flush()
            out = written(master)
        lines = out.rstrip("\n").split("\n")
        assert all(len(line) <= 80 for line in lines), lines
        assert len(out.split()) == len(whole.split())  # no word split (a time or a key differs)
        shutil.rmtree(tmp_path / "out")
