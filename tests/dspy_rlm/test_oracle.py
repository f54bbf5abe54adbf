"""The oracle teacher (issue 28, item 2): the shortest supported move sequence, acted out, and seen by DSPy."""

from __future__ import annotations

import json

import dspy
import pytest

from dspy_rlm import RLM
from dspy_rlm.profiles.moves import MoveBook
from dspy_rlm.profiles.oracle import OracleLM, OraclePolicy, matches, plan

TABLE = "name,os,cores,owner\n" + "\n".join(
    f"host-{i},{'Debian' if i % 3 else 'Fedora'},{i * 4},Owner Number{i}" for i in range(1, 31)
)


def _book(question: str, out: type = str) -> MoveBook:
    return MoveBook({"question": question}, {"context": TABLE}, {"answer": out})


@pytest.mark.parametrize(
    ("question", "gold", "out"),
    [
        ("What is the owner of host-7?", "Owner Number7", str),
        ("How many hosts have the os Fedora?", 10, int),
        ("Is there a host called host-12?", True, bool),
    ],
)
def test_plan_finds_a_supported_submit_of_the_gold(question, gold, out):
    book = _book(question, out)
    found = plan(book, gold)
    assert found.covered and found.moves[-1].kind == "submit"
    assert matches(found.moves[-1].candidate.value, gold)
    assert 2 <= len(found.moves) <= 4 and not book.reads  # the book is left as it was


def test_an_unreachable_gold_is_reported_not_invented():
    found = plan(_book("What is the owner of host-7?"), "Somebody Else")
    assert not found.covered and not found.moves and found.why == "gold never read"


def test_matches_by_type():
    assert matches("owner number7 ", "Owner Number7") and matches("1,024", 1024) and matches("yes", True)
    assert not matches("no", True) and not matches("10", 11) and matches("b", "a", ["b"])


def test_the_policy_acts_the_plan_out_without_an_lm_call():
    question = "What is the owner of host-7?"
    policy = OraclePolicy({question: "Owner Number7"})
    with dspy.context(lm=OracleLM()):
        pred = RLM("context, question -> answer", policy=policy, max_iters=4)(context=TABLE, question=question)
    assert pred.result.kind == "submitted" and pred.answer == "Owner Number7"


def test_through_the_lm_dspy_traces_the_oracles_moves_and_bootstrap_turns_them_into_demos():
    questions = {f"What is the owner of host-{i}?": f"Owner Number{i}" for i in (3, 5, 8)}
    trainset = [
        dspy.Example(context=TABLE, question=q, answer=a).with_inputs("context", "question")
        for q, a in questions.items()
    ]
    teacher = RLM("context, question -> answer", policy=OraclePolicy(questions, through_lm=True), max_iters=4)
    student = RLM("context, question -> answer", max_iters=4)

    def metric(example, pred, trace=None):
        return pred.result.kind == "submitted" and pred.answer == example.answer

    optimizer = dspy.BootstrapFewShot(metric=metric, max_bootstrapped_demos=2, max_labeled_demos=0)
    with dspy.context(lm=OracleLM()):
        compiled = optimizer.compile(student, teacher=teacher, trainset=trainset)
    demos = compiled.generate_action.demos
    assert len(demos) == 2
    assert all("record_of(context" in d.code or "field_of(context" in d.code or "SUBMIT(" in d.code for d in demos)


def test_all_moves_offers_what_the_output_type_admits_without_cue_words():
    question = "Tell me the hosts running Fedora, as a number."  # no cue word of counting
    cued = {m.kind for m in MoveBook({"question": question}, {"context": TABLE}, {"answer": int}).read_moves()}
    every = MoveBook({"question": question}, {"context": TABLE}, {"answer": int}, all_moves=True).read_moves()
    assert "count" not in cued and {"count", "max", "min"} <= {m.kind for m in every}


def test_a_new_move_kind_is_one_registered_object():
    from dspy_rlm.profiles import kinds
    from dspy_rlm.profiles.candidates import Candidate
    from dspy_rlm.profiles.move import read

    class Length:
        name, per_key = "length", False

        def offer(self, book, var, key):
            return [read("length", "I will measure the data.", "count_records", var, "host")]

        def evaluate(self, book, move, stdout, key, result):
            return [Candidate(str(result), "count", True, "counted")]

    kinds.register(Length())
    try:
        book = MoveBook({"question": "How big is it?"}, {"context": TABLE}, {"answer": int})
        assert "length" in {m.kind for m in book.read_moves()}
        found = plan(book, 30)
        assert found.covered and found.moves[0].kind == "length"
    finally:
        kinds.KINDS.pop("length")
    try:
        kinds.register(object())
    except TypeError as e:
        assert "offer()" in str(e)
    else:
        raise AssertionError("an object without offer/evaluate was registered")


def test_recorded_conversations_are_the_students_prompts_and_the_moves_within_the_constraint():
    import json
    import re

    from dspy_rlm.profiles import SMALL_TUNED
    from dspy_rlm.profiles.small import TERSE_INSTRUCTIONS

    question = "What is the owner of host-7?"
    lm = OracleLM(record=True)
    policy = OraclePolicy({question: "Owner Number7"}, through_lm=True, profile=SMALL_TUNED, kind_demos={})
    with dspy.context(lm=lm):
        pred = RLM("context, question -> answer", policy=policy, max_iters=4)(context=TABLE, question=question)
    assert pred.result.kind == "submitted" and pred.answer == "Owner Number7"
    assert 2 <= len(lm.conversations) <= 4  # one per action step
    for conversation in lm.conversations:
        messages = conversation["messages"]
        assert [m["role"] for m in messages] == ["system", "user", "assistant"]  # no demos: one turn
        assert TERSE_INSTRUCTIONS.split("{")[0] in messages[0]["content"]
        assert "record_of(var, word)" not in messages[0]["content"]  # the terse prompt leaves the helpers out
        move = json.loads(messages[-1]["content"])
        assert set(move) == {"reasoning", "code"}
    assert json.loads(lm.conversations[-1]["messages"][-1]["content"])["code"] == "SUBMIT(answer='Owner Number7')"
    assert re.search(r"Owner Number7", lm.conversations[-1]["messages"][1]["content"])  # the read came back


def test_the_terse_prompt_is_shorter_than_the_compact_one():
    from dspy_rlm.profiles.small import small_action_signature

    sig = dspy.Signature("context, question -> answer")
    compact = small_action_signature(sig, ()).instructions
    terse = small_action_signature(sig, (), terse=True).instructions
    assert "SUBMIT(answer=...)" in terse and "context, question" in terse
    assert len(terse) * 5 < len(compact)


def test_coverage_reports_the_questions_where_a_read_supports_a_wrong_value():
    from benchmarks.oracle_coverage import coverage
    from benchmarks.real_files.core import Question

    def q(i: int, question: str, gold: str) -> Question:
        return Question(f"t-{i}", "table", "test", "lookup", "plain", question, "str", gold)

    # the second gold is not in the data: the owner read for it is supported, and wrong
    qs = [q(0, "What is the owner of host-7?", "Owner Number7"), q(1, "What is the owner of host-7?", "Nobody")]
    found = coverage(qs, {"table": TABLE})
    assert found["covered_ids"] == {"t-0": True, "t-1": False}
    assert found["supported_wrong_by_kind"] == {"lookup": 1} and found["supported_wrong_pct"] == 50.0


def test_first_reads_are_the_reads_on_a_one_read_path_to_the_gold():
    from dspy_rlm.profiles.oracle import first_reads

    book = _book("What is the owner of host-7?")
    good, offered = first_reads(book, "Owner Number7")
    assert good and offered >= len(good) and not book.reads  # the book is left as it was
    assert all("host-7" in code for code in good)
    assert first_reads(book, "Somebody Else")[0] == set()


def test_headroom_crosses_a_runs_endings_with_the_oracles_coverage():
    from benchmarks.choice_headroom import cross

    def r(i: str, kind: str, ending: str, correct: bool) -> dict:
        return {"id": i, "kind": kind, "result_kind": ending, "correct": correct}

    records = [
        r("a", "lookup", "submitted", True),
        r("b", "lookup", "extracted", True),  # covered, right below the threshold: headroom
        r("c", "count", "submitted", False),  # covered, wrong: headroom
        r("d", "count", "extracted", True),  # not covered: no chooser over these moves reaches it
    ]
    out = cross(records, {"a": True, "b": True, "c": True, "d": False})
    assert out["all"]["n"] == 4 and out["all"]["covered"] == 3 and out["all"]["headroom_pct"] == 50.0
    assert out["all"]["covered_endings"] == {
        "submitted_right": 1, "extracted_right": 1, "submitted_wrong": 1, "other": 0
    }  # fmt: skip
    assert out["all"]["uncovered_endings"]["extracted_right"] == 1
    assert out["by_kind"]["count"]["headroom_pct"] == 50.0 and out["by_kind"]["lookup"]["headroom_pct"] == 50.0


class _CapturingLM(dspy.BaseLM):
    """A student LM whose 'training' keeps the data it is handed (BootstrapFinetune's provider interface)."""

    def __init__(self) -> None:
        super().__init__(model="local/capture", model_type="chat", cache=False)
        self.trained_on: list = []

    def forward(self, prompt=None, messages=None, **kwargs):
        raise AssertionError("the student is never asked: only its data is read")

    def kill(self, launch_kwargs=None) -> None:
        pass

    def finetune(self, train_data, train_data_format, train_kwargs=None):
        import threading

        self.trained_on.extend(train_data)
        done = threading.Thread(target=lambda: None)
        done.start()
        return type("Job", (), {"result": lambda job: self, "thread": done})()


def test_bootstrap_finetune_trains_on_the_steps_exactly_as_the_lm_saw_them():
    """dspy.BootstrapFinetune re-formats each traced call with the predictor's declared signature; the small
    policy's steps ran with their own (the step's moves as Tier 3's constraint). With OutlinesAdapter as the
    optimizer's adapter, its data are the oracle's conversations as recorded at the LM, message for message."""
    from dspy_outlines import OutlinesAdapter
    from dspy_rlm.profiles import SMALL_TUNED

    questions = {f"What is the owner of host-{i}?": f"Owner Number{i}" for i in (3, 5, 8)}
    trainset = [
        dspy.Example(context=TABLE, question=q, answer=a).with_inputs("context", "question")
        for q, a in questions.items()
    ]
    policy = OraclePolicy(questions, through_lm=True, profile=SMALL_TUNED, kind_demos={})
    teacher = RLM("context, question -> answer", policy=policy, max_iters=4)
    recorder = OracleLM(record=True)
    teacher.set_lm(recorder)
    student = RLM("context, question -> answer", profile=SMALL_TUNED, max_iters=4)
    capture = _CapturingLM()
    student.set_lm(capture)

    def metric(example, pred, trace=None):
        return pred.result.kind == "submitted" and pred.answer == example.answer

    def compiled_data(adapter):
        capture.trained_on.clear()
        recorder.conversations.clear()
        dspy.BootstrapFinetune(metric=metric, adapter=adapter, num_threads=1).compile(
            student, trainset=trainset, teacher=teacher
        )
        return capture.trained_on

    def key(example):
        return json.dumps(example["messages"], sort_keys=True, default=str)

    data = compiled_data(OutlinesAdapter())
    assert len(recorder.conversations) >= 2 * len(questions)  # a read and a SUBMIT at least, each question
    assert sorted(map(key, data)) == sorted(map(key, recorder.conversations))
    assert all('"code": "' in d["messages"][-1]["content"] for d in data)
    plain = compiled_data(dspy.ChatAdapter())  # what it builds without: the declared signature's long prompt
    assert sorted(map(key, plain)) != sorted(map(key, recorder.conversations))
