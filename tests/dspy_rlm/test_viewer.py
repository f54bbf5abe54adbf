"""The HTML trace viewer: self-contained, XSS-safe, and rendered by a real browser (headless Chromium)."""

from __future__ import annotations

import re
import shutil
import subprocess

import dspy
import pytest

from dspy_rlm import RLM, InProcessREPL
from dspy_rlm.viewer import render_html, write_html
from tests.dspy_rlm.scripted_lm import ScriptedLM, action, fields

# If any of this ran, it would mark <body>; the browser test checks it never does.
EVIL = (
    "<script>document.body.setAttribute('data-pwned','1')</script>"
    "<img src=x onerror=\"document.body.setAttribute('data-pwned','2')\">"
)
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


@pytest.fixture(scope="module")
def trace():
    def respond(call):
        if call.role == "llm":
            return EVIL + " sub answer"
        if call.role == "extract":
            return fields(answer="x")
        if call.role == "sub":
            return action("SUBMIT(answer=llm_query('inner'))")
        if call.iteration == 1:
            return action(f"print({EVIL!r})\ny = 1 / 0", reasoning="look " + EVIL)
        if call.iteration == 2:
            return action("parts = batch_rlm_query(['part A', 'part B'])\nprint(parts)")
        return action("SUBMIT(answer=' | '.join(parts))")

    rlm = RLM("question -> answer", max_depth=1, interpreter_factory=InProcessREPL)
    with dspy.context(lm=ScriptedLM(respond, prompt_tokens=100, completion_tokens=20, cost=0.002)):
        return rlm(question="What is in " + EVIL).trace


def test_html_is_self_contained_and_escaped(trace):
    page = render_html(trace)
    assert "<script>document.body" not in page and "<img src=x" not in page
    assert "\\u003cscript\\u003edocument.body" in page  # the data survives, escaped inside JSON
    assert not re.search(r"(src|href)=[\"']?(https?:)?//", page), "no network resources"
    assert page.count("<script") == 2  # the JSON data and the inline viewer
    assert render_html(trace.to_json()) == page == render_html(trace.to_dict())


def _chromium(*args: str, tmp_path) -> str:
    cmd = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'profile'}",
        *args,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=90, check=True).stdout


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (Debian: apt-get install chromium)")
def test_browser_renders_tree_iterations_and_budget(trace, tmp_path):
    path = write_html(trace, tmp_path / "trace.html")
    dom = _chromium("--dump-dom", "--virtual-time-budget=5000", f"{path.as_uri()}#expand", tmp_path=tmp_path)
    assert 'data-rendered="true"' in dom, "the viewer script did not run"
    nodes = re.findall(r'<details class="node [^"]*"[^>]*data-id="([0-9a-f]+)"', dom)
    assert sorted(nodes) == sorted(n.id for n in trace.walk())
    assert len(re.findall(r'<details class="iteration"', dom)) == sum(len(n.iterations) for n in trace.walk())
    assert dom.count('class="budget-row"') == sum(len(n.iterations) for n in trace.walk())
    assert "ZeroDivisionError" in dom and "batch_rlm_query" in dom and "part A" in dom
    # model text is shown as text, never as markup, and never ran
    assert "&lt;script&gt;document.body.setAttribute('data-pwned','1')&lt;/script&gt;" in dom
    assert "<img" not in dom
    body = re.search(r"<body[^>]*>", dom).group(0)
    assert "data-pwned" not in body and 'data-rendered="true"' in body
    shot = tmp_path / "trace.png"
    _chromium(f"--screenshot={shot}", "--window-size=1200,900", path.as_uri(), tmp_path=tmp_path)
    assert shot.stat().st_size > 10_000


def _visible_text(page: str) -> str:
    """The text a browser without JavaScript shows: everything outside <script> elements."""
    from html.parser import HTMLParser

    class Text(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.parts: list[str] = []
            self.skip = 0

        def handle_starttag(self, tag, attrs):
            self.skip += tag in ("script", "style")

        def handle_endtag(self, tag):
            self.skip -= tag in ("script", "style")

        def handle_data(self, data):
            if not self.skip:
                self.parts.append(data)

    parser = Text()
    parser.feed(page)
    return " ".join(" ".join(parser.parts).split())


def test_without_javascript_the_page_shows_the_answer_ending_and_steps(trace):
    text = _visible_text(render_html(trace))
    assert "Answer answer" in text and "sub answer" in text  # the answer (model text, escaped)
    assert f"result: {trace.result_kind}" in text and f"{len(trace.iterations)} steps" in text
    assert "step 1" in text and "ZeroDivisionError" in text and "batch_rlm_query" in text
    page = render_html(trace)
    assert "<script>document.body" not in page.split('id="trace-data"')[0]  # escaped in the summary too


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (Debian: apt-get install chromium)")
def test_with_javascript_the_viewer_replaces_the_static_summary(trace, tmp_path):
    # (--dump-dom itself needs JavaScript, so the no-JS view is checked by parsing above)
    path = write_html(trace, tmp_path / "trace.html")
    dom = _chromium("--dump-dom", "--virtual-time-budget=5000", path.as_uri(), tmp_path=tmp_path)
    assert 'id="summary"' not in dom and 'data-rendered="true"' in dom
