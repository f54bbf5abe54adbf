"""OutlinesAdapter: ChatAdapter format, then unconstrained JSON, then constrained generation.

The tiers, in order, each tried only when the one before could not be parsed:

1. **tier1** - DSPy's ``ChatAdapter`` itself (``[[ ## field ## ]]`` markers), with DSPy's own
   JSON fallback switched off so that the tiers never recurse into each other.
2. **tier2** - JSON prompting (``JSONAdapter``'s prompt) *without* ``response_format``, parsed with
   json-repair and validated against the output fields.
3. **tier3** - constrained generation of *all* output fields (:mod:`dspy_outlines.tier3`): an Outlines
   output type in the request's ``Config.extensions`` for a local model (``OutlinesLM``, or any
   ``dspy.LM(engine=LocalEngine(...))``), the server's fields for a ``ServerLM``, or, for an API model, a
   JSON-schema ``response_format`` where the provider supports structured outputs.

Only an :class:`~dspy.utils.exceptions.AdapterParseError` moves on to the next tier. Anything else
(``ContextWindowExceededError``, provider errors, bugs) propagates at once: another prompt format
cannot fix it. Signatures with ``dspy.ToolCalls`` outputs stop after tier 2.

Routing learns per LM (:mod:`dspy_outlines.routing`): a tier that failed ``skip_after`` times in a row
for an LM is skipped for it (re-probed every ``reprobe_every`` skipping calls); with ``tiers="auto"``
an LM that constrains locally (``OutlinesLM``) starts at tier 3. Tier 3 output cut at ``max_tokens``
or at the deadline (:func:`dspy_outlines.contract.deadline_scope`) is a failure counted as ``truncated``,
never a repaired value. Once the deadline has passed, no further tier is tried.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import threading
import time
from collections.abc import Coroutine, Sequence
from typing import Any

from dspy.adapters.chat_adapter import ChatAdapter
from dspy.adapters.types.tool import ToolCalls
from dspy.clients.base_lm import BaseLM
from dspy.signatures.signature import Signature
from dspy.utils.callback import BaseCallback
from dspy.utils.exceptions import AdapterParseError

from dspy_outlines import seen, truncation
from dspy_outlines.constraints import TruncatedOutputError, check_term_constraints
from dspy_outlines.contract import accepts_constraint, current_deadline
from dspy_outlines.dspy_internal import DSPyVersionError, dspy_internal, dspy_internal_module
from dspy_outlines.routing import TierRouter
from dspy_outlines.tiers import MAX_NESTING, JSONTier, checked_parse, get_tier, tier_names

logger = logging.getLogger(__name__)

__all__ = ["MAX_NESTING", "TIERS", "ConstrainedGenerationUnavailableError", "OutlinesAdapter"]

#: The built-in tiers, the default ladder (:mod:`dspy_outlines.tiers` registers them; ``register_tier`` adds more).
TIERS = ("tier1", "tier2", "tier3")
_JSONTier = JSONTier  # the name tests and fuzzers import


class ConstrainedGenerationUnavailableError(RuntimeError):
    """Tier 3 was needed but the LM can neither take an Outlines constraint nor a JSON schema."""


def _fallback_scope():
    """DSPy's stream-progress scope (a visible streamed answer must not be replaced by a retry)."""
    try:
        scope = dspy_internal(dspy_internal_module("dspy.clients.call_context"), "adapter_fallback_scope")
    except DSPyVersionError:  # a DSPy without it: nothing is ever reported as emitted
        return contextlib.nullcontext(None)
    return scope()


def accepts_outlines_constraint(lm: BaseLM) -> bool:
    """Whether ``lm`` (or the DSPy engine it was built with) runs Outlines-constrained generation
    (:func:`dspy_outlines.contract.accepts_constraint`)."""
    return accepts_constraint(lm)


class OutlinesAdapter(ChatAdapter):
    """A ChatAdapter that falls back to unconstrained JSON, then to constrained generation.

    Use it as the configured adapter (``dspy.configure(adapter=OutlinesAdapter())``) or for one
    block (``with dspy.context(adapter=OutlinesAdapter()): ...``). Per-tier counts and latencies are
    in :attr:`metrics`; the adapter is safe to share between threads.

    Args:
        callbacks: DSPy callbacks, run for every tier's ``format``/``parse``.
        use_native_function_calling: As for ``ChatAdapter``.
        native_response_types: As for ``ChatAdapter``.
        parallel_tool_calls: As for ``ChatAdapter``.
        tiers: The tiers to try, in order (default all three). ``("tier3",)`` always generates
            constrained; ``("tier1", "tier2")`` never does. Benchmarks use one tier at a time.
            ``"auto"``: all three, and an LM that constrains locally (``accepts_outlines_constraint``,
            e.g. ``OutlinesLM``) starts at tier 3 (one call, always parseable).
        skip_after: A tier that failed to parse this many times in a row for an LM is skipped for that LM
            (``None``: never skip).
        reprobe_every: After this many calls that skipped a tier, one call tries the full ladder again
            (``None``: never).

    Raises:
        ValueError: ``tiers`` is empty or names an unknown tier; ``skip_after`` / ``reprobe_every`` is not a
            positive integer or ``None``.

    Example:
        >>> adapter = OutlinesAdapter()
        >>> with dspy.context(lm=OutlinesLM(), adapter=adapter):
        ...     dspy.Predict("review -> sentiment: Literal['pos', 'neg']")(review="Great!")
        >>> adapter.metrics["tier1"]["success"]
    """

    def __init__(
        self,
        callbacks: list[BaseCallback] | None = None,
        use_native_function_calling: bool = False,
        native_response_types: list[type] | None = None,
        parallel_tool_calls: bool | None = None,
        tiers: Sequence[str] | str = TIERS,
        skip_after: int | None = 3,
        reprobe_every: int | None = 10,
    ):
        auto = tiers == "auto"
        if auto:
            tiers = TIERS
        known = tier_names()
        unknown = [tier for tier in tiers if tier not in known] if not isinstance(tiers, str) else [tiers]
        if unknown or not tiers:
            raise ValueError(
                f"tiers must be 'auto' or a non-empty subset of {known} (dspy_outlines.tiers.register_tier adds "
                f"more), tried in that order; got {tiers!r}."
            )
        self.tiers = tuple(tier for tier in known if tier in tiers)
        self.router = TierRouter(skip_after=skip_after, reprobe_every=reprobe_every, auto=auto)
        super().__init__(
            callbacks=callbacks,
            use_native_function_calling=use_native_function_calling,
            native_response_types=native_response_types,
            use_json_adapter_fallback=False,  # tier 2 is ours: DSPy's fallback would recurse
            parallel_tool_calls=parallel_tool_calls,
        )
        self._lock = threading.Lock()
        self.reset_metrics()

    # -- fine-tuning data ------------------------------------------------------------------------

    def format_finetune_data(self, signature, demos, inputs, outputs):
        """A traced call as its LM saw it when the caller attached what Tier 3 noted (:mod:`dspy_outlines.seen`:
        the RLM's action steps), else ChatAdapter's formatting of the declared signature and demos."""
        noted = seen.conversation(outputs)
        return noted if noted is not None else super().format_finetune_data(signature, demos, inputs, outputs)

    # -- metrics -------------------------------------------------------------------------------

    def parse(self, signature, completion):
        """Tier 1: ChatAdapter's parse, any failure an :class:`AdapterParseError` (see :func:`checked_parse`)."""
        return checked_parse(super().parse, signature, completion)

    def _call_postprocess(self, processed_signature, original_signature, outputs, lm, lm_kwargs):
        truncation.note(lm, outputs)  # Tier 1's call was cut: counted in its metrics, parsed or not
        return super()._call_postprocess(processed_signature, original_signature, outputs, lm, lm_kwargs)

    def reset_metrics(self) -> None:
        """Set all per-tier counters and latency totals to zero."""
        with self._lock:
            self._metrics = {
                tier: {"success": 0, "failure": 0, "truncated": 0, "skipped": 0, "latency_s": 0.0}
                for tier in dict.fromkeys((*TIERS, *self.tiers))
            }

    @property
    def metrics(self) -> dict[str, Any]:
        """A snapshot of the per-tier metrics.

        ``{"tier1": {"success": n, "failure": n, "truncated": n, "skipped": n, "latency_s": seconds},
        "tier2": ..., "tier3": ..., "routing": {...}}``, plus flat keys ``tier1_success``, ``tier1_failures``,
        ``tier1_truncated``, ``tier1_skipped``, ``tier1_latency_s`` (and so on). ``truncated`` counts attempts
        whose LM output was cut at ``max_tokens`` or the deadline: at Tier 3 always a failure (also counted in
        ``failure``: a cut value is never repaired), at Tiers 1 and 2 parsed or not (DSPy's "LM response was
        truncated" warning; read from the LM's history, so not counted with history off); ``skipped`` counts
        calls routed past the tier. ``routing`` is the per-LM state (:meth:`TierRouter.snapshot`). A tier's
        latency total covers its successful and failed attempts.
        """
        with self._lock:
            snapshot: dict[str, Any] = {tier: dict(counts) for tier, counts in self._metrics.items()}
        for tier in list(snapshot):
            for key, flat in (
                ("success", "success"),
                ("failure", "failures"),
                ("truncated", "truncated"),
                ("skipped", "skipped"),
                ("latency_s", "latency_s"),
            ):
                snapshot[f"{tier}_{flat}"] = snapshot[tier][key]
        snapshot["routing"] = self.router.snapshot()
        return snapshot

    def _record(self, tier: str, ok: bool, started: float, truncated: bool = False) -> None:
        with self._lock:
            counts = self._metrics[tier]
            counts["success" if ok else "failure"] += 1
            counts["truncated"] += truncated
            counts["latency_s"] += time.perf_counter() - started

    def _record_skips(self, skipped: Sequence[str]) -> None:
        with self._lock:
            for tier in skipped:
                self._metrics[tier]["skipped"] += 1

    def __getstate__(self) -> dict[str, Any]:  # copy.deepcopy / pickle: a lock cannot be copied
        state = dict(self.__dict__)
        state.pop("_lock", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    # -- the tiers: one async core, a thin sync wrapper -----------------------------------------------

    def __call__(
        self,
        lm: BaseLM,
        lm_kwargs: dict[str, Any],
        signature: type[Signature],
        demos: list[dict[str, Any]],
        inputs: dict[str, Any],
    ) -> list[dict[str, Any]]:
        return _run_sync(self._run_tiers(lm, lm_kwargs, signature, demos, inputs, is_async=False))

    async def acall(
        self,
        lm: BaseLM,
        lm_kwargs: dict[str, Any],
        signature: type[Signature],
        demos: list[dict[str, Any]],
        inputs: dict[str, Any],
    ) -> list[dict[str, Any]]:
        return await self._run_tiers(lm, lm_kwargs, signature, demos, inputs, is_async=True)

    async def _run_tiers(
        self,
        lm: BaseLM,
        lm_kwargs: dict[str, Any],
        signature: type[Signature],
        demos: list[dict[str, Any]],
        inputs: dict[str, Any],
        is_async: bool,
    ) -> list[dict[str, Any]]:
        """Try each planned tier until one parses. On the sync path every tier call is synchronous, so nothing
        here suspends and :func:`_run_sync` runs it to the end in one step."""
        with _fallback_scope() as progress:
            deadline, planned = current_deadline(), self._plan(lm, signature)
            last_error: AdapterParseError | None = None
            for name in planned:
                if last_error is not None and deadline is not None and time.monotonic() >= deadline:
                    logger.debug("OutlinesAdapter: the call's deadline passed; not trying %s", name)
                    break
                if get_tier(name).constrained and not self._can_constrain(lm):
                    raise ConstrainedGenerationUnavailableError(_unavailable_message(lm)) from last_error
                started = time.perf_counter()
                with truncation.attempt() as attempt:
                    try:
                        completions = get_tier(name).factory(self, lm, is_async)(
                            lm, dict(lm_kwargs), signature, demos, inputs
                        )
                        if inspect.isawaitable(completions):
                            completions = await completions
                        for completion in completions:  # DSPy parses Regex-annotated fields as plain str
                            check_term_constraints(signature, completion)
                    except AdapterParseError as exc:
                        cut = attempt.truncated or isinstance(exc, TruncatedOutputError)
                        self._record(name, False, started, truncated=cut)
                        self.router.record(lm, name, parsed=False)
                        if progress is not None and progress.emitted:  # the user already saw streamed output
                            raise
                        logger.debug("OutlinesAdapter %s failed to parse: %s", name, exc)
                        last_error = exc
                        continue
                    except Exception:
                        self._record(name, False, started, truncated=attempt.truncated)
                        raise  # ContextWindowExceededError, provider errors, bugs: no other tier can help
                self._record(name, True, started, truncated=attempt.truncated)
                self.router.record(lm, name, parsed=True)
                return completions
            assert last_error is not None
            raise last_error

    def _plan(self, lm: BaseLM, signature: type[Signature]) -> list[str]:
        """The tiers to try for this call (the router's plan); the ones routed past are counted as skipped."""
        tiers = [tier for tier in self.tiers if not get_tier(tier).constrained or not _has_tool_calls(signature)]
        if not tiers:
            raise ValueError(
                f"Signature {signature.__name__} has dspy.ToolCalls outputs, which constrained generation "
                "(tier3) cannot produce; use tiers=('tier1', 'tier2', 'tier3') or ('tier1', 'tier2')."
            )
        runnable = [tier for tier in tiers if not get_tier(tier).constrained or self._can_constrain(lm)]
        planned = self.router.plan(lm, tiers, runnable, accepts_outlines_constraint(lm))
        self._record_skips(tiers[: len(tiers) - len(planned)])
        return list(planned)

    @staticmethod
    def _can_constrain(lm: BaseLM) -> bool:
        return accepts_outlines_constraint(lm) or bool(getattr(lm, "supports_response_schema", False))


def _run_sync(core: Coroutine[Any, Any, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Run the adapter's async core on the sync path, where no tier call awaits anything (one step, no loop)."""
    try:
        core.send(None)
    except StopIteration as done:
        return done.value
    core.close()
    raise RuntimeError("OutlinesAdapter's sync path suspended: a tier returned an awaitable to a sync call")


def _has_tool_calls(signature: type[Signature]) -> bool:
    return any(field.annotation == ToolCalls for field in signature.output_fields.values())


def _unavailable_message(lm: BaseLM) -> str:
    model = getattr(lm, "model", type(lm).__name__)
    return (
        f"OutlinesAdapter needs tier 3 (constrained generation) for {model!r} after the earlier tiers "
        "failed to parse, but it is not available: it is not an OutlinesLM and its provider "
        "does not support structured outputs (litellm.supports_response_schema is False). Either use a "
        "local model, `dspy.configure(lm=dspy_outlines.OutlinesLM())` (pip install 'dspy-rlm[mlx]'), "
        "or a provider/model with structured outputs (JSON-schema response_format)."
    )
