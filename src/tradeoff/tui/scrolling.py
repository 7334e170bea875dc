"""Text that scrolls above a screen's form or buttons (:class:`TextScroll`: the start
screens' description, a study's consent text, the review's words). Its screen offers page
down in the footer ("More text") only while more of the text lies below: the key goes once
the text is read to its end, and never shows when all of it fits."""

from __future__ import annotations

from textual.containers import VerticalScroll

__all__ = ["TextScroll"]


class TextScroll(VerticalScroll):
    """A scrolling text that has its screen ask again which keys to show (the screen's
    ``check_action`` asks :meth:`offers`) when it is scrolled to or from its end, and when
    it or its text changes size."""

    _more: bool | None = None

    @property
    def more_below(self) -> bool:
        """Whether some of the text lies below the rows in view."""
        return self.scroll_offset.y < self.max_scroll_y

    def offers(self, down: bool) -> bool:
        """Whether the screen offers to page the text ``down`` (while more lies below), or
        up (while the text does not fit)."""
        return self.more_below if down else self.max_scroll_y > 0

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self.more_below != self._more:  # not on every step of a scroll's animation
            self._keys_changed()

    def on_resize(self) -> None:
        self._keys_changed()

    def _keys_changed(self) -> None:
        self._more = self.more_below
        if self.is_attached:
            self.screen.refresh_bindings()
