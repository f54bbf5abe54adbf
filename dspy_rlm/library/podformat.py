"""Perl's POD (plain old documentation) read as the markdown it stands for, line for line: ``=head1`` ...
``=head4`` a ``#`` heading, ``=item`` a ``- `` list item (its ``*`` or number left out), the other commands
(``=over``, ``=back``, ``=cut``, ``=for`` ...) blank lines, and the formatting codes written out (``B<bold>``,
``C<< code >>``, ``L<text|link>`` its text, ``E<lt>`` its character; a program's lines between ``=cut`` and the
next command left as they are). The markdown is then read as any text is.
Read as lines, a command was a line of its own, ``=head2 name`` no heading over the paragraphs under it. Only
where five lines or more are POD commands, two of them headings. Stdlib only:
:func:`dspy_rlm.library.helpers.standalone_source` inlines it."""

import re

_POD_COMMAND = re.compile(r"=(head[1-4]|item|over|back|cut|pod|for|begin|end|encoding)\b[ \t]*(.*)$")
_POD_CODE = re.compile(r"[BICFSXZLE](?:<<+\s(.*?)\s>>+|<([^<>]*)>)")
_POD_ESCAPES = {"lt": "<", "gt": ">", "verbar": "|", "sol": "/", "quot": '"', "amp": "&", "apos": "'"}


def looks_pod(sample: list[str]) -> bool:
    """Whether the lines are POD: five commands or more at a line's start, two of them headings, and nine in ten
    of the other lines inside POD (a module's code between ``=cut`` and the next command: a program)."""
    found, inside, code = [], False, 0
    for ln in sample:
        m = _POD_COMMAND.match(ln) if ln.startswith("=") else None
        if m is not None:
            found.append(m.group(1))
            inside = m.group(1) != "cut"
        elif ln.strip() and not inside:
            code += 1
    prose = sum(1 for ln in sample if ln.strip()) - len(found)
    return len(found) >= 5 and sum(1 for c in found if c.startswith("head")) >= 2 and code * 10 <= prose


def _pod_text(text: str) -> str:
    """``text`` with its formatting codes written out, innermost first."""
    for _ in range(5):
        done = _POD_CODE.sub(_pod_code, text)
        if done == text:
            break
        text = done
    return text


def _pod_code(m: re.Match[str]) -> str:
    inner = m.group(1) if m.group(1) is not None else m.group(2)
    code = m.group(0)[0]
    if code in "XZ":
        return ""
    if code == "E":
        return _POD_ESCAPES.get(inner, chr(int(inner, 0)) if inner.isdigit() else inner)
    if code == "L":
        return inner.split("|", 1)[0] if "|" in inner else inner.strip('/"')
    return inner


def pod_markdown(lines: list[str]) -> list[str]:
    """The lines as markdown (see the module doc), as many as were given."""
    out, inside = [], False
    for ln in lines:
        m = _POD_COMMAND.match(ln) if ln.startswith("=") else None
        inside = (m.group(1) != "cut") if m is not None else inside  # code between =cut and the next command
        if m is None:
            out.append(ln if not inside or ln[:1] in (" ", "\t") else _pod_text(ln))  # verbatim lines as written
        elif m.group(1).startswith("head"):
            out.append("#" * int(m.group(1)[-1]) + " " + _pod_text(m.group(2)))
        elif m.group(1) == "item":
            item = re.sub(r"^(?:\*|\d+\.?)\s*", "", m.group(2))
            out.append("- " + _pod_text(item) if item else "")
        else:
            out.append("")
    return out
