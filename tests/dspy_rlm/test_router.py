"""The learned cue router (profiles/router.py) and the cue words' swapped letters (spellings.respelled): a
phrasing the cue words lack, or a cue word typed with two letters swapped, still gets the counting and ranking
moves it asks for; a question the cue words route is left as they route it."""

from __future__ import annotations

import json

from dspy_rlm.profiles.moves import MoveBook
from dspy_rlm.profiles.router import ROUTED, CueRouter, load_router, router_terms
from dspy_rlm.profiles.scripted import scripted_choice
from dspy_rlm.profiles.spellings import respelled
from dspy_rlm.profiles.vocabulary import CUE_WORDS

from .test_moves import TABLE


def _book(question: str, answer: type = str, routed: bool = True) -> MoveBook:
    return MoveBook({"question": question}, {"context": TABLE}, {"answer": answer}, routed=routed)


def test_a_cue_word_with_two_letters_swapped_is_read_as_the_cue_unless_the_data_spells_it_so():
    assert respelled("Coutn the birds whose color is red.", CUE_WORDS) == "count the birds whose color is red."
    assert respelled("find the color used most oftne", CUE_WORDS) == "find the color used most often"
    assert respelled("What is the most frqeuent color?", CUE_WORDS) == "What is the most frequent color?"
    assert respelled("Which bird has the lowest weight?", CUE_WORDS) == "Which bird has the lowest weight?"
    assert respelled("Is coutn a bird?", CUE_WORDS, ["name\ncoutn\n"]) == "Is coutn a bird?"  # a value, kept
    assert respelled("Who is ocunt of amber?", ["count", "often"]) == "Who is count of amber?"
    assert respelled("the oftn entry", ["count", "often"]) == "the oftn entry"  # a letter left out: no swap


def test_a_typo_in_the_cue_word_still_offers_the_count_and_the_count_answers():
    b = _book("Coutn the birds whose color is red.", int)
    assert "count" in b.cues
    moves = b.step_moves([], [])
    assert any(m.kind in ("count_where", "count_if", "count") for m in moves)


def test_the_router_adds_the_kind_a_phrasing_without_cue_words_asks_for():
    router = load_router()
    assert router is not None and set(router.weights) == set(ROUTED)
    assert router.meta["data"].startswith("benchmarks.corpus train split")
    asked = "Tell me the color that most birds have."
    assert "most_common" in _book(asked).cues and "most_common" not in _book(asked, routed=False).cues
    b = _book(asked)
    move = scripted_choice(b, b.step_moves([], []))
    assert move.kind == "most_common" and "color" in move.code
    for lookup in ("Who is the owner of amber-falcon?", "What color does brisk-heron have?"):
        assert not _book(lookup).cues & set(ROUTED)  # a lookup is routed nowhere


def test_the_router_only_fills_in_where_the_cue_words_route_nothing():
    b = _book("Which bird has the largest weight?")
    assert b.cues == {"max"}
    assert _book("Is amber-falcon listed?", bool).cues == {"yes_no"}


def test_router_terms_are_words_and_pairs_without_digits_and_a_router_file_round_trips(tmp_path):
    assert router_terms("Which 2 hosts share most?") == sorted(
        {"which", "hosts", "share", "most", "which_hosts", "hosts_share", "share_most"}
    )
    path = tmp_path / "router.json"
    router = CueRouter({"count": {"how_many": 3.0}, "most_common": {"most": 2.0}}, {"count": -1.0, "most_common": -1.5})
    router.save(path)
    loaded = load_router.__wrapped__(str(path))
    assert loaded is not None and loaded.routed("how many birds?") == {"count"}
    assert loaded.routed("the most birds share") == {"most_common"}
    path.write_text(json.dumps({"weights": [1]}))
    assert load_router.__wrapped__(str(path)) is None


def test_a_quantity_asked_in_its_unit_is_routed_to_no_count():
    b = MoveBook(
        {"question": "After how many idle minutes does a node get removed?"},
        {"context": "max_workers: 2\nidle_timeout_minutes: 5\nprovider:\n  type: gcp\n"},
        {"answer": int},
    )
    assert "count" not in b.cues


def test_train_router_fits_a_router_that_routes_phrasings_it_was_not_fit_on():
    """benchmarks.train_router's fit on questions written here: the kinds are learned from the words, a lookup
    is routed nowhere, and the question is read as the move book reads it (swapped cue letters written right)."""
    from benchmarks.train_router import fit, read_as, routing

    fields, nouns = ("color", "owner", "shell", "region", "status"), ("birds", "hosts", "users", "sites")
    texts, kinds = [], []
    for f in fields:
        for n in nouns:
            texts += [f"Tell me the {f} that most {n} have.", f"{f}: which value do most {n} share?"]
            texts += [f"How many {n} have the {f} blue?", f"What is the {f} of the {n[:-1]} amber?"]
            kinds += ["most_common", "most_common", "count", "lookup"]
    router = fit(texts, kinds, c=1.0, seed=0)
    assert "most_common" in router.routed("Tell me the city that most stations have.")
    assert "count" in router.routed("How many stations have the city Oslo?")
    assert not router.routed("What is the city of the station LINP?")
    assert read_as("Coutn the hosts whose os is Linux", "HOST OS\nlinux-1 Linux\n").startswith("count the hosts")
    figures = routing(router, texts, kinds)
    assert figures["most_common"]["recall_pct"] == 100.0 and figures["count"]["false_routes"] == 0
