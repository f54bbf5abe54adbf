"""A review of the probe-68 stop's changes: each test failed on the code before its mend."""

from __future__ import annotations


def test_a_path_glob_opens_no_block_comment() -> None:
    # a shell script's 'rm -f build/*.o' and a later case pattern '*/)' are no C comment: the code between stays
    from dspy_rlm.profiles.comment_doubts import uncommented

    text = 'rm -f build/*.o "$dir"/*\nmode=user-settable\ncase "$f" in\n  */) echo dir ;;\nesac\n'
    assert "user-settable" in uncommented(text)
    c_text = "int x; /* user-settable in a comment */\nint y = 2;\n"
    assert "user-settable" not in uncommented(c_text) and "int y = 2;" in uncommented(c_text)


def test_a_lone_number_already_read_is_offered_once() -> None:
    # 'Warning Level 3 (/W3)' holds one number, 3, which a ranking read too: one candidate 3, the read one
    from dspy_rlm.profiles.candidates import Candidate, typed

    read = Candidate("3", "value", True, "ranked")
    sentence = Candidate("Warning Level 3 (/W3)", "value", True, "read")
    again = Candidate("level 3 of 4 levels", "value", False, "read")
    got = typed(int, [read, sentence, Candidate("Level 3 is the default", "value", False, "read"), again])
    assert [c.value for c in got] == [3]
    assert got[0].supported
