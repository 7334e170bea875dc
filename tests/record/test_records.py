"""One record per line type, used to write and to read: write → read → write gives the same
bytes and the same chain of hashes, for generated records and for a recorded session."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from tradeoff.ask.scenario import load_scenario
from tradeoff.learn import Choice, ElicitationResult
from tradeoff.record.log import read_session
from tradeoff.record.records import (
    AnswerRecord,
    ConsentRecord,
    EntryRecord,
    ExtendRecord,
    HeaderRecord,
    NoteRecord,
    ProfileRecord,
    QueryRecord,
    ResultRecord,
    UndoRecord,
    chain_hash,
    chained_line,
    record_bytes,
)
from tradeoff.record.replay import replay
from tradeoff.simulation.oracles import Noise, SimulatedOracle
from tradeoff.study.opening import start_session

from ..conftest import SCENARIOS

pytestmark = [pytest.mark.core, pytest.mark.other_path]

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
answers = st.builds(
    AnswerRecord,
    type=st.just("answer"),
    index=st.none() | st.integers(1, 500),
    query=queries,
    choice=st.sampled_from(list(Choice)),
    response_ms=st.none() | st.floats(0, 1e7, allow_nan=False),
    at=stamp,
    language=st.none() | st.sampled_from(["en", "de", "es-MX"]),
)
consents = st.builds(
    ConsentRecord,
    type=st.just("consent"),
    version=st.text(min_size=1, max_size=10),
    text_sha256=hexes,
    language=st.sampled_from(["en", "fr", "de-CH"]),
    at=stamp,
)
entries = st.builds(
    EntryRecord,
    type=st.just("entry"),
    via=st.sampled_from(["code", "panel", "open"]),
    panel_id=st.none() | st.text(min_size=1, max_size=24),
    params=st.dictionaries(st.text(min_size=1, max_size=12), st.text(max_size=20), max_size=3),
    pilot=st.booleans(),
    at=stamp,
)
results = st.builds(
    ResultRecord,
    type=st.just("result"),
    strategy=st.sampled_from(["paper", "bisection", "probabilistic", "joint"]),
    names=st.lists(st.text(max_size=10), max_size=5).map(tuple),
    weights=st.lists(finite, max_size=5).map(tuple),
    answers=st.integers(0, 500),
    complete=st.booleans(),
    intervals=st.none() | st.lists(st.tuples(finite, finite), max_size=5).map(tuple),
    error_rate_estimate=st.none() | finite,
    swing_weights=st.none() | st.lists(finite, max_size=5).map(tuple),
    swing_intervals=st.none() | st.lists(st.tuples(finite, finite), max_size=5).map(tuple),
    priors=st.none() | st.lists(finite, max_size=5).map(tuple),
    at=stamp,
)
#: The lines between the header and the result.
middle = st.one_of(
    answers,
    st.builds(UndoRecord, type=st.just("undo"), at=stamp),
    st.builds(NoteRecord, type=st.just("note"), text=st.text(max_size=40), at=stamp),
    st.builds(ExtendRecord, type=st.just("extend"), extra=st.integers(1, 10_000), at=stamp),
)
records = st.one_of(middle, consents, entries, results)
TEXT = (SCENARIOS / "glaucoma-screening.toml").read_text()
SHA = hashlib.sha256(TEXT.encode()).hexdigest()
headers = st.builds(
    HeaderRecord,
    format=st.just(3),
    tradeoff=st.text(max_size=10),
    participant=st.from_regex(r"[a-z][a-z0-9_-]{0,20}", fullmatch=True),
    scenario_id=st.text(max_size=20),
    scenario_path=st.text(max_size=20),
    scenario_sha256=st.just(SHA),
    scenario_text=st.just(TEXT),
    strategy=st.sampled_from(["paper", "bisection", "probabilistic", "joint"]),
    seed=st.integers(0, 2**31),
    budget=st.none() | st.integers(1, 100),
    started=stamp,
    # one number per weight of the scenario (glaucoma, healthy, cost, wait)
    candidates=st.none()
    | st.lists(st.tuples(finite, finite, finite, finite), max_size=4).map(tuple),
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


@given(
    st.none() | consents,
    st.none() | entries,
    headers,
    st.lists(middle, max_size=8),
    st.none() | results,
)
def test_a_generated_file_is_read_and_written_again_byte_for_byte(
    consent: ConsentRecord | None,
    entry: EntryRecord | None,
    header: HeaderRecord,
    events: list[AnswerRecord | UndoRecord | NoteRecord | ExtendRecord],
    result: ResultRecord | None,
) -> None:
    """Whole files of every line type, with and without a consent, an entry and a result, read by
    :func:`read_session` (the discriminated union of the events, the chain checked) and
    written again from the records read: the same bytes, the same chain."""
    written: list[BaseModel] = [consent] if consent is not None else []
    written += [entry] if entry is not None else []
    written += [header, *events] + ([result] if result is not None else [])
    chain: str | None = None
    data = b""
    for record in written:
        chain, line = chained_line(chain, record)
        data += line
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.jsonl"
        path.write_bytes(data)
        log = read_session(path)
    read: list[BaseModel] = [log.consent] if log.consent is not None else []
    read += [log.entry] if log.entry is not None else []
    read += [log.header, *log.events]
    # the same records read back (the header into Header, which adds the parsed scenario)
    assert len(read) == len(written)
    for got, put in zip(read, written, strict=True):
        assert isinstance(got, type(put)) and got.model_dump() == put.model_dump()
    assert log.chain == chain and log.warnings == []
    assert [line.number for line in log.lines] == list(
        range(len(written) - len(log.lines) + 1, len(written) + 1)
    )
    again: str | None = None
    rewritten = b""
    for record in read:
        again, line = chained_line(again, record)
        rewritten += line
    assert rewritten == data and again == chain


def test_the_result_record_is_the_engine_result() -> None:
    """The result line carries every field of ElicitationResult, in its order (what every
    version wrote), so a result written later with a new field fails here first; ``asked``
    is left out (a replay gives it)."""
    names = [f.name for f in dataclasses.fields(ElicitationResult) if f.name != "asked"]
    assert list(ResultRecord.model_fields) == ["type", *names, "at"]


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
    records = [log.consent, log.header, *log.events]
    chain: str | None = None
    for record, data in zip(records, on_disk, strict=True):
        assert record is not None
        chain, again = chained_line(chain, record)  # the header as read writes itself
        assert again == data
    assert chain == log.chain
    # the header is written from the model and read into it: the scenario stored once
    header = json.loads(on_disk[1])
    assert header["format"] == 3 and "scenario" not in header
    assert header["scenario_text"] == loaded.text and log.header.scenario == loaded.scenario
    # replay reaches the recorder's state exactly: the recorded result is the replayed one
    result = rec.engine.result()
    assert replay(log).result() == result
    assert log.events[-1] == ResultRecord.of(result).model_copy(update={"at": log.events[-1].at})


# The examples as 0.2.0 wrote them (format 2), kept to read that format.
EXAMPLES = sorted((SCENARIOS.parent / "tests" / "fixtures" / "format2").glob("*/*.jsonl"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.parent.name)
def test_format_2_lines_are_read_as_written(path: Path) -> None:
    """The shipped examples (format 2): the header as read is the line without its parsed
    copy of the scenario; every later line is written again byte for byte from its record,
    chained from the header's stored chain."""
    log = read_session(path)
    on_disk = path.read_bytes().splitlines(keepends=True)
    header = json.loads(on_disk[0])
    chain = header.pop("chain")
    assert log.header.format == 2 and header.pop("scenario")["id"] == log.header.scenario.id
    assert json.loads(record_bytes(log.header)) == {"candidates": None, **header}
    for event, data in zip(log.events, on_disk[1:], strict=True):
        chain, again = chained_line(chain, event)
        assert again == data
    assert chain == log.chain and log.warnings == []


def test_a_format_1_file_replays_to_its_format_2_result(tmp_path: Path) -> None:
    """An example as format 1 wrote it (no chain, the parsed scenario copy kept) replays to
    exactly the state its format 2 original replays to, with no warning; its lines are
    written again byte for byte (without a chain)."""
    lines = []
    for line in EXAMPLES[0].read_text().splitlines():
        data = json.loads(line)
        del data["chain"]
        if data["type"] == "header":
            data["format"] = 1
        lines.append(json.dumps(data, ensure_ascii=False))
    old = tmp_path / "format-1.jsonl"
    old.write_text("\n".join(lines) + "\n")
    log = read_session(old)
    assert log.header.format == 1 and log.chain is None and log.warnings == []
    assert [record_bytes(e) for e in log.events] == lines[1:]
    assert replay(log).result() == replay(read_session(EXAMPLES[0])).result()
    assert log.warnings == []


def test_an_edited_consent_or_a_header_moved_before_it_is_reported(tmp_path: Path) -> None:
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


def test_session_shows_weights_table_fits_80_columns(capsys: pytest.CaptureFixture[str]) -> None:
    """The weights table of `session show` (a heading and a row per aspect) fits an 80-column
    terminal: its names' column is as wide as the longest name, not 16 (rows were 81 and
    the heading 84 characters, and the terminal broke them)."""
    from tradeoff.cli import main

    (path,) = (SCENARIOS.parent / "sessions" / "examples" / "example-lab-manager").glob("*.jsonl")
    assert main(["session", "show", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    start = next(i for i, line in enumerate(out) if "per unit (3 significant digits)" in line)
    table = [out[start]] + [line for line in out[start + 1 :] if "90% [" in line]
    assert len(table) >= 3
    assert max(len(line) for line in table) <= 80, table
