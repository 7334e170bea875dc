"""The result screen: the candidate models, best for this person first, in their own words
and units, from the decide step (:func:`tradeoff.choose.decide.decide_session`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, DataTable, Footer, Label, Static

from tradeoff.ask.shown import aspect_cell
from tradeoff.ask.words import aspect_header, candidates_noun, option_noun, table_legend
from tradeoff.choose.chances import chance_cells
from tradeoff.errors import InputError
from tradeoff.record.recorder import Recorder
from tradeoff.text import probability_words
from tradeoff.tui.common import Farewell, fit_names, name_room
from tradeoff.tui.dialogs import ResultHelpScreen

if TYPE_CHECKING:
    from tradeoff.choose.decide import Decision
    from tradeoff.choose.recommend import Recommendation


def recommendation_text(
    advice: Recommendation,
    candidates: int,
    *,
    noisy: bool = False,
    noun: str = "candidate models",
    names: Sequence[str] = (),
) -> Text:
    """What the result screen says of the recommendation: the model, the chance that it is
    the best (:func:`~tradeoff.text.probability_words`: never "100%"; over the measurement
    noise too when the pool says how exactly its numbers were measured, ``noisy``, which the
    questions' own stop does not see), why it is recommended when another model is more
    often the best (given the candidates' ``names``: :func:`~tradeoff.choose.words.likeliest_words`,
    as ``pick`` and the report say it) and what the runner-up would trade. ``noun``: what
    the options are called (:func:`~tradeoff.ask.words.candidates_noun`).

    >>> from tradeoff.choose.recommend import Recommendation
    >>> best_on_average = Recommendation("t17", 2, (0.50, 0.49, 0.52), (0.36, 0.34, 0.28),
    ...                                  "t3", "")
    >>> print(recommendation_text(best_on_average, 3, names=["t3", "t11", "t17"]).plain)
    ... # doctest: +NORMALIZE_WHITESPACE
    Recommended for you: t17. Of the 3 candidate models, it is the one your answers make
    best. The chance that it really is the best for you: 28%. t3 is more often the best
    (36%, against 28%), but t17 is recommended because it has the highest expected value of
    your metric over what the answers leave open: t3 is worse on average.

    >>> from tradeoff.choose.recommend import Recommendation
    >>> sure = Recommendation("mlp-8", 0, (1.0, 0.5), (1.0, 0.0), "logreg", "")
    >>> print(recommendation_text(sure, 2).plain)  # doctest: +NORMALIZE_WHITESPACE
    Recommended for you: mlp-8. Of the 2 candidate models, it is the one your answers make
    best. The chance that it really is the best for you: over 99%.
    >>> tied = Recommendation("mlp-8", 0, (1.0, 0.9), (0.8, 0.2), "logreg", "", 0.98, ("logreg",),
    ...                       practically_tied=True)
    >>> print(recommendation_text(tied, 2).plain)  # doctest: +NORMALIZE_WHITESPACE
    Recommended for you: mlp-8. Of the 2 candidate models, it is the one your answers make
    best. It is practically tied with logreg: it may be better, but by less than a
    thousandth of the range of the aspect weighed most (for a class, one case per 1,000),
    which your answers cannot tell apart; mlp-8 is picked because it is the more likely
    best (80%); probability it is the best or practically tied with it: 98%.

    With a measurement noise, a pick that did not measure best says why:

    >>> noisy = Recommendation("m3", 0, (0.9, 1.0), (0.4, 0.05), "m10", "",
    ...                        measured_best="m10", measured_best_p=0.05,
    ...                        measured_cases=(40, 1000))
    >>> print(recommendation_text(noisy, 2, noisy=True).plain)
    ... # doctest: +NORMALIZE_WHITESPACE
    Recommended for you: m3. Of the 2 candidate models, it is the one your answers make
    best. The chance that it really is the best for you, allowing for how exactly each
    model was measured: 40%. m10 measured best by what your answers say matters to you, but
    on fewer cases (40 against 1,000); m3 is more likely the best once the measurement noise
    is counted (40%, against 5%).
    """
    from tradeoff.choose.measurement_words import recommendation_sentences
    from tradeoff.choose.words import chance_words, likeliest_words

    if advice.probability is None:
        sure = ""
    elif advice.practically_tied:
        sure = f" It is {chance_words(advice, voice='your')}."
    else:
        allowing = ", allowing for how exactly each model was measured" if noisy else ""
        sure = (
            f" The chance that it really is the best for you{allowing}: "
            f"{probability_words(advice.probability)}."
        )
    for said in recommendation_sentences(advice):  # as session show and the page say them
        sure += f" {said}"
    # With a measurement noise the pick is the likeliest best (said of the measured best).
    likelier = likeliest_words(advice, names) if names and advice.measured_best is None else ""
    sure += f" {likelier}" if likelier else ""
    trade = f"\n{advice.trade[0].upper()}{advice.trade[1:]}." if advice.trade else ""
    return Text.assemble(
        ("Recommended for you: ", "bold"),
        (advice.name, "bold"),
        f". Of the {candidates} {noun}, it is the one your answers make best.{sure}{trade}",
    )


class ResultScreen(Screen[None]):
    """The candidate models, best for this person first, in their own words and units."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("e", "explore", "Ranking details", id="explore"),
        Binding("question_mark", "help", "Help", id="result-help"),
        Binding("q", "done", "Done", id="done"),
        # Every candidate, scrolled from anywhere on the screen.
        Binding("down", "scroll_table('down')", "", show=False),
        Binding("up", "scroll_table('up')", "", show=False),
        Binding("pagedown", "scroll_table('page_down')", "", show=False),
        Binding("pageup", "scroll_table('page_up')", "", show=False),
    ]

    def __init__(self, recorder: Recorder) -> None:
        super().__init__()
        self.recorder = recorder
        #: The decide step's answer for this session, once rank() has it.
        self.decision: Decision | None = None
        #: Why it could not be had, if it could not.
        self.failure: str | None = None
        #: The table's rows as shown: (candidate, full name, the other cells), the pick's
        #: candidate and the headers; the names are fitted again when the table resizes.
        self._rows: list[tuple[int, str, list[str]]] = []
        self._pick = -1
        self._headers: list[str] = []
        self._names: tuple[str, ...] = ()

    def compose(self) -> ComposeResult:
        s = self.recorder.engine.scenario
        yield Label(f"The {option_noun(s, plural=True)} that fit what you value", id="title")
        with Vertical(id="result-body"):
            yield Static(
                f"Comparing the {candidates_noun(s)} with your answers…", id="result-recommend"
            )
            yield Static("", id="result-status", classes="muted")
            yield DataTable(id="result-table", cursor_type="row", header_height=2)
            with Horizontal(id="result-buttons"):
                yield Button("Done", id="done-button", variant="primary")
                yield Button("Ranking details (for the team)", id="explore-button")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#done-button", Button).focus(scroll_visible=False)
        self.rank()

    def action_scroll_table(self, how: str) -> None:
        table = self.query_one("#result-table", DataTable)
        getattr(table, f"action_scroll_{how}" if how in ("up", "down") else f"action_{how}")()

    @work(thread=True, exclusive=True, exit_on_error=False)
    def rank(self) -> None:
        from tradeoff.choose.decide import decide_session  # pandas only once a result is shown

        rec = self.recorder
        try:
            decision = decide_session(rec.header, rec.engine, rec.path)
        except InputError as exc:
            message = exc.message()
            self.app.call_from_thread(self._failed, message)
            return
        self.app.call_from_thread(self._show, decision)

    def _failed(self, message: str) -> None:
        self.failure = message
        self.query_one("#result-recommend", Static).update(Text(message, style="bold red"))

    def _show(self, decision: Decision) -> None:
        self.decision = decision
        s, pool, advice = self.recorder.engine.scenario, decision.pool, decision.recommendations[0]
        from tradeoff.choose.decision_curves import threshold_lines
        from tradeoff.choose.informed import listed
        from tradeoff.choose.words import tuned_words

        said = recommendation_text(
            advice,
            pool.n,
            noisy=pool.uncertainty is not None,
            noun=candidates_noun(s),
            names=pool.names,
        )
        if outside := decision.selection.outside_ranges(advice):
            said.append(f"\n{outside}")
        if tuned := tuned_words(decision.selection, 0):
            said.append(f"\n{tuned}")
        if threshold := threshold_lines(decision.selection, 0, whose="Your")[:1]:
            said.append(f"\n{threshold[0]}")
        self.query_one("#result-recommend", Static).update(said)
        chance = advice.p_best is not None
        headers = [aspect_header(s, j) for j in range(len(s.weight_names))]
        headers += ["chance\nbest"] if chance else []
        # Ordered by what the answers informed: a guess for an unasked aspect moves nothing.
        person = decision.selection.stakeholders[0]
        one = listed(s, pool.names, pool.values, person, advice)
        # The chances are parts of one whole: said so that they add up to 100%.
        chances = () if advice.p_best is None else chance_cells(advice.p_best)
        rows = []
        for i in one.order:
            cells = [
                aspect_cell(s, j, float(pool.values[i, j])) for j in range(pool.values.shape[1])
            ]
            cells += [chances[i]] if chances else []
            rows.append((i, cells))
        self._rows = [(i, one.names[i], cells) for i, cells in rows]
        self._pick, self._headers = advice.index, headers
        self._fill_table()
        about = one.words
        self.query_one("#result-status", Static).update(
            f"\nAll {pool.n} {candidates_noun(s)}, best for you first (↑ ↓ to scroll). "
            f"{table_legend(s)}"
            + (
                " Chance best: how likely each is the best for you, given your answers."
                if chance
                else ""
            )
            + (f"\n{about}" if about else "")
        )

    def _fill_table(self) -> None:
        """The rows, every column in view: the names give way to the table's width (the
        chosen one is said in full above) and come back whole when the terminal widens;
        the row the cursor is on stays under it."""
        table = self.query_one("#result-table", DataTable)
        room = name_room(table.size.width, self._headers, [cells for *_, cells in self._rows])
        names = fit_names([full for _, full, _ in self._rows], room)
        if names == self._names:
            return
        self._names, row = names, table.cursor_row
        table.clear(columns=True)
        table.add_columns(option_noun(self.recorder.engine.scenario), *self._headers)
        for (i, _, cells), shown in zip(self._rows, names, strict=True):
            table.add_row(Text(shown, style="bold") if i == self._pick else shown, *cells)
        table.move_cursor(row=row)

    def on_resize(self) -> None:
        if self._rows:
            self.call_after_refresh(self._fill_table)

    def action_help(self) -> None:
        self.app.push_screen(ResultHelpScreen(self.recorder.engine.scenario.aspects_only))

    def action_done(self) -> None:
        self._done()

    @on(Button.Pressed, "#explore-button")
    def action_explore(self) -> None:
        """Open the practitioner's selection screen on this session."""
        from tradeoff.tui.select import SelectionScreen

        if self.decision is None:
            if self.failure is not None:
                self.notify(self.failure, severity="error")
            else:
                noun = candidates_noun(self.recorder.engine.scenario)
                self.notify(f"The {noun} are still being compared.", severity="warning")
            return
        self.app.push_screen(SelectionScreen(self.decision.selection, self.decision.scenario))

    @on(Button.Pressed, "#done-button")
    def _done(self) -> None:
        self.post_message(
            Farewell("Thank you. Your answers are saved in:", str(self.recorder.path))
        )
