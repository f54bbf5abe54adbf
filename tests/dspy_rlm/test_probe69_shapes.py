"""Shapes from probe 69's first run, on invented data. Each test fails on the code before its change, but the guards
marked so."""

from __future__ import annotations

from tests.dspy_rlm.scripted import ask_scripted

PERL = """package Frob::Vendor::Acme;

use strict;
use warnings;

our $VERSION = '2.01';

sub set_build_features {
    my ($self, $flags) = @_;

    # Default feature states.
    my %use_feature = (
        future => {
            wide => 0,
        },
        checks => {
            slow => 0,
            canary => 0,
        },
        stable => {
            notime => 1,
            fixpath => 1,
        },
        hardening => {
            # XXX: left undefined: the compiler decides.
            pie => undef,
            guard => 1,
            guardstrong => 1,
            fortify => 1,
            relro => 1,
            nowrap => 0,
        },
    );

    $self->init_build_features(\\%use_feature);

    # Guard
    if ($flags->use_feature('hardening', 'guardstrong')) {
        my $flag = '-fguard-strong';
        $flags->append($_, $flag) foreach @compile_flags;
    }

    # Fortify
    if ($flags->use_feature('hardening', 'fortify')) {
        $flags->append('CPPFLAGS', '-DFROB_CHECKS=3');
    }

    # Relro
    if ($flags->use_feature('hardening', 'relro')) {
        $flags->append('LDFLAGS', '-Wl,-z,relro');
    }
}

1;
"""


def test_a_setting_said_only_in_the_premise_is_not_what_is_asked():
    # 'fortify => 1' is the premise's state; the flag added when it holds is asked: no Submitted 1
    q = "What preprocessor flag gets added to CPPFLAGS when the fortify hardening feature is enabled?"
    answer, kind = ask_scripted(q, PERL, "str")
    assert not (kind == "submitted" and answer == "1")


def test_a_setting_asked_by_name_is_still_read():  # a guard
    answer, kind = ask_scripted("What is the fortify setting in the hardening features?", PERL, "str")
    assert (answer, kind) == ("1", "submitted")


TOPOLOGY = ""
for name, fmt in (("Stereo 24", "S24_LE"), ("Stereo 16", "S16_LE"), ("Quad 16", "S16_LE")):
    TOPOLOGY += f'SectionPCMConfig."PCM {name}" {{\n\n'
    for side in ("playback", "capture"):
        TOPOLOGY += f'\tconfig."{side}" {{\n\t\tformat "{fmt}"\n\t\trate "48000"\n\t\tchannels "2"\n\t}}\n\n'
    TOPOLOGY += "}\n\n"
for name in ("Main Playback", "Main Capture", "Loop Capture", "Aux0 Playback", "Aux1 Playback"):
    TOPOLOGY += f'SectionPCMCapabilities."{name}" {{\n\tformats "S24_LE,S16_LE"\n\trate_min "48000"\n'
    TOPOLOGY += '\trate_max "48000"\n\tchannels_min "2"\n\tchannels_max "2"\n}\n\n'
TOPOLOGY += 'SectionHWConfig."CodecHWConfig" {\n\tid "1"\n\tformat "I2S"\n\tbclk "master"\n}\n'


def test_a_list_ranked_whole_is_no_item_asked():
    # the capabilities' 'S24_LE,S16_LE', five times, is the most common set of formats, not the format asked
    q = "Counting the playback and capture entries of all the PCM configurations, which sample format is used most"
    q += " often?"
    answer, kind = ask_scripted(q, TOPOLOGY, "str")
    assert not (kind == "submitted" and answer == "S24_LE,S16_LE")


def test_a_set_asked_may_be_ranked_whole():  # a guard
    from dspy_rlm.profiles.move import Move
    from dspy_rlm.profiles.value_doubts import _ranked_list

    move = Move("most_common", "", "", helper="most_common")

    class Book:
        text_q = "Which combination of formats do the capabilities list most often?"

    assert _ranked_list(Book(), move, None, "S24_LE,S16_LE") is None
    assert _ranked_list(None, move, None, "1,000") is None
    assert _ranked_list(None, move, None, "Moreau, Ines") is None  # a name written last name first


def test_a_container_named_by_the_noun_counted_is_no_condition():
    # "the frob hints file" is the data, named by its records: every line counted, no condition 'frob'
    hints = "".join(f"Try frob --opt{i} to see more {i}\n" for i in range(9))
    hints += "Sample the bar with: frob bar -e x\nCompare two runs with: frob diff a b\nSort it by size: frob --sort\n"
    answer, _kind = ask_scripted("How many hints are in the frob hints file?", hints, "int")
    assert answer == 12


def test_a_list_not_named_by_the_noun_counted_still_conditions():  # a guard
    from dspy_rlm.profiles.conditions import counts_every_record
    from dspy_rlm.profiles.moves import MoveBook

    text = "".join(f"font{i} = sans{i % 3}\n" for i in range(9))
    book = MoveBook({"question": "How many fonts are in the sans1 list?"}, {"context": text}, {"answer": int})
    assert not counts_every_record(book, "context")


SHADES = '" Maintainer: A. Painter\n\nlet s:keep = &cpo\nset cpo&vim\n\ncall extend(v:shadenames, {\n'
SHADES += "".join(
    f"\t\t\t\\ 'shade_{name}': '#{code}',\n"
    for name, code in (("ink", "101010"), ("chalk", "f0f0f0"), ("rust", "b7410e"), ("moss", "8a9a5b"),
                       ("sand", "c2b280"), ("slate", "708090"), ("plum", "8e4585"), ("teal", "008080"),
                       ("lake", "008080"), ("coal", "222222"), ("snow", "fffafa"))
)  # fmt: skip
SHADES += "\t\t\t\\ }, 'keep')\n\nlet &cpo = s:keep\n"


def test_a_vim_dictionary_carried_on_by_backslashes_is_read():
    # Vim's continued lines ('\\ key: value,') inside 'call extend(v:shadenames, {' are entries of shadenames
    answer, kind = ask_scripted("What hex code does the shade list give shade_rust?", SHADES, "str")
    assert (answer, kind) == ("#b7410e", "submitted")


def test_another_entry_sharing_a_value_is_no_read_of_the_one_named():
    # "shade_teal shares its hex value with one other entry": its own '#008080' is no answer to which one
    q = "shade_teal shares its exact hex value with one other entry in the list. Which one?"
    answer, kind = ask_scripted(q, SHADES, "str")
    assert not (kind == "submitted" and answer != "shade_lake")
