"""Shapes from probe 53's first run, on invented data: a Markdown page's front matter line ``description: ...`` states
its whole rest, not the word after the colon; a field named with its unit (``RestartSec``) is named by the words
before the unit ("the restart delay"); and the particle of "leave *out* the .Extra one" is no value to count by (an
argument's direction ``out``), and "leave out" is a test no count applies; "when you don't give it one" asks the
default, no negation. Each test fails on the code before its change."""

from __future__ import annotations

from tests.dspy_rlm.scripted import ask_scripted, run_scripted

PAGE = """---
title: kiln-fire
section: 1
description: Fire the kiln at a set cone
---

### Synopsis

```bash
kiln-fire [--cone <n>] [--hold <minutes>]
```

### Description

This command heats the kiln to the cone you give and holds it there. The
default cone is 6, and the hold lasts ten minutes unless you say otherwise.
It reads the kiln's controller over the serial line and reports each step
of the firing schedule as it goes, so that you can watch the climb.

When the target is reached the kiln is held at temperature for the hold
time, then left to cool on its own. Opening the lid before it has cooled
below the safe mark is refused unless you pass the force flag, which you
should only do when you know what is inside and how it will take the shock.

### Configuration

The firing schedule is read from the kiln's own settings first, then from
the file in your home directory, and last from the command line, each one
overriding the one before it. A schedule that names no cone fires to the
default cone, and one that names no hold uses the default hold time.

### See Also

* kiln-cool
* kiln-status
"""

UNIT = """[Unit]
Description=Kiln firing daemon
After=network.target

[Service]
Type=notify
ExecStart=/usr/bin/kilnd --foreground
RestartSec=15
TimeoutStopSec=90
User=potter
Group=kiln
"""

INTERFACE = """<!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
"http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
<node name="/">
  <interface name="org.kiln.Daemon">
    <method name="Fire">
      <arg type="u" name="cone" direction="in"/>
      <arg type="b" name="started" direction="out"/>
    </method>
    <method name="Stop">
      <arg type="b" name="stopped" direction="out"/>
    </method>
    <method name="Status">
      <arg type="s" name="state" direction="out"/>
    </method>
    <method name="Cool"/>
  </interface>
  <interface name="org.kiln.Daemon.Extra">
    <method name="Vent">
      <arg type="u" name="seconds" direction="in"/>
    </method>
  </interface>
</node>
"""


def test_a_front_matter_line_states_its_whole_rest():
    q = "What description does the front matter of kiln-fire.md give?"
    assert ask_scripted(q, PAGE) == ("Fire the kiln at a set cone", "submitted")


def test_a_field_named_with_its_unit_is_named_by_the_words_before_it():
    assert ask_scripted("What restart delay does the kiln service use?", UNIT) == ("15", "submitted")
    assert ask_scripted("What stop timeout is set for the kiln service?", UNIT) == ("90", "submitted")


def test_the_particle_of_leave_out_is_no_value_to_count_by():
    q = "Count the methods declared on the org.kiln.Daemon interface (leave out the .Extra one)."
    pred = run_scripted(q, INTERFACE, "int")
    codes = [str(step.get("code", "")) for step in pred.trajectory]
    assert not any("'out'" in c for c in codes), codes  # no count of the arguments whose direction is out
    assert pred.rlm_result.kind == "extracted"  # 5 counts Extra's method too: "leave out" is no test it applies
    assert "no read tests the question's 'leave out'" in pred.rlm_result.notes


KILN = """[kiln]
default_cone = 6
max_cone = 10
hold_minutes = 10
controller = serial
"""


def test_when_you_do_not_give_one_asks_the_default():
    q = "Which cone does the kiln fire to when you don't give it one?"
    assert ask_scripted(q, KILN) == ("6", "submitted")  # no negation a read must apply
