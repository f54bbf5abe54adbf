"""A table whose columns have no names (a services list: ``gopherd  7070/tcp``) and a question asking a number as
a value ("which port number does gopherd use?"): the one column of numbers is the field asked, and of a number
with a unit after a slash the number is the answer (the next column after the key was a guess, ``7070/tcp``).
A count, or a table with two columns of numbers, names no column so. Each test of the new reading fails on the
code before its change."""

from __future__ import annotations

from dspy_rlm.library import structure as st
from dspy_rlm.profiles.number_column import asks_number, number_column
from tests.dspy_rlm.scripted import ask_scripted

SERVICES = """# Network services of the kiln studio, by name.
# Each line: a service name, its port and protocol, then any aliases.

kilnctl\t\t7001/tcp\t\t\t# kiln controller
kilnctl\t\t7001/udp
glazedb\t\t7020/tcp\tglaze-db\t# glaze catalogue database
gopherd\t\t7070/tcp\t\t\t# studio gopher pages
pyrometer\t7111/udp\tpyro\t\t# temperature feed
firelog\t\t7150/tcp
shelfsync\t7202/tcp\tshelves\t\t# shelf inventory sync
ventfan\t\t7303/udp\t\t\t# vent fan control
"""

TWO_NUMBERS = """# Kiln firing cones: name, cone number, temperature in C
cone-022\t022\t586
cone-06\t06\t999
cone-04\t04\t1063
cone-6\t6\t1222
cone-10\t10\t1305
"""


def test_a_number_asked_of_an_unnamed_table_reads_its_one_column_of_numbers():
    assert ask_scripted("Which port number does the gopherd service use?", SERVICES) == ("7070", "submitted")
    assert ask_scripted("What port number is pyrometer given?", SERVICES, "int") == (7111, "submitted")


def test_a_count_or_two_columns_of_numbers_name_no_column():
    services, cones = st.detect(SERVICES), st.detect(TWO_NUMBERS)
    assert services.kind == "table" and number_column("Which port number does firelog use?", services) == ["col2"]
    assert not asks_number("What is the number of services listed?")
    assert not asks_number("How many port numbers does kilnctl use?")
    assert number_column("How many port numbers does kilnctl use?", services) == []
    assert cones.kind == "table" and number_column("What cone number is cone-6?", cones) == []
