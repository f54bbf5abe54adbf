"""The small policy's grounded moves (profiles/moves.py) on texts written here: which keys, fields and moves a
question gets, what a read yields, and which submitted values end Submitted or as labelled guesses."""

from __future__ import annotations

import dspy

from dspy_rlm import RLM
from dspy_rlm.profiles.moves import MoveBook
from dspy_rlm.profiles.scripted import RandomMovePolicy, ScriptedMovePolicy

from .test_profiles import UNRANKED, ScriptedLocalLM

TABLE = 'name,owner,color,weight\namber-falcon,Ines Moreau,red,"1,250"\nbrisk-heron,Tom Okafor,blue,830\n' + "".join(
    f"bird-{i},Owner {i % 7},{['red', 'blue', 'green'][i % 3]},{100 + i}\n" for i in range(40)
)


def book(question: str, answer: type = str) -> MoveBook:
    return MoveBook({"question": question}, {"context": TABLE}, {"answer": answer})


def test_keys_are_question_phrases_found_in_the_data_and_fields_share_a_stem():
    b = book("Who is the owner of amber-falcon?")
    assert [k.text for k in b.keys["context"]] == ["amber-falcon"]
    assert b.keys["context"][0].is_key and b.fields["context"] == ["owner"]
    codes = [m.code for m in b.step_moves([], [])]
    assert "print(field_of(context, 'amber-falcon', 'owner'))" in codes
    assert not any(c.startswith("SUBMIT") for c in codes)  # nothing read yet: nothing to submit


def test_a_field_read_offers_the_whole_value_as_a_supported_submit():
    b = book("Who is the owner of amber-falcon?")
    b.record_read("print(field_of(context, 'amber-falcon', 'owner'))", "Ines Moreau")
    submits = {m.code: m.candidate for m in b.step_moves(["print(field_of(context, 'amber-falcon', 'owner'))"], ["x"])
               if m.kind == "submit"}  # fmt: skip
    assert submits["SUBMIT(answer='Ines Moreau')"].supported


def test_numbers_as_printed_are_normalized_for_int_answers():
    b = book("What is the weight of amber-falcon?", int)
    code = "print(field_of(context, 'amber-falcon', 'weight'))"
    b.record_read(code, "1,250")
    assert "SUBMIT(answer=1250)" in [m.code for m in b.step_moves([code], ["1,250"])]


def test_cues_gate_counting_ranking_and_existence_moves():
    assert "count" in {m.kind for m in book("How many birds are blue?", int).read_moves()}
    assert "max" in {m.kind for m in book("Which bird has the largest weight?").read_moves()}
    assert "exists" in {m.kind for m in book("Is there a bird named snowy-owl?", bool).read_moves()}
    assert not {m.kind for m in book("Who is the owner of amber-falcon?").read_moves()} & {"count", "max", "exists"}
    assert book("Is there a bird named snowy-owl?", bool).kind() == "yes_no"
    assert book("Which bird is owned by Ines Moreau?").kind() == "reverse"


def test_an_unsupported_submit_ends_as_a_labelled_guess():
    """Reading the record of a common word and submitting a value from it is a guess: Extracted, not Submitted."""
    lm = ScriptedLocalLM(["print(record_of(context, 'Owner 3'))", "SUBMIT(answer='bird-3')"])
    with dspy.context(lm=lm):
        pred = RLM("context, question -> answer", max_iters=3, profile=UNRANKED)(
            context=TABLE, question="Which color is the sky?"
        )
    # A SUBMIT the grammar never offered (this scripted LM ignores the constraint) is judged by its value: no
    # read supports 'bird-3' as the sky's color, so it ends a labelled guess.
    assert pred.result.kind == "extracted" and pred.answer == "bird-3"
    assert "guess" in pred.result.notes and pred.result.confidence < 0.5
    # final_reasoning says how the run ended: no limit forced an extraction, the SUBMIT was judged a guess
    assert pred.final_reasoning.startswith("Submitted value kept as Extracted, not supported by what the run read")
    assert "is a guess" in pred.final_reasoning and "Extract forced" not in pred.final_reasoning
    lm = ScriptedLocalLM(["print(field_of(context, 'amber-falcon', 'owner'))", "SUBMIT(answer='Ines Moreau')"])
    with dspy.context(lm=lm):
        pred = RLM("context, question -> answer", max_iters=3, profile=UNRANKED)(
            context=TABLE, question="Who is the owner of amber-falcon?"
        )
    assert pred.result.kind == "submitted" and pred.answer == "Ines Moreau"
    lm = ScriptedLocalLM(["print(record_of(context, 'amber-falcon'))", "SUBMIT(answer='red')"])
    with dspy.context(lm=lm):
        pred = RLM("context, question -> answer", max_iters=3, profile=UNRANKED)(
            context=TABLE, question="Who is the owner of amber-falcon?"
        )
    assert pred.result.kind == "extracted" and pred.answer == "red"  # a field the question does not name
    assert "guess" in pred.result.notes and pred.result.confidence < 0.5


def test_scripted_and_random_policies_take_grammar_moves_without_an_lm_call():
    for policy in (ScriptedMovePolicy(), RandomMovePolicy(seed=1)):
        lm = ScriptedLocalLM([])  # the extraction's LM only
        with dspy.context(lm=lm):
            pred = RLM("context, question -> answer", max_iters=3, policy=policy)(
                context=TABLE, question="Who is the owner of amber-falcon?"
            )
        assert all("`code`" not in p[0]["content"] for p in lm.prompts)  # no action call went to the LM
        if isinstance(policy, ScriptedMovePolicy):
            assert pred.result.kind == "submitted" and pred.answer == "Ines Moreau"


ZONES = "code\tzone\tcomment\n" + "".join(
    f"{c}\t{z}\t{m}\n"
    for c, z, m in [
        ("KI", "Pacific/Kanton", "Phoenix Islands"),
        ("KI", "Pacific/Tarawa", "Gilbert Islands"),
        ("US", "America/Boise", "Mountain - ID (south)"),
        ("US", "America/Denver", "Mountain (most areas)"),
        ("AQ", "Antarctica/Troll", "Troll"),
    ]
)


def test_ranking_moves_rank_fields_that_fit_and_no_word_is_a_key():
    codes = [m.code for m in book("Which bird has the largest weight?").read_moves()]
    assert codes == ["print(max_of(context, 'weight'))"]  # only the numeric field; 'bird' names no record
    codes = [m.code for m in book("What is the most common color among the birds?").read_moves()]
    assert codes == ["print(most_common(context, 'color'))"]  # the field named; names never repeat
    assert book("Give the color shared by the most birds.").kind() == "most_common"


def test_a_ranked_record_is_vouched_for_by_its_key_and_a_count_of_nothing_is_not():
    b = book("Which bird has the largest weight?")
    b.record_read("print(max_of(context, 'weight'))", "")
    found = {c.value: c.supported for c in b.read_candidates()}
    assert found["amber-falcon"] and not found["1,250"] and not found["Ines Moreau"]
    b = book("How many birds have the color purple?", int)
    b.record_read("print(count_where(context, 'color', 'purple'))", "0")
    assert [c.supported for c in b.read_candidates()] == [False]  # no record has it: wrong field or value


def test_a_ranking_word_inside_the_questions_key_asks_no_ranking():
    b = MoveBook(
        {"question": 'The zone with comment "Mountain (most areas)": what is its code?'},
        {"context": ZONES},
        {"answer": str},
    )
    code = "print(record_of(context, 'Mountain (most areas)'))"
    assert code in [m.code for m in b.read_moves()]
    b.record_read(code, "")
    assert ("US", True) in [(c.value, c.supported) for c in b.read_candidates()]


def test_a_later_read_that_cannot_vouch_for_a_value_keeps_an_earlier_reads_support():
    from dspy_rlm.profiles.candidates import Candidate

    b = book("Who is the owner of amber-falcon?")
    b.reads["print(field_of(context, 'amber-falcon', 'owner'))"] = [Candidate("Ines Moreau", "owner", True, "key")]
    b.reads["print(search(context, 'Ines'))"] = [
        Candidate("Ines Moreau", "match", False, "a line, not a field"),
        Candidate("red", "match", False, "a line, not a field"),
    ]
    assert [(c.value, c.supported, c.label) for c in b.read_candidates()] == [
        ("Ines Moreau", True, "owner"),
        ("red", False, "match"),
    ]


def test_key_of_vouches_for_a_reverse_lookup_as_a_record_read_does_but_never_for_a_ranking():
    b = book("Which bird is owned by Ines Moreau?")
    code = "print(key_of(context, 'Ines Moreau'))"
    assert code in [m.code for m in b.read_moves()]
    b.record_read(code, "amber-falcon")
    assert [(c.value, c.supported, c.why) for c in b.read_candidates()] == [("amber-falcon", True, "reverse lookup")]
    b = book("Give the wieght of the bird of Ines Moreau.")  # a field asked, two letters swapped: no reverse lookup
    b.record_read("print(key_of(context, 'Ines Moreau'))", "amber-falcon")
    assert [(c.supported, c.why) for c in b.read_candidates()] == [(False, "the question asks for 'weight'")]
    b = book("Of the birds of Ines Moreau, which has the largest weight?")
    b.record_read("print(key_of(context, 'Ines Moreau'))", "amber-falcon")
    assert [c.supported for c in b.read_candidates()] == [False]  # one record ranks nothing


def test_a_quoted_phrase_is_one_key_and_a_describing_field_is_not_read():
    b = MoveBook(
        {"question": 'What is the code of the zone whose comment is "Phoenix Islands"?'},
        {"context": ZONES},
        {"answer": str},
    )
    assert b.keys["context"][0].text == "Phoenix Islands" and b.keys["context"][0].is_value
    codes = [m.code for m in b.read_moves()]
    assert "print(field_of(context, 'Phoenix Islands', 'zone'))" not in codes  # 'zone' only describes the record
    b.record_read("print(key_of(context, 'Phoenix Islands'))", "KI")
    assert [(c.value, c.supported) for c in b.read_candidates()] == [("KI", True)]


def test_a_name_asked_for_drops_the_bracketed_tail():
    data = {
        "context": "Package: tar\nMaintainer: Ana Ruiz <ana@example.org>\n\n"
        "Package: gzip\nMaintainer: Tom Okafor <t@o.org>"
    }
    b = MoveBook({"question": "What is the maintainer's name of tar?"}, data, {"answer": str})
    b.record_read("print(field_of(context, 'tar', 'Maintainer'))", "")
    submits = {m.candidate.value: m.candidate.supported for m in b.submit_moves() if m.candidate}
    assert submits == {"Ana Ruiz <ana@example.org>": False, "Ana Ruiz": True}


def test_a_directory_gets_the_reads_and_submits_of_its_files():
    """A directory input (``files``: path -> text, as the CLI gives it) is read file by file like a text: before,
    its only move was ``peek(files)``, and the step after it was long, slow and could submit no supported value
    (issue 31: one step of 25 s on /usr/share/distro-info/)."""
    files = {"birds.csv": TABLE, "notes.txt": "nothing about birds\n" * 3}
    b = MoveBook({"question": "Who is the owner of amber-falcon?"}, {"files": files}, {"answer": str})
    assert list(b.texts) == ["files['birds.csv']", "files['notes.txt']"]  # the file with the question's words first
    code = "print(field_of(files['birds.csv'], 'amber-falcon', 'owner'))"
    assert code in [m.code for m in b.step_moves([], [])]
    lm = ScriptedLocalLM([code, "SUBMIT(answer='Ines Moreau')"])
    with dspy.context(lm=lm):
        pred = RLM("files: dict[str, str], question -> answer", max_iters=3)(
            files=files, question="Who is the owner of amber-falcon?"
        )
    assert pred.result.kind == "submitted" and pred.answer == "Ines Moreau"
    assert "'birds.csv' (" in lm.prompts[0][-1]["content"]  # the prompt names the files
