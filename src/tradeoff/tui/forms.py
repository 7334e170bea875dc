"""The start screens' frame: the title (:func:`title`), the text that scrolls in the rows
the title, the form and the footer leave, and page up/down scroll it from the form's field
(:class:`FormScreen`, the base of :mod:`tradeoff.tui.screens.start`'s screens); at a
study's shared terminal Esc clears the code typed and only ctrl+q leaves
(:class:`CodeFormScreen`)."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Button, Footer, Input

from tradeoff.tui.scrolling import TextScroll

__all__ = ["CodeFormScreen", "FormScreen", "StartForm", "title"]


def title(aspects_only: bool = False) -> str:
    """The start screen's title: what the person is asked about (a classifier, or options
    described by their aspects alone: a choice)."""
    return f"tradeoff: what matters to you in {'a choice' if aspects_only else 'a classifier'}"


class StartForm(Vertical):
    """The id (or access code) and the buttons, right under the text and always in view
    (at 80×24 the field that had the focus sat below the description, out of sight)."""

    def on_resize(self) -> None:
        if isinstance(self.screen, FormScreen):
            self.screen.fit_text()


class FormScreen(Screen[None]):
    """A start screen: ``#start-body`` (the text) scrolls in the rows the title, the
    :class:`StartForm` and the footer leave, and page up/down scroll it from the field."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.quit", "Quit", id="quit-start"),
        # Before the field's own page keys (it has nothing to page), not the scenario list's.
        Binding("pagedown", "scroll_text(1)", "More text", id="text-down", priority=True),
        Binding("pageup", "scroll_text(-1)", "Back", id="text-up", show=False, priority=True),
    ]

    def on_resize(self) -> None:
        self.fit_text()

    def fit_text(self) -> None:
        others = (*self.query("#title"), *self.query(StartForm), *self.query(Footer))
        used = sum(w.outer_size.height + w.styles.margin.height for w in others)
        self.query_one("#start-body").styles.max_height = max(3, self.size.height - used)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Offer page down from the form while more text lies below, page up while the
        text does not fit (:meth:`~tradeoff.tui.scrolling.TextScroll.offers`)."""
        if action == "scroll_text":
            return isinstance(self.focused, Input | Button) and (
                self.query_one("#start-body", TextScroll).offers(parameters == (1,))
            )
        return True

    def action_scroll_text(self, pages: int) -> None:
        body = self.query_one("#start-body", TextScroll)
        body.scroll_relative(y=pages * max(1, body.scrollable_content_region.height - 1))


class CodeFormScreen(FormScreen):
    """A study's start at a shared terminal: Esc clears the code typed (it quit the app, so
    one participant could close the station for the next), and the station is left on
    purpose with ctrl+q, as the footer says."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "clear_code", "Clear", id="clear-code"),
        Binding("ctrl+q", "app.quit", "Quit", id="quit-station"),
    ]

    def _field(self) -> Input:
        return self.query_one(StartForm).query_one(Input)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Offer Esc while something is typed."""
        if action == "clear_code":
            return bool(self._field().value)
        return super().check_action(action, parameters)

    def on_input_changed(self) -> None:
        self.refresh_bindings()

    def action_clear_code(self) -> None:
        field = self._field()
        field.value = ""
        field.focus()
