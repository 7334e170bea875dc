"""One record per line type, used to write and to read: write → read → write gives the same
bytes and the same chain of hashes, for generated records and for a recorded session."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tradeoff.elicitation import Choice
from tradeoff.opening import start_session
from tradeoff.oracles import Noise, SimulatedOracle
from tradeoff.scenario import load_scenario
from tradeoff.session import (
    AnswerRecord,
    ConsentRecord,
    ExtendRecord,
    HeaderRecord,
    NoteRecord,
    ProfileRecord,
    QueryRecord,
    ResultRecord,
    UndoRecord,
    chain_hash,
    chained_line,
    read_session,
    record_bytes,
)

from .conftest import SCENARIOS

finite = st.floats(allow_nan=False, allow_infinity=False, width=64)
stamp = st.text(max_size=30)
profiles = st.builds(
    ProfileRecord,
    accuracies=st.tuples(finite, finite),
    recalls=st.tuples(finite, finite),
    attributes=st.lists(finite, max_size=3).map(tuple),
)
queries = st.builds(
    QueryRecord,
    left=profiles,
    right=profiles,
    pair=st.tuples(st.integers(0, 5), st.integers(0, 5)),
    params=st.tuples(finite, finite),
    threshold=st.none() | finite,
    repeat_of=st.none() | st.integers(0, 50),
)
hexes = st.text("0123456789abcdef", min_size=64, max_size=64)
records = st.one_of(
    st.builds(
        AnswerRecord,
        type=st.just("answer"),
        index=st.none() | st.integers(1, 500),
        query=queries,
        choice=st.sampled_from(list(Choice)),
        response_ms=st.none() | st.floats(0, 1e7, allow_nan=False),
        at=stamp,
    ),
    st.builds(UndoRecord, type=st.just("undo"), at=stamp),
    st.builds(NoteRecord, type=st.just("note"), text=st.text(max_size=40), at=stamp),
    st.builds(ExtendRecord, type=st.just("extend"), extra=st.integers(1, 10_000), at=stamp),
    st.builds(
        ConsentRecord,
        type=st.just("consent"),
        version=st.text(min_size=1, max_size=10),
        text_sha256=hexes,
        language=st.sampled_from(["en", "fr", "de-CH"]),
        at=stamp,
    ),
    st.builds(
        ResultRecord,
        type=st.just("result"),
        weights=st.lists(finite, max_size=5).map(tuple),
        at=stamp,
    ),
)
TEXT = (SCENARIOS / "glaucoma-screening.toml").read_text()
headers = st.builds(
    HeaderRecord,
    format=st.just(3),
    tradeoff=st.text(max_size=10),
    participant=st.from_regex(r"[a-z][a-z0-9_-]{0,20}", fullmatch=True),
    scenario_sha256=hexes,
    scenario_text=st.just(TEXT),
    strategy=st.sampled_from(["paper", "bisection", "probabilistic"]),
    seed=st.integers(0, 2**31),
    budget=st.none() | st.integers(1, 100),
    candidates=st.none() | st.lists(st.tuples(finite, finite, finite), max_size=4).map(tuple),
)


@given(st.lists(records, max_size=8), headers)
def test_write_read_write_gives_the_same_bytes_and_chain(
    events: list[object], header: HeaderRecord
) -> None:
    chain: str | None = None
    written = []
    for record in [header, *events]:
        chain, data = chained_line(chain, record)  # type: ignore[arg-type]
        written.append(data)
    again: str | None = None
    for record, data in zip([header, *events], written, strict=True):
        parsed = json.loads(data)
        model = type(record).model_validate(parsed)  # type: ignore[attr-defined]
        again, rewritten = chained_line(again, model)
        assert rewritten == data
        assert parsed["chain"] == again
        assert chain_hash(None, record_bytes(model))  # the text the chain is taken over
    assert again == chain


def test_a_recorded_session_rewrites_byte_for_byte(tmp_path: Path) -> None:
    """Drive an engine with a seeded person, record it (consent first), read it back: every
    line, re-serialised from the records read, is the line on disk, chain included."""
    loaded = load_scenario(SCENARIOS / "breast-cancer-triage.toml")
    consent = ConsentRecord(
        type="consent", version="2", text_sha256="ab" * 32, language="en", at="now"
    )
    spec = loaded.scenario.elicitation.override(budget=8)
    rec = start_session(loaded, "p01", tmp_path, spec=spec, seed=3, consent=consent)
    person = SimulatedOracle.for_scenario(
        loaded.scenario, (0.4, 0.3, 0.2, 0.1), noise=Noise("flip", 0.2), seed=4
    )
    undone = False
    while (q := rec.engine.next_query()) is not None:
        rec.answer(person.choose(q), response_ms=1500.25)
        if rec.engine.answered == 3 and not undone:
            rec.undo()
            rec.note("paused")
            undone = True
    rec.finish()
    rec.close()
    log = read_session(rec.path)
    assert log.consent == consent and log.finished
    on_disk = rec.path.read_bytes().splitlines(keepends=True)
    records = [log.consent, log.header, *(line.event for line in log.lines)]
    chain: str | None = None
    for record, data in zip(records, on_disk, strict=True):
        chain, again = chained_line(
            chain,
            HeaderRecord.model_validate(record.model_dump()) if record is log.header else record,
        )  # type: ignore[arg-type]
        assert again == data
    assert chain == log.chain
    # the header is written from the model and read into it: nothing stored twice
    header = json.loads(on_disk[1])
    assert header["format"] == 3 and "scenario" not in header
    assert np.isclose(rec.engine.result().weights, log.lines[-1].event.weights).all()  # type: ignore[union-attr]


def test_an_edited_consent_or_a_header_moved_before_it_is_reported(tmp_path: Path) -> None:
    import pytest

    from tradeoff.errors import InputError

    loaded = load_scenario(SCENARIOS / "glaucoma-screening.toml")
    consent = ConsentRecord(type="consent", version="1", text_sha256="cd" * 32, at="now")
    rec = start_session(
        loaded,
        "p02",
        tmp_path,
        spec=loaded.scenario.elicitation.override(budget=3),
        consent=consent,
    )
    rec.answer(Choice.LEFT)
    rec.close()
    lines = rec.path.read_bytes().splitlines(keepends=True)
    edited = tmp_path / "edited.jsonl"
    edited.write_bytes(lines[0].replace(b'"version": "1"', b'"version": "2"') + b"".join(lines[1:]))
    with pytest.raises(InputError, match=r"line 1.*consent was edited"):
        read_session(edited)
    swapped = tmp_path / "swapped.jsonl"
    swapped.write_bytes(lines[1] + lines[0] + b"".join(lines[2:]))
    with pytest.raises(InputError, match="line 1"):
        read_session(swapped)
    dropped = tmp_path / "dropped.jsonl"
    dropped.write_bytes(b"".join(lines[1:]))  # the consent removed: the header no longer chains
    with pytest.raises(InputError, match=r"line 1.*header was edited"):
        read_session(dropped)


def test_session_show_says_small_per_unit_weights_in_significant_digits(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Memory per KB weighs ~1e-5: `session show` printed 0.0000 [0.0000, 0.0000]."""
    from tradeoff.cli import main

    (path,) = (SCENARIOS.parent / "sessions" / "examples" / "example-lab-manager").glob("*.jsonl")
    assert main(["session", "show", str(path)]) == 0
    memory = next(line for line in capsys.readouterr().out.splitlines() if "memory" in line)
    assert "0.0000" not in memory and "e-05" in memory and "%" in memory
