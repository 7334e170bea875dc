"""The ranking details as an app of their own (``tradeoff pick --tui``): the
:class:`~tradeoff.tui.select.SelectionScreen` with nothing around it."""

from __future__ import annotations

from textual.app import App

from tradeoff.ask.scenario import Scenario
from tradeoff.choose.selection import Selection
from tradeoff.tui.select import SelectionScreen

__all__ = ["SelectionApp", "run_selection_app"]


class SelectionApp(App[None]):
    """A stand-alone app around :class:`SelectionScreen`."""

    CSS_PATH = "app.tcss"
    TITLE = "tradeoff pick"

    def __init__(self, selection: Selection, scenario: Scenario | None = None) -> None:
        super().__init__()
        self.selection = selection
        self.scenario = scenario

    def on_mount(self) -> None:
        screen = SelectionScreen(self.selection, self.scenario)
        screen.alone = True
        self.push_screen(screen)


def run_selection_app(selection: Selection, scenario: Scenario | None = None) -> None:
    """Open the practitioner's selection screen on its own (``tradeoff pick --tui``)."""
    SelectionApp(selection, scenario).run()
