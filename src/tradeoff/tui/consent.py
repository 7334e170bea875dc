"""A study's information and consent text at a terminal (``tradeoff elicit --study``), as
its page shows it: read before the first question (or before the next one, when the
coordinator added a new version since), then agreed to or not. The screen only asks;
agreeing gives the consent record the new session opens with (or that is written into the
unfinished one), declining by someone new is noted in ``entries.jsonl`` as on the page
(:func:`~tradeoff.study.declines.record_code_decline`), and nothing else is recorded.

Declining a new version leads, as on the page, to a screen that says what withdrawing
means and asks them to confirm it (:class:`WithdrawScreen`): confirmed, the withdrawal is
recorded as ``tradeoff study withdraw`` records it
(:func:`~tradeoff.study.withdrawals.withdraw`); "go back" returns to the text, and leaving
the app leaves everything as it is (the new text is asked again next time)."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Button, Footer, Label, Markdown, Static

from tradeoff.errors import InputError
from tradeoff.record.log import read_session, unfinished_sessions
from tradeoff.record.records import ConsentRecord, now
from tradeoff.study.consent_added import current_text
from tradeoff.study.declines import record_code_decline
from tradeoff.study.entries import EntryLog
from tradeoff.study.folder import Study
from tradeoff.study.withdrawals import withdraw
from tradeoff.text import clean_text
from tradeoff.tui.scrolling import TextScroll

#: What the participant is asked under the text (declining is noted: no answer is
#: recorded before they agree, but that choice is), and how to answer by keys.
ASK_NEW = "Do you agree to take part? No answer is recorded before you agree."
ASK_AGAIN = (
    "The study's information has changed since you agreed. Do you agree to it as it is "
    "now? Your answers so far are kept either way."
)
KEYS = "Tab goes to the buttons and Enter presses one; or click one."
#: What someone new who declined is told (their choice alone noted, as on the page).
DECLINED = (
    "You chose not to take part. Only that choice was noted, so that the study's "
    "coordinator knows; no answer was recorded. If you change your mind, enter your code "
    "again."
)
#: What withdrawing means, said before the participant confirms it (as the page says it
#: to someone who came in with an access code).
WITHDRAW_MEANS = (
    "If you withdraw, nothing more is recorded, and the study's results leave out every "
    "answer you gave: they are not counted, exported or reported.",
    "Your answers stay in the study's files, marked as withdrawn, so that the study can "
    "show your choice was followed. To have them deleted too, ask the study's coordinator.",
    "Your access code will no longer open the study.",
)
#: What someone who withdrew is told.
WITHDRAWN = (
    "You have withdrawn from this study. Your answers are left out of the study's "
    "results, and nothing more is recorded. Thank you for your time."
)
#: What they are told when the withdrawal could not be written.
NOT_WITHDRAWN = (
    "Your withdrawal could not be recorded. Please try again in a minute; if it happens "
    "again, tell the study's coordinator, who can record it for you."
)


def consent_due(
    study: Study, participant: str, scenario_id: str
) -> tuple[tuple[str, str, str, str], bool] | None:
    """The consent text ``participant`` must agree to before their next question
    (:func:`~tradeoff.study.consent_added.current_text`) and whether it is asked again
    (they have an unfinished session of ``scenario_id``), or ``None``: the study asks none,
    or that session holds their consent to its newest version, or began before the study
    asked any (as the page asks again only those who agreed to an older version)."""
    text = current_text(study)
    if text is None:
        return None
    found = unfinished_sessions(study.sessions_dir, participant, scenario_id)
    if not found:
        return text, False
    given = {c.version for c in read_session(found[-1]).consents}
    return None if not given or text[0] in given else (text, True)


class ConsentScreen(Screen[ConsentRecord | str]):
    """The consent text (Markdown, scrolled with the arrow keys and Page Down) and two
    buttons; dismissed with the consent record for "I agree", else with what to tell the
    participant (someone new who declines is noted, under the study's lock)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # Before the text's own page keys, which the footer does not show.
        Binding("pagedown", "scroll('page_down')", "More text", id="consent-more", priority=True),
        Binding("pageup", "scroll('page_up')", "Back", show=False, priority=True),
    ]

    def __init__(
        self, study: Study, participant: str, shown: tuple[str, str, str, str], again: bool
    ) -> None:
        super().__init__()
        self.study, self.participant, self.again = study, participant, again
        self.version, self.sha256, self.text, self.language = shown

    def compose(self) -> ComposeResult:
        title = "The study's information has changed" if self.again else "Before you start"
        yield Label(title, id="title")
        # Which version they agree to, as the page says it.
        yield Static(
            f"Version {self.version}. Please read this before you decide.", id="consent-version"
        )
        with TextScroll(id="consent-body"):
            yield Markdown("\n".join(clean_text(line) for line in self.text.split("\n")))
        yield Static(f"{ASK_AGAIN if self.again else ASK_NEW} {KEYS}", id="consent-ask")
        with Horizontal(id="consent-buttons"):
            yield Button("I agree", id="agree", variant="primary")
            yield Button("I do not agree", id="decline")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#consent-body", TextScroll).focus(scroll_visible=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Offer page down only while more text lies below (page up while it does not fit)."""
        if action == "scroll":
            return self.query_one("#consent-body", TextScroll).offers(parameters == ("page_down",))
        return True

    def action_scroll(self, how: str) -> None:
        getattr(self.query_one("#consent-body", TextScroll), f"scroll_{how}")()

    @on(Button.Pressed)
    def _answer(self, event: Button.Pressed) -> None:
        if event.button.id == "agree":
            record = ConsentRecord(
                type="consent",
                version=self.version,
                text_sha256=self.sha256,
                language=self.language,  # the text's: what they read and agreed to
                at=now(),
            )
            self.dismiss(record)
            return
        if self.again:  # as on the page: what withdrawing means, to confirm or go back
            self.app.push_screen(WithdrawScreen(self.study, self.participant), self._withdrawn)
            return
        try:
            record_code_decline(EntryLog(self.study.path), self.participant)
        except OSError:  # then nothing at all was recorded, and they are told so
            self.dismiss("You chose not to take part. Nothing was recorded.")
            return
        self.dismiss(DECLINED)

    def _withdrawn(self, withdrew: bool | None) -> None:
        if withdrew:
            self.dismiss(WITHDRAWN)
        else:  # went back: the text again, its buttons at hand
            self.query_one("#decline", Button).focus()


class WithdrawScreen(Screen[bool]):
    """What withdrawing means and two buttons, as the study's page shows them after a new
    consent text is declined: "Yes, withdraw from the study" records the withdrawal
    (:func:`~tradeoff.study.withdrawals.withdraw`) and is dismissed with ``True``; "No, go
    back to the study" with ``False``. A withdrawal that cannot be written is said here,
    to try again."""

    DEFAULT_CSS = """
    #withdraw-means { padding: 1 2 0 2; height: auto; }
    #withdraw-keys { padding: 1 2 0 2; height: auto; }
    #withdraw-error { padding: 0 2; height: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back to the study", id="withdraw-back"),
    ]

    def __init__(self, study: Study, participant: str) -> None:
        super().__init__()
        self.study, self.participant = study, participant

    def compose(self) -> ComposeResult:
        yield Label("Withdraw from the study?", id="title")
        yield Static("\n\n".join(WITHDRAW_MEANS), id="withdraw-means")
        yield Static(
            "Tab moves between the buttons and Enter presses one; or click one.",
            id="withdraw-keys",
            classes="muted",
        )
        yield Static("", id="withdraw-error", classes="error")
        with Horizontal(id="consent-buttons"):
            yield Button("Yes, withdraw from the study", id="withdraw")
            yield Button("No, go back to the study", id="back", variant="primary")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#back", Button).focus()

    def action_back(self) -> None:
        self.dismiss(False)

    @on(Button.Pressed)
    def _answer(self, event: Button.Pressed) -> None:
        if event.button.id != "withdraw":
            self.dismiss(False)
            return
        try:
            withdraw(self.study, self.participant)  # once: a second time records nothing
        except (InputError, OSError):
            self.query_one("#withdraw-error", Static).update(NOT_WITHDRAWN)
            return
        self.dismiss(True)
