"""A table whose columns have no names (a services list: ``gopherd  7070/tcp``) and a question asking a number as
a value ("which port number does gopherd use?"): the one column of numbers is the field asked, and of a number
with a unit after a slash the number is the answer (the next column after the key was a guess, ``7070/tcp``).
A count, or a table with two columns of numbers, names no column so; the words "port number" key no record.
Each test of the new reading fails on the code before its change."""

from __future__ import annotations

from dspy_rlm.library import structure as st
from dspy_rlm.profiles.number_column import asks_number, number_column
from tests.dspy_rlm.scripted import ask_scripted

SERVICES = """# Network services of the kiln studio, by name.
# Each line: a service name, its port and protocol, then any aliases.

kilnctl         7001/tcp              # kiln controller
kilnctl         7001/udp
glazedb         7020/tcp    glaze-db  # glaze catalogue database
gopherd         7070/tcp              # studio gopher pages
pyrometer       7111/udp    pyro      # temperature feed
firelog         7150/tcp
shelfsync       7202/tcp    shelves   # shelf inventory sync
ventfan         7303/udp              # vent fan control
kiln-port       7400/tcp              # legacy serial port bridge
glaze-port      7401/tcp    gport
benchd          7402/udp              # bench control port
kiosk           7410/tcp              # front desk port service
studio01        7501/tcp              # studio bench 1
studio02        7502/tcp              # studio bench 2
studio03        7503/tcp              # studio bench 3
studio04        7504/tcp              # studio bench 4
studio05        7505/tcp              # studio bench 5
studio06        7506/tcp              # studio bench 6
studio07        7507/tcp              # studio bench 7
studio08        7508/tcp              # studio bench 8
studio09        7509/tcp              # studio bench 9
studio10        7510/tcp              # studio bench 10
studio11        7511/tcp              # studio bench 11
studio12        7512/tcp              # studio bench 12
""" + "".join(f"bench{i:02d}          {7600 + i}/tcp              # kiln bench {i}\n" for i in range(40))

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


def test_the_number_phrase_is_no_key_phrase():
    from dspy_rlm.profiles.moves import MoveBook

    question = "One entry carries the alias pyro. What port number is that service on?"
    book = MoveBook({"question": question}, {"context": SERVICES}, {"answer": str})
    keys = sorted(k.text for k in book.keys["context"])
    assert keys == ["pyro", "service"] and book.fields["context"] == ["col2"]  # no "port": 4 names hold it
