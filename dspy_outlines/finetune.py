"""DSPy fine-tuning for local models: ``OutlinesLM(...).finetune(...)`` trains a LoRA adapter (mlx-lm's tuner,
see :mod:`dspy_outlines.lora`) and its job's result is a new ``OutlinesLM`` on the base model plus the adapter.

:class:`LocalProvider` is a ``dspy.Provider`` with ``finetunable = True``; every ``OutlinesLM`` carries one, so
``dspy.BootstrapFinetune(metric=...).compile(program, trainset=..., teacher=...)`` works with no extra argument:
it calls ``lm.finetune(train_data, TrainDataFormat.CHAT, train_kwargs)`` and waits for ``job.result()``.
``train_kwargs`` keys are :class:`~dspy_outlines.lora.TrainSettings`' fields (``steps``, ``batch_size``,
``max_length``, ``rank``, ``layers``, ``learning_rate``, ``seed``, ``save_every``, ``resume``, ``max_time_s``,
``output_dir``). The tuned model runs on the engine of the LM that trained it: MLX merges the adapter into
its float weights, llama.cpp runs a GGUF form of it (:mod:`dspy_outlines.engines.llamacpp_adapter`).
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from dspy.clients.provider import Provider, TrainingJob
from dspy.clients.utils_finetune import TrainDataFormat, TrainingStatus

logger = logging.getLogger(__name__)


class LocalTrainingJob(TrainingJob):
    """A running ``lm.finetune`` job: ``result()`` is the tuned ``OutlinesLM`` (or the exception that ended it,
    as DSPy's jobs report errors); ``status()`` says where it is."""

    def status(self) -> TrainingStatus:
        if not self.done():
            return TrainingStatus.running
        return TrainingStatus.failed if isinstance(self.result(), Exception) else TrainingStatus.succeeded


class LocalProvider(Provider):
    """Fine-tuning on this machine, for ``OutlinesLM``; see the module docstring."""

    def __init__(self) -> None:
        super().__init__()
        self.finetunable = True
        self.TrainingJob = LocalTrainingJob

    @staticmethod
    def is_provider_model(model: str) -> bool:
        return str(model).startswith("local/")

    @staticmethod
    def finetune(
        job: TrainingJob,
        model: str,
        train_data: list[dict[str, Any]],
        train_data_format: TrainDataFormat | str | None,
        train_kwargs: dict[str, Any] | None = None,
    ) -> str:
        """Train an adapter for the model file ``model``; returns the adapter's directory."""
        from dspy_outlines.lora import train

        if train_data_format not in (None, TrainDataFormat.CHAT, "chat"):
            raise ValueError(f"local fine-tuning takes chat data (TrainDataFormat.CHAT), not {train_data_format!r}")
        return str(train(model, train_data, train_kwargs))


def start_job(lm: Any, train_data: list[dict[str, Any]], train_data_format: Any, train_kwargs: Any) -> TrainingJob:
    """``lm.finetune``: a thread trains; the job's result is ``OutlinesLM(base, engine=<lm's>, adapter=...)``."""
    source = lm.base_model_path()
    job: TrainingJob = lm.provider.TrainingJob(
        model=source, train_data=train_data, train_data_format=train_data_format, train_kwargs=train_kwargs
    )

    def run() -> None:
        try:
            adapter = lm.provider.finetune(job, source, train_data, train_data_format, train_kwargs)
            job.set_result(lm.with_adapter(adapter))
        except Exception as exc:  # noqa: BLE001 - DSPy's jobs hand the error over as the result
            logger.error("local fine-tuning failed: %s", exc)
            job.set_result(exc)

    job.thread = threading.Thread(target=run, name="dspy-outlines-finetune", daemon=True)
    job.thread.start()
    return job
