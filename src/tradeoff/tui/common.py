"""What the app and its screens share: the settings, the words every start screen says,
and the messages a screen posts when the app should decide what comes next.

Screens never import other screens or the app: they post one of these messages, which
bubble up to :class:`~tradeoff.tui.app.TradeoffApp`, and the app opens the next screen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from textual.message import Message

from tradeoff.ask.scenario import LoadedScenario, SpecOverrides
from tradeoff.errors import InputError
from tradeoff.record.log import SessionLog
from tradeoff.record.recorder import Recorder
from tradeoff.record.records import ConsentRecord
from tradeoff.study.folder import Study

NO_WRONG_ANSWERS = "There are no wrong answers: we want to learn what matters to you."
#: Said when Start is pressed with the study's access-code field empty.
TYPE_THE_CODE = "Type your access code first, in the box above, then press Start."
#: Said above the question an undo brought back, until the next answer.
UNDONE = "Your last answer was taken back; here is that question again."


@dataclass(frozen=True)
class Settings:
    """How the app was started (from the command line or tests)."""

    scenario: Path
    scenarios_dir: Path
    sessions_dir: Path
    participant: str | None = None
    resume: Path | None = None
    overrides: SpecOverrides = field(default_factory=SpecOverrides)
    resume_log: SessionLog | None = None
    seed: int = 0
    #: A study: the start screen asks for an access code, which opens that participant's
    #: own session and nothing else (:mod:`tradeoff.study.folder`).
    study: Study | None = None
    #: Where populations and pool tables are memory-mapped from (:mod:`tradeoff.study.cache`).
    cache_dir: Path | None = None

    @property
    def study_path(self) -> Path | None:
        """The study's folder, or ``None`` outside a study."""
        return None if self.study is None else self.study.path


class OpenFor(Message):
    """Open ``participant``'s session on ``loaded``: continue an unfinished one (offered)
    or start one; ``consent``: a study's consent, just given (the new session opens with
    it, or it is written into the unfinished one)."""

    def __init__(
        self, loaded: LoadedScenario, participant: str, consent: ConsentRecord | None = None
    ) -> None:
        super().__init__()
        self.loaded, self.participant, self.consent = loaded, participant, consent


class ResumeFile(Message):
    """Continue the session in ``path`` (``current``: the scenario file as it is now)."""

    def __init__(self, path: Path, current: LoadedScenario | None) -> None:
        super().__init__()
        self.path, self.current = path, current


class QuestionsDone(Message):
    """No question is left: show what was learned."""

    def __init__(self, recorder: Recorder) -> None:
        super().__init__()
        self.recorder = recorder


class BackToQuestions(Message):
    """Leave the review for the questions (after an undo or "10 more"), saying ``note``
    above the question (:data:`UNDONE` after an undo)."""

    def __init__(self, note: str = "") -> None:
        super().__init__()
        self.note = note


class Confirmed(Message):
    """The person confirmed their answers: show the result, or say thank you."""

    def __init__(self, recorder: Recorder) -> None:
        super().__init__()
        self.recorder = recorder


class Farewell(Message):
    """Quit with a farewell: ``text``, then ``line`` (a file or a command) printed whole on
    a line of its own by the command line, so it can be copied at any terminal width."""

    def __init__(self, text: str, line: str, return_code: int = 0) -> None:
        super().__init__()
        self.text, self.line, self.return_code = text, line, return_code


class PauseSession(Message):
    """Save and quit: note the pause (the answers are already on disk) and say how to come
    back."""

    def __init__(self, recorder: Recorder, note: str) -> None:
        super().__init__()
        self.recorder, self.note = recorder, note


def reflow(text: str) -> str:
    """Paragraphs of a scenario's description as flowing text: single line breaks (the
    file's own wrapping) become spaces, blank lines stay paragraph breaks.

    >>> reflow("one\\ntwo\\n\\nthree")
    'one two\\n\\nthree'
    """
    paragraphs = [" ".join(p.split()) for p in text.strip().split("\n\n")]
    return "\n\n".join(p for p in paragraphs if p)


def participant_problem(value: str, error: InputError) -> str:
    """What to type instead of ``value``, in plain words, for the start screen.

    Parameters
    ----------
    value
        The participant id as typed (stripped).
    error
        Why :func:`tradeoff.record.records.check_participant` refused it; its fix says
        which ids are allowed.

    Returns
    -------
    str
        For an empty field, to type an id first; else the id, why it cannot be used and
        what can (not the raw validation message, "participant id: '': is not allowed").

    Examples
    --------
    >>> participant_problem("", InputError.single("participant id", "''", "bad."))
    'Type your participant id first, in the box above (for example dr-lee), then press Start.'
    """
    if not value:
        return (
            "Type your participant id first, in the box above (for example dr-lee), "
            "then press Start."
        )
    fix = error.problems[0].fix if error.problems else ""
    shown = repr(value if len(value) <= 40 else value[:40] + "…")
    return (
        f"{shown} is not allowed as a participant id: it names the folder your answers are "
        f"kept in. {fix[:1].upper()}{fix[1:]}"
    ).rstrip()


def fit_name(name: str, width: int) -> str:
    """``name`` in at most ``width`` characters (at least 8): whole if it fits, else without
    its owner's prefix ("owner/"), else its start and end around "…" (the end of a model's
    name, its size and kind, is what tells it from its neighbours).

    >>> fit_name("Qwen/Qwen2.5-7B", 20)
    'Qwen/Qwen2.5-7B'
    >>> fit_name("Qwen/Qwen2.5-Coder-32B-Instruct", 26)
    'Qwen2.5-Coder-32B-Instruct'
    >>> fit_name("cognitivecomputations/dolphin-2.9.2-Phi-3-Medium-abliterated", 22)
    'dolphin-2…-abliterated'
    """
    width = max(width, 8)
    if len(name) <= width:
        return name
    short = name.rsplit("/", 1)[-1]
    if len(short) <= width:
        return short
    tail = (width - 1) * 3 // 5
    return f"{short[: width - 1 - tail]}…{short[len(short) - tail :]}"


def fit_names(names: Sequence[str], width: int) -> tuple[str, ...]:
    """Each of ``names`` fitted by :func:`fit_name`, no two different names shown alike:
    where two would read the same, each keeps the part where it differs from the others
    ("Meta-Llama-3.1…" beside "Meta-Llama-3-7…", not "Meta-Lla…70B-Instruct" twice), and
    a tie left after that is numbered.

    >>> fit_names(["meta/Meta-Llama-3.1-70B-Instruct", "meta/Meta-Llama-3-70B-Instruct"], 20)
    ('Meta-Llama-3.1…truct', 'Meta-Llama-3-7…truct')
    >>> fit_names(["meta/Llama-3-70B-Instruct", "nous/Llama-3-70B-Instruct"], 18)
    ('meta/Lla…-Instruct', 'nous/Lla…-Instruct')
    """
    shown = [fit_name(name, width) for name in names]
    width = max(width, 8)
    groups: dict[str, list[int]] = {}
    for i, text in enumerate(shown):
        groups.setdefault(text, []).append(i)
    for members in groups.values():
        if len(members) < 2 or len({names[i] for i in members}) < 2:
            continue
        shorts = [names[i].rsplit("/", 1)[-1] for i in members]
        if len(set(shorts)) < len(shorts):  # the same name by two owners: the owner says
            shorts = [names[i] for i in members]
        for i, short in zip(members, shorts, strict=True):
            others = [o for o in shorts if o != short]
            # where it parts from the most like it
            differ = max(_shared(short, o) for o in others)
            head = min(len(short), max(differ + 2, (width - 1) // 2), width - 5)
            tail = width - 1 - head
            shown[i] = f"{short[:head]}…{short[len(short) - tail :]}" if tail > 0 else short
    counted: dict[str, int] = {}
    for text in shown:
        counted[text] = counted.get(text, 0) + 1
    seen: dict[str, int] = {}
    for i, text in enumerate(shown):
        if counted[text] > 1:
            seen[text] = seen.get(text, 0) + 1
            mark = f"#{seen[text]}"
            shown[i] = f"{text[: width - len(mark)]}{mark}"
    return tuple(shown)


def _shared(a: str, b: str) -> int:
    """How many leading characters ``a`` and ``b`` share."""
    n = min(len(a), len(b))
    return next((k for k in range(n) if a[k] != b[k]), n)


def name_room(width: int, headers: list[str], rows: list[list[str]]) -> int:
    """The characters a table ``width`` wide leaves its first column (the models' names)
    once the other columns (``headers``, each row's cells) have theirs: each column is its
    widest line and one space either side; the table's scroll bar takes two.

    >>> name_room(76, ["CO2\\nkg", "chance\\nbest"], [["12.38", "under 1%"]])
    55
    """
    others = sum(
        max(len(line) for text in (header, *(row[c] for row in rows)) for line in text.split("\n"))
        + 2
        for c, header in enumerate(headers)
    )
    return width - others - 2 - 2
