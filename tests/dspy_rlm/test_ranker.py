"""The learned move ranker (profiles/ranker.py): its features, its scores, the file it ships in, and how the small
policy uses it (the model chooses among the ranker's best moves)."""

from __future__ import annotations

import json
from dataclasses import replace

import dspy

from dspy_rlm import RLM
from dspy_rlm.profiles import SMALL
from dspy_rlm.profiles.moves import MoveBook
from dspy_rlm.profiles.ranker import MoveRanker, load_ranker, move_features, question_terms
from dspy_rlm.profiles.scripted import RankedMovePolicy
from dspy_rlm.profiles.steps import SmallPolicy

from .test_moves import TABLE, book
from .test_profiles import ScriptedLocalLM


def test_features_describe_the_move_in_general_terms_and_leave_the_key_out_of_the_words():
    b = book("How many birds have the color blue?", int)
    assert "blue" not in question_terms(b) and "many" in question_terms(b) and "how_many" in question_terms(b)
    moves = b.step_moves([], [])
    count = next(m for m in moves if m.kind == "count_where")
    f = move_features(b, count, moves)
    assert f["k=count_where"] == 1.0 and f["k=count_where|cue=count"] == 1.0 and f["k=count_where|type=int"] == 1.0
    assert f["k=count_where|key_is_value=True"] == 1.0 and f["k=count_where|field_said=True"] == 1.0
    b.record_read(count.code, "14")
    after = b.step_moves([count.code], ["14"])
    submit = next(m for m in after if m.kind == "submit")
    g = move_features(b, submit, after)
    assert g["sub|supported=True"] == 1.0 and 0.0 < g["sub|confidence"] <= 1.0


def test_the_ranker_orders_moves_by_their_weights_and_keeps_the_offered_order_on_ties():
    b = book("Who is the owner of amber-falcon?")
    moves = b.step_moves([], [])
    prefer_record = MoveRanker({"k=record": 2.0, "k=field": -1.0})
    ranked = prefer_record.rank(b, moves)
    assert ranked[0].kind == "record" and ranked[-1].kind == "field"
    assert [m.code for m in MoveRanker({}).rank(b, moves)] == [m.code for m in moves]
    scores = prefer_record.score(b, moves)
    assert all(0.0 < s < 1.0 for s in scores)


def test_a_ranker_file_round_trips_and_a_broken_one_is_no_ranker(tmp_path):
    path = tmp_path / "ranker.json"
    MoveRanker({"k=field": 1.5}, -0.5, {"seed": 1}).save(path)
    loaded = load_ranker(str(path))
    assert loaded is not None and loaded.weights == {"k=field": 1.5} and loaded.bias == -0.5
    assert not list(tmp_path.glob("*.tmp"))  # written to a temporary name, then renamed
    path.write_text("{not json")
    assert load_ranker.__wrapped__(str(path)) is None
    (tmp_path / "weights.json").write_text(json.dumps({"weights": [1, 2]}))
    assert load_ranker.__wrapped__(str(tmp_path / "weights.json")) is None


def test_the_shipped_ranker_was_fit_on_the_training_corpus_and_reads_a_field_when_one_is_asked():
    ranker = load_ranker()
    assert ranker is not None and ranker.meta["questions"] >= 1000 and "train" in ranker.meta["data"]
    b = book("Who is the owner of amber-falcon?")
    best = ranker.rank(b, b.step_moves([], []))[0]
    assert best.kind in ("field", "record") and "amber-falcon" in best.code


def test_the_ranked_policy_ends_submitted_without_an_action_call():
    lm = ScriptedLocalLM([])  # the extraction's LM only
    with dspy.context(lm=lm):
        pred = RLM("context, question -> answer", max_iters=3, policy=RankedMovePolicy())(
            context=TABLE, question="Who is the owner of amber-falcon?"
        )
    assert all("`code`" not in p[0]["content"] for p in lm.prompts)
    assert pred.result.kind == "submitted" and pred.answer == "Ines Moreau"


def test_the_model_chooses_among_the_rankers_best_moves_only():
    """With ``ranked_moves=k`` the step's constraint offers at most k moves, best first; the model is still asked
    (its trace and metrics stay a model's); with 0 it sees every move."""
    run_of = {}

    class Spy(SmallPolicy):
        def start(self, run):
            run_of["run"] = started = super().start(run)
            return started

    question = "Who is the owner of amber-falcon?"
    everything = MoveBook({"question": question}, {"context": TABLE}, {"answer": str}).step_moves([], [])
    assert len(everything) > 2
    for k, expected in ((2, 2), (1, 1), (0, len(everything))):
        lm = ScriptedLocalLM(["print(1)"])
        with dspy.context(lm=lm):
            RLM(
                "context, question -> answer", max_iters=1, policy=Spy(replace(SMALL, ranked_moves=k, rank_margin=1.0))
            )(context=TABLE, question=question)
        assert len(run_of["run"].moves) == expected  # the first step's offered moves
        assert any("`code`" in p[0]["content"] for p in lm.prompts)  # the model was asked
    best = load_ranker().rank(MoveBook({"question": question}, {"context": TABLE}, {"answer": str}), everything)[0]
    run_of.clear()
    with dspy.context(lm=ScriptedLocalLM(["print(1)"])):
        RLM("context, question -> answer", max_iters=1, policy=Spy(replace(SMALL, ranked_moves=1)))(
            context=TABLE, question=question
        )
    assert run_of["run"].moves[0].code == best.code


def test_the_oracle_labels_train_a_ranker_that_solves_what_it_was_taught():
    """benchmarks.train_ranker end to end on a table written here: the oracle labels each step's moves, a
    logistic regression fit on them picks a right move, and acting it out ends in the gold."""
    import random

    from benchmarks.real_files.core import Question
    from benchmarks.train_ranker import act, fit, label, ranked
    from dspy_rlm.profiles.oracle import host_reader, matches

    owners = {f"bird-{i}": f"Owner {i % 7}" for i in range(40)}
    qs = [
        Question(f"q{i}", "t", "train", "lookup", "p", f"Who is the owner of {name}?", "str", owner)
        for i, (name, owner) in enumerate(list(owners.items())[:12])
    ]
    rows = []
    for i, q in enumerate(qs[:8]):
        rows += label(q, TABLE, random.Random(i), i)
    assert rows and {y for *_, y in rows} == {0, 1}
    ranker = fit(rows, c=1.0, seed=0)
    for q in qs[8:]:  # questions it was not fit on
        b = book(q.question)
        ending, value, _ = act(b, ranked(ranker), host_reader(b.data))
        assert ending == "submitted" and matches(value, q.gold), (q.question, ending, value)
