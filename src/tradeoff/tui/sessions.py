"""How the app opens a session and how a person goes on with it later: a new session (a
study's as its page starts one), and the command that continues one."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

from tradeoff.ask.scenario import LoadedScenario
from tradeoff.record.recorder import Recorder
from tradeoff.record.records import ConsentRecord, EntryRecord, now
from tradeoff.study.export_rows import AT_A_TERMINAL
from tradeoff.study.opening import start_session
from tradeoff.study.pooling import current_prior
from tradeoff.tui.common import Settings


def new_session(
    settings: Settings,
    loaded: LoadedScenario,
    participant: str,
    consent: ConsentRecord | None = None,
) -> Recorder:
    """A new session for ``participant`` on ``loaded``; a study's as its page starts one:
    from the population prior it has pooled so far, opened by the ``consent`` just given
    and how they came in (by their code), with notes that it was answered at a terminal
    (its response times are the app's) and in the app's language."""
    study = settings.study
    recorder = start_session(
        loaded,
        participant,
        settings.sessions_dir,
        spec=settings.overrides.apply(loaded.scenario.elicitation),
        seed=settings.seed,
        cache_dir=settings.cache_dir,
        start=None if study is None else current_prior(study.path),
        consent=consent,
        entry=None if study is None else EntryRecord(type="entry", via="code", at=now()),
    )
    if study is not None:  # its times are this app's; its language the app's, English
        recorder.note(AT_A_TERMINAL)
        recorder.note("language en")  # (a consent carries its text's, not the app's)
    return recorder


def paused_words(path: Path, study: Path | None) -> tuple[str, str]:
    """What a person who saved to go on later is told, and the command that goes on
    (:func:`resume_command`); a study's participant is shown no file or command (the
    study's machine starts the program for them): the same code goes on.

    >>> paused_words(Path("s.jsonl"), Path("studies/t"))[1]
    ''
    """
    if study is None:
        return "Saved. Resume with:", resume_command(path)
    return (
        "Saved. To go on later, enter your access code when this program is started again: "
        "you will continue where you left off.",
        "",
    )


def finished_words(path: Path, study: Path | None) -> tuple[str, str]:
    """What a person who confirmed their answers is told, and the file they are in; a
    study's participant, as its page thanks them: no file (the study's machine keeps it)
    and whom to ask.

    >>> finished_words(Path("s.jsonl"), None)
    ('Thank you. Your answers are saved in:', 's.jsonl')
    >>> finished_words(Path("s.jsonl"), Path("studies/t"))[1]
    ''
    """
    if study is None:
        return "Thank you. Your answers are saved in:", str(path)
    return (
        "Thank you. Your answers are saved and complete. If you have questions about the "
        "study, ask its coordinator.",
        "",
    )


def resume_command(path: Path) -> str:
    """The command that resumes the session in ``path``, as it runs from here: ``tradeoff``
    when that is on the PATH, else the program that is running (``.venv/bin/tradeoff``
    after ``make run``; its whole path when it lies outside this folder), else ``python
    -m tradeoff``.

    >>> command = resume_command(Path("sessions/p01/s.jsonl"))
    >>> command.endswith(" elicit --resume sessions/p01/s.jsonl")
    True
    """
    program = shutil.which("tradeoff")
    if program is not None and Path(program).resolve() == Path(sys.argv[0]).resolve():
        command = "tradeoff"
    elif Path(sys.argv[0]).name == "tradeoff" and Path(sys.argv[0]).is_file():
        # below this folder as a relative path, else whole (not "../../work/.venv/...")
        near = os.path.relpath(sys.argv[0])
        command = shlex.quote(near if not near.startswith(os.pardir) else os.path.abspath(near))
    elif program is not None:
        command = "tradeoff"
    else:
        command = f"{shlex.quote(sys.executable)} -m tradeoff"
    return f"{command} elicit --resume {shlex.quote(str(path))}"
