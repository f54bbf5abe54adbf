"""The small step policy (small local models): compact prompt, constrained action step, grounded moves.

:class:`SmallPolicy` is what ``profile="small"`` (and ``"auto"`` with a local or small LM) runs: the compact
signature with the shipped demos, the action generated at Tier 3 alone, each step's ``code`` held to the
grounded moves of :mod:`dspy_rlm.profiles.guided`, search results printed as ``line N: text`` rows, and a
grounded SUBMIT. What the user set (demos, instructions an optimizer changed, an ``action_adapter``) wins.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dspy_rlm.profiles import Profile
from dspy_rlm.profiles.base import RunView, StepView
from dspy_rlm.profiles.default import BasePolicyRun

if TYPE_CHECKING:
    import dspy

    from dspy_rlm.context import ExternalizedContext
    from dspy_rlm.profiles.moves import Move, MoveBook
    from dspy_rlm.results import Extracted, Submitted

__all__ = ["SmallPolicy", "SmallPolicyRun"]


class SmallPolicyRun(BasePolicyRun):
    """The small policy's state for one run: the search words and token counts of the inputs, computed once."""

    helper_style = "lines"
    uses_ranker = True  # the learned ranker cuts the moves the LM chooses among (a deciding policy sees them all)

    def __init__(self, name: str, profile: Profile, run: RunView) -> None:
        super().__init__(name, profile, run)
        self._book: MoveBook | None = None  # profiles.moves: built at the first step
        self.kind_demos: dict[str, list[Any]] | None = None  # None: the shipped demos (small_program.json)
        self.moves: list[Move] = []  # this step's moves
        self.action_lm: Any = None  # the LM of the action steps when not the run's (SmallPolicy(lm=...))

    def variables_info(self, context: ExternalizedContext) -> str:
        from dspy_rlm.profiles.small import compact_variables_info

        return compact_variables_info(self.run.inputs, self.question)

    def prepare(self, step: StepView) -> None:
        """Compact signature (guided when the profile says so), shipped demos, a one-line budget. What the user
        set (demos, optimized instructions) is kept."""
        from dspy_rlm.profiles.small import kind_demos, load_demos, small_action_signature

        predictors, config = self.run.predictors, self.run.config
        self.moves = []  # set again below when this step's moves are the grammar's
        action = predictors.action
        sig = getattr(action, "signature", None)
        kwargs = step.kwargs
        if sig is not None and sig.instructions == predictors.default_action_instructions:
            guided = self.profile.guided_code and self.profile.constrained_action
            kwargs["signature"] = small_action_signature(
                _signature_key(config),
                tuple(config.tool_map),
                self.profile.constrained_action and not guided,
                terse=self.profile.terse_prompt,
            )
            if guided:
                kwargs["signature"] = self.guided_signature(kwargs["signature"], step)
        if self.profile.shipped_demos and not getattr(action, "demos", None):
            book = self._book  # the grammar's moves: the demos of this kind of question
            kind = book.kind() if book is not None else None
            own = self.kind_demos  # the policy's own demos by kind (benchmarks/learn_policy.py compiles them)
            if own is not None:
                kwargs["demos"] = list(own.get(kind, ()) if kind else ())
            else:
                kwargs["demos"] = list((kind_demos(kind) if kind else ()) or load_demos())
        kwargs["budget"] = f"{step.steps_left} steps left" if step.steps_left is not None else "no step limit"
        if self.action_lm is not None:
            kwargs["lm"] = self.action_lm

    def guided_signature(self, signature: Any, step: StepView) -> Any:
        """The small action signature held, as a whole, to this step's grounded moves (profiles.moves)."""
        from dspy_outlines.constraints import with_output_regex
        from dspy_rlm.profiles.moves import moves_pattern

        self.moves = self.ranked(self.step_moves(step))
        return with_output_regex(signature, moves_pattern(self.moves))

    def ranked(self, moves: list[Move]) -> list[Move]:
        """The moves the model chooses among: with ``Profile.ranked_moves``, the learned ranker's best (at most
        that many, within ``rank_margin`` of the best score), best first; else all of them."""
        k = self.profile.ranked_moves
        if not (k and self.uses_ranker and len(moves) > 1):
            return moves
        from dspy_rlm.profiles.ranker import load_ranker

        ranker = load_ranker()
        if ranker is None:
            return moves
        book = self.book()
        scores = ranker.score(book, moves)
        best = max(scores)
        order = sorted(range(len(moves)), key=lambda i: (-scores[i], i))
        return [moves[i] for i in order if scores[i] >= best - self.profile.rank_margin][:k]

    def step_moves(self, step: StepView) -> list[Move]:
        """This step's moves, after taking in what the reads so far printed."""
        book = self.book()
        for code, stdout in zip(step.codes, step.stdouts, strict=False):
            book.record_read(code, stdout or "")
        return book.step_moves(step.codes, [s for s in step.stdouts if s])

    def book(self) -> MoveBook:
        """The run's moves (built once: the question, the data and its structure do not change)."""
        if self._book is None:
            from dspy_rlm.profiles.moves import MoveBook

            outputs = {n: f.annotation for n, f in self.run.config.signature.output_fields.items()}
            self._book = MoveBook(self.question, self.data, outputs, all_moves=self.profile.all_moves)
        return self._book

    def settle(self, result: Submitted, codes: list[str], stdouts: list[str]) -> Submitted | Extracted:
        """A SUBMIT of a value the reads do not support ends ``Extracted`` (low confidence, a note). When the
        grounded moves were in force, a SUBMIT they did not offer (the LM left the grammar) is judged by its
        value: it stands only if a read produced it with support."""
        from dspy_rlm.results import Extracted

        if self._book is None:  # no grounded moves were offered this run (e.g. the user's own instructions)
            return result
        candidate = self._book.submits.get(codes[-1]) if codes else None
        if candidate is None:
            candidate = self._book.judge(dict(result.outputs))
        if candidate.supported:
            return self.calibrated(result, candidate, self.choice_probability(codes, stdouts))
        from dspy_rlm.profiles.calibration import load_calibration

        note = f"the submitted value {candidate.value!r} is a guess: {candidate.why}"
        return Extracted(
            dict(result.outputs),
            confidence=load_calibration().unsupported(),
            reason=f"not supported by what the run read: {note}",
            notes=note,
        )

    def rescore(self, result: Extracted, codes: list[str], stdouts: list[str]) -> Extracted:
        """A forced ending (a limit was hit and the answer extracted) on the scale of a SUBMIT's confidence.

        A value the reads support gets its support class's calibrated precision. A value they do not support (a
        small model's extraction is often a sentence about the limit) gives way to the best supported value the
        reads produced, as the ranker orders the submits (with one output field); with none, it keeps the accuracy
        of an unsupported SUBMIT (not the extraction's own 0.5 base, which rated a guess above a right answer)."""
        from dataclasses import replace

        from dspy_rlm.profiles.calibration import data_shape, load_calibration, support_class

        if self._book is None or not result.outputs:
            return result
        book = self._book
        for code, stdout in zip(codes, stdouts, strict=False):
            book.record_read(code, stdout or "")
        candidate, choice = book.judge(dict(result.outputs)), None
        outputs, said = dict(result.outputs), f"the extracted value {next(iter(result.outputs.values()))!r}"
        if not candidate.supported and len(outputs) == 1:
            best = self._best_submit(codes, stdouts)
            if best is not None:
                (backed, choice), name = best, next(iter(outputs))
                said = f"{said} is not supported; the reads support {backed.value!r} ({backed.why})"
                candidate, outputs = backed, {name: backed.value}
            elif not any(str(v) in (out or "") for v in outputs.values() for out in stdouts):
                # a value no read printed (a small model's int grammar run to 19 digits): the reads' best guess
                guess = self._best_submit(codes, stdouts, supported=False)
                if guess is not None:
                    said = f"{said} was read nowhere; the reads' best guess is {guess[0].value!r}"
                    candidate, outputs = guess[0], {next(iter(outputs)): guess[0].value}
                elif book.answer_type in (int, float):  # a number nothing read backs or gives a guess for
                    note = f"{said} was read nowhere, and no read gave a value to guess"
                    return replace(result, confidence=0.0, notes="; ".join(filter(None, (result.notes, note))))
        calibration = load_calibration()
        if candidate.supported:
            cls = support_class(candidate, book.answer_type, data_shape(book))
            confidence = calibration.combined(cls, choice)
            note = said if choice is not None else f"{said} is supported ({candidate.why})"
        else:
            confidence, note = calibration.unsupported(), f"{said} is a guess: {candidate.why}"
        return replace(
            result, outputs=outputs, confidence=confidence, notes="; ".join(filter(None, (result.notes, note)))
        )

    def _best_submit(
        self, codes: list[str], stdouts: list[str], supported: bool = True
    ) -> tuple[Any, float | None] | None:
        """The supported value (any value with ``supported=False``) of the SUBMIT move the ranker scores best after
        these reads (the first without a ranker), with the ranker's probability."""
        from dspy_rlm.profiles.ranker import load_ranker

        book = self.book()
        moves = book.step_moves(codes, [s for s in stdouts if s])
        backed = [
            i
            for i, m in enumerate(moves)
            if m.kind == "submit" and m.candidate and (m.candidate.supported or not supported)
        ]
        if not backed:
            return None
        ranker = load_ranker()
        if ranker is None:
            return moves[backed[0]].candidate, None
        scores = ranker.score(book, moves)  # scored among everything the step offers, as the chooser saw them
        i = max(backed, key=lambda j: (scores[j], -j))
        return moves[i].candidate, scores[i]

    def choice_probability(self, codes: list[str], stdouts: list[str]) -> float | None:
        """The learned ranker's probability of the last move (the SUBMIT) among the moves its step offered;
        ``None`` without a ranker or when that step did not offer it."""
        from dspy_rlm.profiles.ranker import load_ranker

        ranker = load_ranker()
        if ranker is None or not codes or self._book is None:
            return None
        book = self._book
        moves = book.step_moves(codes[:-1], [s for s in stdouts[:-1] if s])
        return next((p for m, p in zip(moves, ranker.score(book, moves), strict=True) if m.code == codes[-1]), None)

    def calibrated(self, result: Submitted, candidate: Any, choice: float | None = None) -> Submitted | Extracted:
        """A supported SUBMIT with the confidence its support class earned, combined with how sure the chooser
        was of it (``choice``, profiles.calibration); below the fitted threshold it ends ``Extracted`` with that
        confidence and a note."""
        from dataclasses import replace

        from dspy_rlm.profiles.calibration import data_shape, load_calibration, support_class
        from dspy_rlm.results import Extracted

        calibration = load_calibration()
        cls = support_class(candidate, self.book().answer_type, data_shape(self.book()))
        confidence = calibration.combined(cls, choice)
        cutoff = calibration.cutoff(choice)
        if confidence >= cutoff:
            return replace(result, confidence=confidence, notes=f"supported: {cls}")
        rate = (
            f"were right {confidence:.0%} of the time where the answer was known"
            if calibration.measured(cls)
            else f"were never measured where the answer was known (a structure no fit saw: {confidence:.0%})"
        )
        note = (
            f"the submitted value {candidate.value!r} is supported ({candidate.why}), but submits like it "
            f"{rate} (Submitted needs {cutoff:.0%})"
        )
        return Extracted(
            dict(result.outputs), confidence=confidence, reason=f"below the calibrated threshold: {note}", notes=note
        )

    def adapter(self) -> dspy.Adapter | None:
        """Tier 3 alone for the action step (one per configuration, kept in its adapter slots)."""
        slots = self.run.config.slots
        if slots.action is None:
            from dspy_outlines.adapter import OutlinesAdapter

            slots.action = OutlinesAdapter(tiers=("tier3",))
        return slots.action


def _signature_key(config: Any) -> type:
    """The user's signature class, as the hashable key of the small profile's memoized signatures."""
    return config.signature


class SmallPolicy:
    """The policy for small local models (``profile="small"``).

    Args:
        profile: Its switches (:data:`dspy_rlm.profiles.SMALL` by default; e.g. ``guided_code=False`` keeps
            the static one-line code pattern).
        kind_demos: The action demos by the kind of question the moves see (``MoveBook.kind()``) instead of the
            shipped ones; ``{}`` runs without demos. Demos set on the RLM's ``generate_action`` still win.
        lm: The LM the action steps run on instead of the run's (the embedded model plus the shipped adapter:
            :func:`dspy_rlm.profiles.tuned.tuned_lm`); extraction and sub-calls keep the run's LM.
    """

    name = "small"

    def __init__(
        self, profile: Profile | None = None, kind_demos: dict[str, list[Any]] | None = None, lm: Any = None
    ) -> None:
        from dspy_rlm.profiles import SMALL

        self.profile = profile or SMALL
        self.kind_demos = kind_demos
        self.lm = lm

    def start(self, run: RunView) -> SmallPolicyRun:
        started = SmallPolicyRun(self.name, self.profile, run)
        started.kind_demos = getattr(self, "kind_demos", None)
        started.action_lm = getattr(self, "lm", None)
        return started

    def __repr__(self) -> str:
        return f"SmallPolicy({self.profile!r})"
