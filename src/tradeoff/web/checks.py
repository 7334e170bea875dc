"""Attention checks and consent given again on the study web page.

A check (:mod:`tradeoff.study.checks`) is shown on the question page exactly as a
question: the same heading (checks are counted among the questions), the same cards and
the same form. The form carries the number of pages answered (``step``: answers and
checks), so a second submit of a check's page is never taken as the answer to the question
after it. The choice is written as a ``check`` line, never as an answer.

A participant whose session holds no consent to the study's newest consent text
(:mod:`tradeoff.study.consent_versions`; ``study consent`` adds one while the study is
served) is sent to the consent page before their next question (:func:`consent_due`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from markupsafe import Markup

from tradeoff.ask.checks import Side
from tradeoff.ask.queries import Query
from tradeoff.learn import Choice, Engine
from tradeoff.record.marks import Marks
from tradeoff.record.recorder import Recorder
from tradeoff.study.checks import due_check
from tradeoff.study.consent_added import current_consent, read_current, written_in
from tradeoff.study.consent_versions import ConsentVersion
from tradeoff.study.folder import STUDY_FILE, Study
from tradeoff.study.inputs import file_sha256, read_consent
from tradeoff.web.i18n import Language
from tradeoff.web.pages import QuestionView, question_view, safe_markdown
from tradeoff.web.watched import stat_key


def check_now(study: Study, engine: Engine, marks: Marks) -> tuple[Query, Side] | None:
    """The attention check due before the engine's next question, if any (none once no
    question is left)."""
    if not study.attention_checks or engine.next_query() is None:
        return None
    return due_check(
        study.attention_checks,
        marks.checks,
        engine.answered,
        engine.scenario,
        engine.space.priors,
        engine.seed,
    )


def page_view(
    study: Study, engine: Engine, marks: Marks, lang: Language
) -> tuple[QuestionView, int] | None:
    """The question page (a check, or the engine's next question) and its ``step``, or
    ``None`` when no question is left."""
    due = check_now(study, engine, marks)
    planned = sum(p <= engine.expected_total() + len(marks.checks) for p in study.attention_checks)
    planned = max(planned, len(marks.checks) + (due is not None))
    view = question_view(
        engine,
        lang,
        None if due is None else due[0],
        before=len(marks.checks),
        planned=planned,
    )
    if view is None:
        return None
    return view, engine.answered + len(marks.checks)


def answer_or_check(
    study: Study,
    rec: Recorder,
    form: dict[str, str],
    response_ms: float | None,
    language: str,
) -> None:
    """The answer of the question page's form: to the attention check it showed (written
    as a check), or to the engine's question. A form whose ``step`` is not the session's
    (a page submitted twice, or from the back button) is refused (``ValueError``)."""
    step = rec.engine.answered + len(rec.marks.checks)
    given = form.get("step")
    due = check_now(study, rec.engine, rec.marks)
    if (given is not None and given != str(step)) or (given is None and due is not None):
        raise ValueError("the page is not the one the session is at")
    choice = Choice(form.get("choice", ""))
    if due is not None:
        rec.check(due[0], due[1], choice, response_ms=response_ms, language=language)
        return
    rec.answer(choice, response_ms=response_ms, language=language)


@dataclass
class ConsentTexts:
    """The study's consent texts as its ``study.json`` lists them now, read again when
    the file changes (``study consent`` while the study is served)."""

    study: Study
    _key: tuple[int, int, int] | None = None
    _current: tuple[str | None, tuple[ConsentVersion, ...]] = (None, ())

    def current(self) -> tuple[str | None, tuple[ConsentVersion, ...]]:
        """(the newest version, every text), as ``study.json`` says now."""
        key = stat_key(self.study.path / STUDY_FILE)
        if key is None or key != self._key:
            found = read_current(self.study)
            self._key, self._current = key, found
        return self._current


def consent_due(texts: ConsentTexts, marks: Marks) -> bool:
    """Whether the participant must consent (again) before their next question: the
    study asks consent and their session holds none to its newest version."""
    version, _ = texts.current()
    return version is not None and bool(marks.consented) and version not in marks.consented


_TEXTS: dict[Path, ConsentTexts] = {}
_HTML: dict[tuple[Path, str], tuple[str, Markup]] = {}


def consent_texts(study: Study) -> ConsentTexts:
    """The one :class:`ConsentTexts` of a study in this process."""
    return _TEXTS.setdefault(study.path, ConsentTexts(study))


def consent_text(study: Study, language: str) -> tuple[str, str, Markup, str] | None:
    """(version, the text's sha256, the text as HTML, the language it is written in:
    :func:`~tradeoff.study.consent_added.written_in`) of the study's newest consent
    version in ``language`` (else the version's first text), or ``None`` without one: the
    text :func:`~tradeoff.study.consent_added.current_consent` says is current, from the
    versions as this process last read them (:class:`ConsentTexts`), each text's HTML
    kept."""
    current = current_consent(study, language, consent_texts(study).current())
    if current is None:
        return None
    version, chosen = current
    key = (study.path, chosen.file)
    kept = _HTML.get(key)
    if kept is None:
        path = study.path / chosen.file
        body = read_consent(path)
        kept = (file_sha256(path), Markup(safe_markdown(body)))
        _HTML[key] = kept
    return version, kept[0], kept[1], written_in(study, chosen, language)
