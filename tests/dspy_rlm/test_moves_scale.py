"""Past the structure parser's cap (issue 28, item 8): a phrase found only in the unparsed tail of a huge text
is still offered, as a search (which streams over the whole text), and the run reads the answer there."""

from __future__ import annotations

import json

import dspy
import pytest
from dspy.utils import DummyLM

from dspy_outlines.replies import chat_reply
from dspy_rlm import RLM
from dspy_rlm.library import lookup, structure, superlatives, tail
from dspy_rlm.profiles.calibration import load_calibration
from dspy_rlm.profiles.kinds import evaluate
from dspy_rlm.profiles.moves import MoveBook
from dspy_rlm.profiles.scripted import ScriptedMovePolicy

from .test_guided import ConstraintCheckingLM
from .test_profiles import UNRANKED


def _log(lines: int, needle_at: int) -> str:
    rows = [f"2024-05-17 10:{i // 60 % 60:02d}:{i % 60:02d} INFO worker-{i % 7}: queue depth {i}" for i in range(lines)]
    rows[needle_at] = "2024-05-17 14:02:51 ERROR mailer: job calm-island failed, opened incident INC-3820"
    return "\n".join(rows)


def test_a_phrase_past_the_parse_cap_is_offered_as_a_search(monkeypatch):
    monkeypatch.setattr(structure, "MAX_PARSE_CHARS", 200_000)
    text = _log(30_000, 29_000)  # about 1.8 MB; the needle 1.7 MB in
    question = "Which incident was opened when job calm-island failed?"
    book = MoveBook({"question": question}, {"context": text}, {"answer": str})
    assert book.structs["context"].parsed_chars is not None
    codes = [m.code for m in book.read_moves()]
    assert "print(search(context, 'calm-island', ignore_case=True))" in codes
    assert not any("record_of(context, 'calm-island')" in c for c in codes)  # a value of a log line, not its key
    record = lookup.record_of(text, "calm-island")
    assert record.line == 29_001 and "INC-3820" in record.text
    with dspy.context(lm=DummyLM([{"answer": "unknown"}] * 10)):
        pred = RLM("context, question -> answer", policy=ScriptedMovePolicy(), max_iters=4)(
            context=text, question=question
        )
    assert pred.answer == "INC-3820"
    assert pred.rlm_result.kind in ("submitted", "extracted") and pred.rlm_result.confidence > 0.25


def test_a_word_only_past_the_cap_is_a_key_and_the_run_answers_what_it_reads(monkeypatch):
    """A single plain word ("ERROR") absent from the parsed head and present past it names the line asked about."""
    monkeypatch.setattr(structure, "MAX_PARSE_CHARS", 200_000)
    text = _log(30_000, 29_000)
    question = "Which incident ID was opened by the ERROR line?"
    book = MoveBook({"question": question}, {"context": text}, {"answer": str})
    beyond = [k.text for k in book.keys["context"] if k.beyond]
    assert beyond and all(text.find(w, 0, 200_000) < 0 for w in beyond)
    assert any(m.kind == "search" and m.args[0] in beyond for m in book.read_moves())
    with dspy.context(lm=DummyLM([{"answer": "unknown"}] * 10)):
        pred = RLM("context, question -> answer", policy=ScriptedMovePolicy(), max_iters=4)(
            context=text, question=question
        )
    # the value read is the answer, vouched for above an unsupported guess (Submitted where the calibration's
    # threshold admits its class; 0.518 against 0.667 since the chooser fit beside the ranker refit at stop 58)
    assert pred.answer == "INC-3820" and pred.rlm_result.confidence > 0.25


def test_streaming_helpers_read_past_the_cap(monkeypatch):
    monkeypatch.setattr(structure, "MAX_PARSE_CHARS", 200_000)
    rows = _log(30_000, 29_000).split("\n")
    rows[25_000] = rows[27_000] = "2024-05-17 14:03:00 ERROR mailer: job failed again"
    text = "\n".join(rows)
    assert structure.detect(text).parsed_chars is not None
    assert lookup.count_records(text, "ERROR") == 3  # every line, not only the parsed head's (none there)
    assert lookup.exists(text, "calm-island") and not lookup.exists(text, "sunny-dune")
    assert tail.reads_whole(text, "count_records") and tail.reads_whole(text, "count_where")
    assert tail.reads_whole(text, "count_if", ("col3", "part", "ERROR"))
    assert not tail.reads_whole(text, "count_if", ("col3", "starts", "E")) and not tail.reads_whole(text, "max_of")
    monkeypatch.setattr(structure, "MAX_PARSE_CHARS", 16_000_000)
    whole = "\n".join(rows) + "\n"  # a new text object: detected again, uncapped
    assert lookup.count_records(whole, "ERROR") == 3 and tail.reads_whole(whole, "count_where")


def test_a_count_by_value_streams_and_a_ranking_of_the_head_alone_supports_nothing(monkeypatch):
    monkeypatch.setattr(structure, "MAX_PARSE_CHARS", 200_000)
    colors = ["red", "green", "blue"]
    rows = [f"item-{i}\t{colors[i % 3]}\t{i}" for i in range(40_000)]
    rows[39_000] = "item-39000\tred\t999999"  # the largest number, past the head
    text = "name\tcolor\tsize\n" + "\n".join(rows)
    assert lookup.count_where(text, "color", "red") == 13_334  # every row: 3,154 of them are in the head
    assert lookup.count_if(text, "color", "part", "red") == 13_334
    assert lookup.count_if(text, "name", "starts", "item-39") < 1_000  # a prefix does not stream: the head's count
    book = MoveBook({"question": "How many items have the color red?"}, {"context": text}, {"answer": int})
    counts = [m for m in book.read_moves() if m.kind in ("count_where", "count_if")]
    assert counts
    for move in counts:
        assert [(c.value, c.supported) for c in evaluate(book, move, "")] == [("13334", True)]
    book = MoveBook({"question": "Which item has the largest size?"}, {"context": text}, {"answer": str})
    ranks = [m for m in book.read_moves() if m.kind == "max"]
    assert ranks
    for move in ranks:
        found = evaluate(book, move, "")
        assert found and not any(c.supported for c in found)
        assert all("read only the first" in c.why for c in found)


class _StopsAfterItsSteps(ConstraintCheckingLM):
    """The scripted action steps, then an extraction that says nothing the reads support."""

    def forward(self, prompt=None, messages=None, **kwargs):
        if self.steps:
            return super().forward(prompt, messages, **kwargs)
        return chat_reply(
            self.model, json.dumps({"answer": "The run hit its limit."}), prompt_tokens=10, completion_tokens=5
        )


def test_a_forced_ending_takes_the_supported_value_the_reads_produced():
    """A run stopped by its step limit: the extraction's unsupported text gives way to the value the reads
    support, with that value's calibrated confidence; with nothing supported, an unsupported SUBMIT's accuracy."""
    text = _log(2_000, 1_500)
    for job, answer in (("calm-island", "INC-3820"), ("sunny-dune", None)):
        question = f"Which incident was opened when job {job} failed?"
        step = (f"I will search for '{job}'.", f"print(search(context, '{job}', ignore_case=True))")
        with dspy.context(lm=_StopsAfterItsSteps([step] if answer else [])):
            pred = RLM("context, question -> answer", max_iters=1, profile=UNRANKED)(context=text, question=question)
        result = pred.rlm_result
        assert result.kind == "extracted"
        if answer:
            assert pred.answer == answer and "the reads support" in result.notes
            assert result.confidence > load_calibration().unsupported()
        else:
            assert "is a guess" in result.notes and result.confidence == load_calibration().unsupported()


@pytest.mark.real_model
@pytest.mark.timeout(600)
def test_the_embedded_model_reads_past_the_cap_and_never_vouches_for_a_count_of_the_head(monkeypatch):
    from dspy_outlines import OutlinesLM

    monkeypatch.setattr(structure, "MAX_PARSE_CHARS", 200_000)  # the host's moves see a huge text: 1.8 MB here
    text = _log(30_000, 29_000)
    lm = OutlinesLM(max_tokens=96)
    with dspy.context(lm=lm):
        pred = RLM("context, question -> answer", max_iters=4)(
            context=text, question="Which incident ID was opened by the ERROR line?"
        )
        printed = [e.stdout for it in pred.trace.iterations for e in it.code_executions]
        assert any("INC-3820" in out for out in printed)  # the model's read found the line past the cap
        result = pred.rlm_result  # vouched for only when right
        assert (result.kind == "submitted" and pred.answer == "INC-3820") or result.confidence < 0.5
        table = "name\tcolor\n" + "\n".join(f"item-{i}\t{('red', 'green', 'blue')[i % 3]}" for i in range(40_000))
        pred = RLM("context, question -> answer: int", max_iters=4)(
            context=table, question="How many items have the color red?"
        )
    assert pred.rlm_result.kind != "submitted" or pred.answer == 13_334  # a count of the head alone is no answer


def test_a_table_row_past_the_cap_is_read_as_a_record_with_the_header_fields(monkeypatch):
    monkeypatch.setattr(structure, "MAX_PARSE_CHARS", 200_000)
    rows = [f"node-{i:06d}\t{1024 + i % 50_000}\tauth\tonline" for i in range(40_000)]
    rows[35_000] = "osprey-gateway\t36213\tledger\tdegraded"
    text = "host\tport\towner\tstatus\n" + "\n".join(rows)
    assert structure.detect(text).parsed_chars is not None
    assert lookup.field_of(text, "osprey-gateway", "port") == "36213"
    assert superlatives.key_of(text, "osprey-gateway") == "osprey-gateway"
    assert not lookup.record_of(text, "kestrel-gateway")  # absent everywhere: Nothing
    book = MoveBook({"question": "What port does host osprey-gateway use?"}, {"context": text}, {"answer": int})
    key = next(k for k in book.keys["context"] if k.text == "osprey-gateway")
    assert key.beyond and key.is_key
    with dspy.context(lm=DummyLM([{"answer": "unknown"}] * 10)):
        pred = RLM("context, question -> answer: int", policy=ScriptedMovePolicy(), max_iters=4)(
            context=text, question="What port does host osprey-gateway use?"
        )
    assert pred.answer == 36213 and pred.rlm_result.kind == "submitted"


class _ExtractionFails(ConstraintCheckingLM):
    """The scripted action steps, then an extraction whose LM call fails."""

    def forward(self, prompt=None, messages=None, **kwargs):
        if self.steps:
            return super().forward(prompt, messages, **kwargs)
        raise RuntimeError("the engine died")


def test_a_failed_extraction_still_ends_with_the_supported_value_the_reads_produced():
    text = _log(2_000, 1_500)
    step = ("I will search for 'calm-island'.", "print(search(context, 'calm-island', ignore_case=True))")
    with dspy.context(lm=_ExtractionFails([step])):
        pred = RLM("context, question -> answer", max_iters=1, profile=UNRANKED)(
            context=text, question="Which incident was opened when job calm-island failed?"
        )
    assert pred.rlm_result.kind == "extracted" and pred.answer == "INC-3820"
    assert "extraction failed" in pred.rlm_result.reason and pred.trace.answer_source == "forced"
    with dspy.context(lm=_ExtractionFails([])):  # nothing read: the failure stands
        pred = RLM("context, question -> answer", max_iters=1, profile=UNRANKED)(
            context=text, question="Which incident was opened when job calm-island failed?"
        )
    assert pred.rlm_result.kind == "failed"


@pytest.mark.parametrize(
    ("question", "answer"),
    [("Did job calm-island fail?", True), ("Did job quiet-lagoon fail?", False)],
)
def test_a_yes_or_no_about_an_identifier_past_the_cap_is_checked_over_the_whole_text(monkeypatch, question, answer):
    """A key found only past the head gets the moves that read the whole text (exists, count_records), not only
    the search; an identifier absent from the whole text is the one asked about, so its check comes first."""
    monkeypatch.setattr(structure, "MAX_PARSE_CHARS", 200_000)
    rows = _log(30_000, 29_000).split("\n")
    rows[10] = "2024-05-17 09:00:00 ERROR mailer: job brisk-harbor failed, opened incident INC-1000"  # in the head
    text = "\n".join(rows)
    book = MoveBook({"question": question}, {"context": text}, {"answer": bool})
    first = book.keys["context"][0]
    assert ("-" in first.text) and any(m.kind == "exists" and m.args[0] == first.text for m in book.read_moves())
    with dspy.context(lm=DummyLM([{"answer": "unknown"}] * 10)):
        pred = RLM("context, question -> answer: bool", policy=ScriptedMovePolicy(), max_iters=4)(
            context=text, question=question
        )
    assert pred.answer is answer and pred.rlm_result.kind == "submitted"
