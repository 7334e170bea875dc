"""The app's modal dialogs (help, yes/no, a failed save, why a study's session did not open)
and :func:`save`, which every screen that writes to the session goes through."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, TypeVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Label, Static

from tradeoff.record.recorder import SessionWriteError
from tradeoff.tui.common import NO_WRONG_ANSWERS, Farewell
from tradeoff.tui.sessions import resume_command

T = TypeVar("T")

#: A study participant's session is open in another window or tab (its file is locked).
OPEN_ELSEWHERE = (
    "Your session is open in another window or tab. Your answers there are saved as you "
    "give them. Close that window (or press q there), then enter your code here again."
)

#: Every other reason a study participant's session did not open.
NOT_OPENED = (
    "Your session could not be opened. Nothing you answered before is lost. Please try "
    "again in a minute, or tell the study's coordinator."
)


class HelpScreen(ModalScreen[None]):
    """The keys, and what the questions mean."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark", "dismiss", "Close", id="close-help")
    ]

    HEADING = "How to answer"
    BODY = (
        "Each question shows two classifiers, Option A and Option B. Lines in "
        "bold differ between them (green: better than the other option, red: worse). "
        "Pick the one you would rather have.\n\n"
        "  a or ←      choose Option A\n"
        "  b or →      choose Option B\n"
        "  = or space  can't tell, they seem equally good\n"
        "  u           undo the last answer\n"
        "  q           save and quit (answers are already saved)\n"
        "  ?           this help\n\n"
        "You can also click an option. " + NO_WRONG_ANSWERS
    )

    #: How the body reads when the options are described by their aspects alone (no
    #: classes): each English phrase of a classifier's, and what replaces it.
    ASPECT_WORDS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("two classifiers,", "two options,"),
        (
            "Counts are per 1,000 cases of each kind; the other columns are in their own units.",
            "Every column is in its own units.",
        ),
        ("Every candidate model,", "Every option,"),
        ("how likely each model is", "how likely each option is"),
        ("a model marked *", "an option marked *"),
    )

    def __init__(self, aspects_only: bool = False) -> None:
        super().__init__()
        #: Whether the options are described by their aspects alone (not classifiers).
        self.aspects_only = aspects_only

    def compose(self) -> ComposeResult:
        body = self.BODY
        if self.aspects_only:
            for old, new in self.ASPECT_WORDS:
                body = body.replace(old, new)
        with Vertical(id="help-box"):
            yield Label(self.HEADING, id="title")
            yield Static(body)
            yield Button("Close", id="close", variant="primary")

    @on(Button.Pressed, "#close")
    def _close(self) -> None:
        self.dismiss()


class ReviewHelpScreen(HelpScreen):
    """What the review screen shows and what each choice does."""

    HEADING = "What this screen shows"
    BODY = (
        "Each bar is how much one aspect matters to you over its whole range, from "
        "your answers: the solid part is the best estimate, the shaded part the range "
        "it lies in with 90% probability. The sentences say the same as trades.\n\n"
        "  c or Enter  confirm: your answers are final\n"
        "  m           answer 10 more questions (narrower ranges)\n"
        "  u           take back your last answer\n"
        "  q           save and quit; you can resume later\n"
        "  PgDn/PgUp   scroll the words above the buttons (or ↑ ↓)\n"
        "  ?           this help"
    )


class ResultHelpScreen(HelpScreen):
    """What the result screen shows."""

    HEADING = "What this screen shows"
    BODY = (
        "Every candidate model, the one your answers make best first. Counts are per "
        "1,000 cases of each kind; the other columns are in their own units. 'Chance best' "
        "is how likely each model is the best for you, given your answers. An aspect no "
        "question asked about does not order the list; a model marked * is placed above "
        "one practically tied with it because it is better on such an aspect.\n\n"
        "  ↑ ↓ PgUp PgDn  scroll through every candidate\n"
        "  e              ranking details (for the team)\n"
        "  q or Done      finish (your answers are saved)\n"
        "  ?              this help"
    )


class SelectionHelpScreen(HelpScreen):
    """What ranking details shows and what each key does."""

    HEADING = "Ranking details"
    BODY = (
        "For each person, the model their answers make best, how likely it is the best "
        "(over the weights their answers allow), and the smallest change of one weight "
        "that would make another model best. For a group, the consensus: the model whose "
        "largest regret over everyone is smallest. The table lists the candidates in that "
        "order; the plot shows two aspects, the Pareto front and the pick.\n\n"
        "  x · c    plot other aspects · decision curves\n"
        "  d        COPA's ranking (top-%, ω, p), and back\n"
        "  p        change COPA's p (1, 2, ∞)\n"
        "  o + -    put weight α on one aspect and move it\n"
        "  w        back to the ω fitted to the people\n"
        "  q        close\n"
        "  ?        this help"
    )

    #: Decision curves are drawn for two classes only: without them, ``c`` is not said.
    NO_CURVES = (
        "  x · c    plot other aspects · decision curves\n",
        "  x        plot other aspects\n",
    )

    def __init__(self, curves: bool = True, noun: str = "model") -> None:
        super().__init__()
        #: Whether ``c`` opens decision curves here.
        self.curves = curves
        #: What one of the pool's options is called ("option" when options are described
        #: by their aspects alone: :func:`tradeoff.ask.words.option_noun`).
        self.noun = noun

    def compose(self) -> ComposeResult:
        body = self.BODY if self.curves else self.BODY.replace(*self.NO_CURVES)
        body = body.replace(" model ", f" {self.noun} ")
        with Vertical(id="help-box"):
            yield Label(self.HEADING, id="title")
            yield Static(body)
            yield Button("Close", id="close", variant="primary")


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question."""

    def __init__(self, message: str, yes: str, no: str) -> None:
        super().__init__()
        self.message, self.yes, self.no = message, yes, no

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Static(self.message)
            with Horizontal(id="confirm-buttons"):
                yield Button(self.yes, id="yes", variant="primary")
                yield Button(self.no, id="no")

    def on_mount(self) -> None:
        self.query_one("#yes", Button).focus()

    @on(Button.Pressed)
    def _answer(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


class SaveFailedScreen(ModalScreen[bool]):
    """A line could not be saved: what, why, and that the answer is kept; retry or quit."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r,enter", "retry", "Try again", id="retry-save"),
        Binding("q,escape", "give_up", "Quit", id="quit-unsaved"),
    ]

    def __init__(self, what: str, error: SessionWriteError) -> None:
        super().__init__()
        self.what, self.error = what, error

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Label("Not saved", id="title")
            yield Static(
                f"{self.what} could not be saved: {self.error.reason}.\n\n"
                "It is kept here, and every earlier answer is safe in "
                f"{self.error.path}. Free some disk space (or ask whoever runs this "
                "computer), then press Try again (r). Quit (q) leaves without it."
            )
            with Horizontal(id="confirm-buttons"):
                yield Button("Try again", id="retry", variant="primary")
                yield Button("Quit", id="give-up")

    def on_mount(self) -> None:
        self.query_one("#retry", Button).focus()

    @on(Button.Pressed, "#retry")
    def action_retry(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#give-up")
    def action_give_up(self) -> None:
        self.dismiss(False)


def save(
    screen: Screen[None], action: Callable[[], T], what: str, then: Callable[[T], None]
) -> None:
    """Run a recorder call that writes to disk; if the write fails, keep what was being
    saved, say why, and let the person try again or quit (nothing on disk is lost)."""
    try:
        value = action()
    except SessionWriteError as exc:
        error = exc

        def decided(retry: bool | None) -> None:
            if retry:
                save(screen, action, what, then)
            else:
                screen.post_message(
                    Farewell(
                        f"{what} was not saved ({error.reason}); every earlier answer is "
                        "saved. Free some space, then resume with:",
                        resume_command(error.path),
                        return_code=1,
                    )
                )

        screen.app.push_screen(SaveFailedScreen(what, error), decided)
        return
    then(value)
