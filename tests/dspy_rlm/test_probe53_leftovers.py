"""Wrong Submits the mends of probe 53 left (and one of probe 16's, the host check's), on invented data: "a method whose
*output argument* is called 'started'. What is *its input argument* named?" asks a second record (the method's
other argument), which the read of the first argument's ``method`` field does not give; a field's name answers
"which *property* is typed 'as'" only where the text writes no <property> elements the record read is not; and "what
*date format* does the formatter ... have?" asks for ``datefmt``, which says both words, not ``formatter`` nor
``format``. Each test fails on the code before its change."""

from __future__ import annotations

from types import SimpleNamespace

from dspy_rlm.profiles.asked_noun import says_whole
from dspy_rlm.profiles.chains import chained
from tests.dspy_rlm.scripted import ask_scripted, read_candidates, run_scripted
from tests.dspy_rlm.test_probe53_shapes import INTERFACE


def test_its_other_argument_is_a_second_step():
    q = "There's a kiln method whose output argument is called 'started'. What is its input argument named?"
    pred = run_scripted(q, INTERFACE)
    assert pred.rlm_result.kind == "extracted"  # 'Fire' (the method the first argument names) is no answer
    assert "the question asks a second step ('its input argument')" in pred.rlm_result.notes


def test_its_own_field_is_one_step():
    for q in (
        "The kiln service whose port is 80. What is its default port?",  # the found record's own field
        "The component whose description is 'kiln daemon'. What is its version?",
        "Look up Fire in kiln.xml and tell me its cone argument.",
    ):
        assert chained(SimpleNamespace(text_q=q, memo={})) is None, q


PROPERTIES = """<node name="/">
  <interface name="org.kiln.Daemon">
    <property name="Cones" type="as" access="read">
      <doc:doc><doc:para>The cones it knows.</doc:para></doc:doc>
    </property>
    <property name="Temperature" type="u" access="read">
      <doc:doc><doc:para>The temperature now.</doc:para></doc:doc>
    </property>
    <method name="Fire">
      <arg type="u" name="cone" direction="in">
        <doc:doc><doc:summary><doc:para>The cone to fire to.</doc:para></doc:summary></doc:doc>
      </arg>
      <arg type="b" name="started" direction="out">
        <doc:doc><doc:summary><doc:para>Whether the firing started.</doc:para></doc:summary></doc:doc>
      </arg>
    </method>
    <method name="Load">
      <arg type="as" name="pieces" direction="in">
        <doc:doc><doc:summary><doc:para>The names of the pieces to load.</doc:para></doc:summary></doc:doc>
      </arg>
      <arg type="u" name="count" direction="out">
        <doc:doc><doc:summary><doc:para>How many were loaded.</doc:para></doc:summary></doc:doc>
      </arg>
    </method>
    <method name="Status">
      <arg type="s" name="state" direction="out">
        <doc:doc><doc:summary><doc:para>The kiln's state.</doc:para></doc:summary></doc:doc>
      </arg>
    </method>
    <method name="Vent">
      <arg type="u" name="seconds" direction="in">
        <doc:doc><doc:summary><doc:para>How long to vent.</doc:para></doc:summary></doc:doc>
      </arg>
    </method>
    <method name="History">
      <arg type="u" name="limit" direction="in">
        <doc:doc><doc:summary><doc:para>How many firings to return.</doc:para></doc:summary></doc:doc>
      </arg>
      <arg type="a{sv}" name="firings" direction="out">
        <doc:doc><doc:summary><doc:para>The firings.</doc:para></doc:summary></doc:doc>
      </arg>
    </method>
    <method name="Schedule">
      <arg type="s" name="name" direction="in">
        <doc:doc><doc:summary><doc:para>The schedule's name.</doc:para></doc:summary></doc:doc>
      </arg>
      <arg type="o" name="path" direction="out">
        <doc:doc><doc:summary><doc:para>The schedule object.</doc:para></doc:summary></doc:doc>
      </arg>
    </method>
  </interface>
</node>
"""


def _field_names(question: str, text: str) -> list:
    """The field-name candidates of every record read the move book offers on ``text``."""
    return [c for c in read_candidates(question, text, "record") if c.label == "field name"]


def test_a_field_of_another_element_is_no_property_the_text_writes_as_elements():
    q = "Which kiln D-Bus property is typed 'as' (an array of strings)?"
    [found] = _field_names(q, PROPERTIES)  # the 'pieces' <arg>'s field, not a <property>
    assert (found.value, found.supported, found.why) == (
        "type",
        False,
        "the text's <property> elements are what it calls a property",
    )
    [found] = _field_names(q, PROPERTIES.replace("property", "signal"))  # no <property> elements: a field is one
    assert (found.value, found.supported) == ("type", True)


LOGGING = """[loggers]
keys = root,kiln

[handlers]
keys = console,logfile

[formatters]
keys = plain,stamped

[logger_root]
level = WARN
handlers = console

[logger_kiln]
level = INFO
handlers = logfile
qualname = kiln

[handler_console]
class = StreamHandler
args = (sys.stderr,)
level = NOTSET
formatter = stamped

[handler_logfile]
class = FileHandler
args = ('kiln.log',)
level = INFO
formatter = plain

[formatter_plain]
format = %(levelname)s %(message)s

[formatter_stamped]
format = %(asctime)s %(levelname)s %(message)s
datefmt = %d/%m %H:%M
"""


def test_a_noun_a_field_says_whole_is_asked_of_that_field():
    q = "What date format does the formatter used by the console handler have?"
    assert ask_scripted(q, LOGGING) == ("%d/%m %H:%M", "submitted")  # datefmt, not the formatter's name nor format
    assert ask_scripted("Which formatter does the console handler use?", LOGGING) == ("stamped", "submitted")
    assert says_whole(["date", "format"], "datefmt") and says_whole(["restart", "delay"], "RestartDelaySec")
    assert not says_whole(["date", "format"], "formatter") and not says_whole(["date", "format"], "format")
