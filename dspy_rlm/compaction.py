"""Keeping the action prompt inside the LM's context window: a history processor hook and a default compaction.

``RLM(..., history_processor=fn)``: ``fn(history: REPLHistory) -> REPLHistory`` is applied to the REPL history
before every action call (the shape dspy issue #10334 / PR #10387 propose). What it returns is the history
*shown* to the model; the run keeps the full history (the trajectory, checkpoints). A processor that raises or
returns something other than a ``REPLHistory`` is skipped for that step with a trace warning.

The default compaction (:func:`compact`) runs when the estimated prompt passes ``compact_at`` (85% by default)
of the LM's context window (:func:`context_window`: ``context_window=``, else a local model's ``n_ctx``, else
LiteLLM's ``max_input_tokens``). It summarises old steps: their code, the outputs of steps that failed and of
steps that tried to submit stay verbatim, the other outputs and reasoning of old steps are shortened to their
head and tail; the last steps stay whole. An LM that still refuses the prompt (``ContextWindowExceededError``:
LiteLLM's, DSPy's, or a local engine's ``PromptTooLong``) makes the run compact one level harder and retry.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from dspy.primitives.repl_types import REPLEntry, REPLHistory

logger = logging.getLogger(__name__)

#: ``history_processor``'s type: the REPL history in, the history to show the model out.
HistoryProcessor = Callable[[REPLHistory], REPLHistory]

#: The share of the context window past which the default compaction runs.
DEFAULT_COMPACT_AT = 0.85


@dataclass(frozen=True)
class Level:
    """How hard one compaction level shortens: steps kept whole, characters kept of older outputs / reasoning."""

    keep_recent: int
    output_chars: int
    reasoning_chars: int
    merge: bool = False  # the last level: all older steps in one entry (code and errors only)


LEVELS = (Level(4, 400, 200), Level(2, 160, 80), Level(1, 60, 0), Level(1, 0, 0, merge=True))


def shorten(text: str, limit: int) -> str:
    """``text`` cut to its head and tail (``limit`` characters in all), saying how much was left out."""
    if len(text) <= limit:
        return text
    if limit <= 0:
        return f"[{len(text):,} chars compacted]"
    head = limit // 2
    return f"{text[:head]} [... {len(text) - limit:,} chars compacted ...] {text[len(text) - (limit - head) :]}"


def compact(history: REPLHistory, level: int = 0, keep: Iterable[int] = (), dropped: int = 0) -> REPLHistory:
    """The history with its old steps summarised.

    Args:
        history: The REPL history.
        level: An index of :data:`LEVELS` (0: gentlest).
        keep: Indexes of entries whose output stays verbatim (steps that failed or tried to submit).
        dropped: At the last level, how many of the oldest steps are left out altogether (when even their code
            does not fit).
    """
    lvl = LEVELS[min(level, len(LEVELS) - 1)]
    entries = list(history.entries)
    cut = max(len(entries) - lvl.keep_recent, 0)
    if cut == 0:
        return history
    dropped = min(dropped, cut) if lvl.merge else 0
    protected = set(keep)
    old = [
        REPLEntry(
            reasoning=shorten(e.reasoning, lvl.reasoning_chars),
            code=e.code,
            output=e.output if i in protected or _submits(e.code) else shorten(e.output, lvl.output_chars),
        )
        for i, e in enumerate(entries[:cut])
    ]
    if lvl.merge:  # the last resort: even kept outputs are cut to their first 300 characters
        rest = list(enumerate(old))[dropped:]
        code = "\n".join(f"# step {i + 1}\n{e.code}" for i, e in rest if e.code.strip())
        kept = "\n".join(
            f"step {i + 1}: {shorten(e.output, 300)}" for i, e in rest if i in protected or _submits(e.code)
        )
        note = f"Steps {dropped + 1}-{cut} compacted to their code (the variables they set still exist)."
        if dropped:
            note = f"Steps 1-{dropped} left out. " + note
        old = [REPLEntry(reasoning="", code=code, output=f"{note}\n{kept}".strip())]
    return REPLHistory(entries=old + entries[cut:], max_output_chars=history.max_output_chars)


def repeated(history: REPLHistory) -> REPLHistory:
    """The history with a step that repeats an earlier one (the same code, the same output) shown by reference:
    a small model that peeks at the same span four times sent the extraction its output four times."""
    seen: dict[tuple[str, str], int] = {}
    entries = []
    for i, e in enumerate(history.entries):
        first = seen.setdefault((e.code, e.output), i)
        same = first != i and len(e.output) > 80
        entries.append(
            REPLEntry(reasoning=e.reasoning, code=e.code, output=f"(the same output as step {first + 1})")
            if same
            else e
        )
    return REPLHistory(entries=entries, max_output_chars=history.max_output_chars)


def _submits(code: str) -> bool:
    return any(name in code for name in ("SUBMIT", "FINAL"))


def context_window(lm: Any, configured: int | None = None) -> int | None:
    """The LM's context window in tokens: ``configured``, else a local engine's ``n_ctx``, else LiteLLM's
    ``max_input_tokens`` for the model; None when unknown (no threshold compaction then)."""
    if configured is not None:
        return configured
    engine = getattr(lm, "engine", None)
    n_ctx = getattr(engine, "n_ctx", None)
    if isinstance(n_ctx, int) and n_ctx > 0:
        return n_ctx
    if not _litellm_model(lm):
        return None
    try:
        import litellm

        info = litellm.model_cost.get(lm.model) or litellm.model_cost.get(lm.model.split("/", 1)[-1]) or {}
    except Exception:  # noqa: BLE001 - LiteLLM absent or broken: no window
        return None
    window = info.get("max_input_tokens") or info.get("max_tokens")
    return int(window) if window else None


def _litellm_model(lm: Any) -> bool:
    """A ``dspy.LM`` served through LiteLLM (not a custom engine such as OutlinesLM's): only then is LiteLLM,
    which such an LM imports anyway, asked for the window."""
    import dspy

    return isinstance(lm, dspy.LM) and isinstance(getattr(lm, "engine", "auto"), str) and isinstance(lm.model, str)


def token_counter(lm: Any) -> Callable[[str], int]:
    """Tokens of a text for ``lm``: its own tokenizer when it has one (``OutlinesLM.count_tokens``), else a
    conservative estimate of 3 characters a token."""
    count = getattr(lm, "count_tokens", None)
    if callable(count):
        return count
    return lambda text: len(text) // 3 + 1


def is_context_overflow(exc: BaseException) -> bool:
    """Whether ``exc`` (or an exception it was raised from) says the prompt is longer than the LM's window."""
    from dspy import lm15
    from dspy.utils.exceptions import ContextWindowExceededError

    kinds: tuple[type, ...] = (ContextWindowExceededError, lm15.ContextLengthError)
    litellm = sys.modules.get("litellm")  # imported by whoever raised its error; never imported here (slow)
    if isinstance(getattr(litellm, "ContextWindowExceededError", None), type):
        kinds += (litellm.ContextWindowExceededError,)  # type: ignore[union-attr]
    seen: set[int] = set()
    node: BaseException | None = exc
    while node is not None and id(node) not in seen:
        if isinstance(node, kinds):
            return True
        seen.add(id(node))
        node = node.__cause__ or node.__context__
    return False


class Compactor:
    """One run's history processing: the user's processor, then the default compaction past the threshold.

    Args:
        processor: The user's ``history_processor`` (None: none).
        window: The LM's context window in tokens (None: unknown; only a refused prompt compacts).
        compact_at: The share of ``window`` past which the default compaction runs.
        reserve: Tokens the completion needs (the LM's ``max_tokens``): the prompt stays under
            ``window - reserve`` too.
        count: Tokens of a text.
        warn: Records a warning in the run's trace.
    """

    def __init__(
        self,
        processor: HistoryProcessor | None,
        window: int | None,
        compact_at: float,
        count: Callable[[str], int],
        warn: Callable[[str], None],
        reserve: int = 0,
    ):
        self.processor, self.window, self.compact_at, self.reserve = processor, window, compact_at, reserve
        self.count, self.warn = count, warn
        self.overhead = 0  # what the adapter's markup adds to the counted text, learnt from the LM's usage
        self.floor = -1  # the least level every later step compacts at (raised by a refused prompt)
        self.events: list[dict[str, Any]] = []  # one per compacted step: tokens before / after, level, seconds

    @property
    def limit(self) -> int | None:
        """The most prompt tokens a step may send."""
        if self.window is None:
            return None
        return min(int(self.window * self.compact_at), self.window - self.reserve)

    def observe(self, counted: int, actual: int) -> None:
        """Learn the prompt's markup from one call: ``counted`` tokens of text were ``actual`` prompt tokens."""
        if actual > 0 and counted > 0:
            self.overhead = max(self.overhead, actual - counted)

    def measure(self, estimate: Callable[[REPLHistory], int], history: REPLHistory) -> int:
        return estimate(history) + self.overhead

    def process(self, history: REPLHistory) -> REPLHistory:
        """The user's processor applied; its exception or a result of the wrong type leaves ``history`` as is."""
        if self.processor is None:
            return history
        try:
            shown = self.processor(history)
        except Exception as exc:  # noqa: BLE001 - the user's hook must not end the run
            self.warn(f"history_processor raised {type(exc).__name__}: {exc}; the unprocessed history was used")
            return history
        if not isinstance(shown, REPLHistory):
            self.warn(
                f"history_processor returned {type(shown).__name__}, not a REPLHistory; the unprocessed history "
                "was used (return a REPLHistory, e.g. REPLHistory(entries=[...]))"
            )
            return history
        return shown

    def fit(self, history: REPLHistory, estimate: Callable[[REPLHistory], int], keep: Iterable[int]) -> REPLHistory:
        """The history to show: processed, then compacted from the floor level up until ``estimate`` of the
        prompt is under the limit (or the levels run out)."""
        import time

        shown = self.process(history)
        limit = self.limit
        if self.floor < 0 and limit is None:
            return shown
        t0 = time.perf_counter()
        before = self.measure(estimate, shown)
        if self.floor < 0 and before <= (limit or 0):
            return shown
        keep = list(keep)
        last = len(LEVELS) - 1
        level, tokens, compacted = min(max(self.floor, 0), last), before, shown
        while True:
            compacted = compact(shown, level, keep)
            tokens = self.measure(estimate, compacted)
            if (limit is not None and tokens <= limit) or (limit is None and level >= self.floor):
                break
            if level >= last:
                break
            level += 1
        if level == last and (self.floor > last or (limit is not None and tokens > limit)):
            compacted, tokens = self._drop(shown, keep, estimate, limit)
        if not self.events or self.events[-1]["level"] != level:
            self.warn(f"history compacted (level {level}): about {before} -> {tokens} prompt tokens")
        self.events.append(
            {"level": level, "tokens_before": before, "tokens_after": tokens, "seconds": time.perf_counter() - t0}
        )
        return compacted

    def _drop(
        self, shown: REPLHistory, keep: list[int], estimate: Callable[[REPLHistory], int], limit: int | None
    ) -> tuple[REPLHistory, int]:
        """The last level, leaving out the oldest steps until the prompt fits (a quarter more of them for each
        refusal past the last level)."""
        n = len(shown)
        drop = int(n * 0.25 * max(self.floor - (len(LEVELS) - 1), 0))
        while True:
            compacted = compact(shown, len(LEVELS) - 1, keep, dropped=drop)
            tokens = self.measure(estimate, compacted)
            if (limit is None or tokens <= limit) or drop >= n:
                return compacted, tokens
            drop = max(drop * 2, drop + 1)

    def refused(self) -> bool:
        """The LM refused a prompt as too long: compact harder from now on. False when nothing is left to
        leave out."""
        if self.floor >= len(LEVELS) + 3:  # past the last level: a quarter more of the old steps left out each
            return False
        self.floor += 1
        return True


def prompt_text(kwargs: dict[str, Any], signature: Any, history: REPLHistory) -> str:
    """The text of an action prompt built from ``kwargs`` with ``history`` shown (what :class:`Compactor`
    counts: instructions, demos and every input; the adapter's field markup is left to the threshold's margin)."""
    parts = [str(getattr(kwargs.get("signature", signature), "instructions", "") or "")]
    parts += [str(d) for d in kwargs.get("demos", ()) or ()]
    for name, value in kwargs.items():
        if name in ("signature", "demos", "config", "lm"):
            continue
        parts.append(history.format() if name == "repl_history" else str(value))
    return "\n".join(parts)


def for_run(config: Any, lm: Any, warn: Callable[[str], None]) -> Compactor:
    """The :class:`Compactor` of a run on ``lm`` configured by ``config`` (a RunConfig)."""
    window = context_window(lm, config.context_window)
    reserve = (getattr(lm, "kwargs", None) or {}).get("max_tokens") or 0
    if window is not None:
        reserve = min(int(reserve), window // 2)
    return Compactor(config.history_processor, window, config.compact_at, token_counter(lm), warn, int(reserve))


class RunFit:
    """What one run's prompts show of its history (the run loop holds one): the run's :class:`Compactor`,
    made at the first step for the action LM, fed with the run's history and which steps failed."""

    def __init__(self, run: Any):
        self.run = run
        self._compactor: Compactor | None = None

    @property
    def compactor(self) -> Compactor:
        if self._compactor is None:
            import dspy

            run = self.run
            lm = getattr(run.predictors.action, "lm", None) or dspy.settings.lm
            self._compactor = for_run(run.config, lm, run.trace.warn)
        return self._compactor

    def _failed(self) -> list[int]:
        """Indexes of the history entries whose step failed (an error, or no code ran): kept verbatim."""
        run = self.run
        return [
            i
            for i, r in enumerate(run.trace.iterations[: len(run.history)])
            if any(e.error for e in r.code_executions) or not r.code_executions
        ]

    def counted(self, kwargs: dict[str, Any]) -> int:
        """Tokens of the action prompt's text as compaction counts them (no markup; 0 without a window)."""
        comp, sig = self.compactor, getattr(self.run.predictors.action, "signature", None)
        return comp.count(prompt_text(kwargs, sig, kwargs["repl_history"])) if comp.window else 0

    def action(self, kwargs: dict[str, Any]) -> REPLHistory:
        """The history the action prompt built from ``kwargs`` shows."""
        comp, sig = self.compactor, getattr(self.run.predictors.action, "signature", None)
        shown = repeated(self.run.history)
        return comp.fit(shown, lambda h: comp.count(prompt_text(kwargs, sig, h)), self._failed())

    def extraction(self) -> REPLHistory:
        """The history the fallback extraction's prompt shows."""
        comp, info = self.compactor, self.run.variables_info
        shown = repeated(self.run.history)  # the same peek four times is shown once
        return comp.fit(shown, lambda h: comp.count(info + "\n" + h.format()), self._failed())
