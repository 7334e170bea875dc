"""The stakeholder's app (Textual): start, question, review and result screens.

Only this package imports Textual; the numeric core never does.
"""

from tradeoff.tui.app import TradeoffApp, make_app

__all__ = ["TradeoffApp", "make_app"]
