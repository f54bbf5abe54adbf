"""run_batch on a real local Ray cluster (2 CPUs): shipping the program, worker death, retries, errors.

Scripted LMs travel inside the pickled program; a scripted policy that calls ``os._exit`` kills the Ray
worker running the item, as a segfault or the OOM killer would.
"""

from __future__ import annotations

import os
from pathlib import Path

import dspy
import pytest

from dspy_rlm import RLM, Submitted
from tests.scale.scripts import DieAlways, DieOnce, Echo, ReportSettings, scripted_lm

ray = pytest.importorskip("ray", reason="the ray extra is not installed (pip install 'dspy-rlm[ray]')")
from dspy_rlm.scale import run_batch  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cluster():
    # Workers import the test helpers (pickled by reference) from the repository, as a user's code module would.
    ray.init(
        num_cpus=2, include_dashboard=False, log_to_driver=False, runtime_env={"env_vars": {"PYTHONPATH": str(ROOT)}}
    )
    yield
    ray.shutdown()


def _examples(n: int) -> list[dict[str, str]]:
    return [{"question": f"q{i}"} for i in range(n)]


@pytest.mark.timeout(300)
def test_program_and_lm_configuration_reach_the_workers(cluster):
    lm = dspy.LM("openai/served-model", api_base="http://127.0.0.1:9/v1", api_key="none", max_tokens=77)
    batch = run_batch(ReportSettings(), _examples(2), runner="ray", progress=False, lm=lm)
    for i, item in enumerate(batch):
        assert item.outputs["model"] == "openai/served-model" and item.outputs["max_tokens"] == 77
        assert item.outputs["api_base"] == "http://127.0.0.1:9/v1" and item.outputs["question"] == f"q{i}"
        assert item.outputs["pid"] != os.getpid() and item.kind == "none"

    rlm = RLM("question -> answer", max_iters=3)
    batch = run_batch(rlm, _examples(4), runner="ray", max_concurrency=4, progress=False, lm=scripted_lm(Echo()))
    assert [item.outputs for item in batch] == [{"answer": f"{i}q"} for i in range(4)]
    assert all(isinstance(item.result, Submitted) and item.trace.result_kind == "submitted" for item in batch)
    assert all(not item.worker.endswith(f":{os.getpid()}") for item in batch)  # ran on Ray workers
    assert batch.usage == {"lm_calls": 4, "prompt_tokens": 40, "completion_tokens": 20, "cost": pytest.approx(0.004)}


@pytest.mark.timeout(300)
def test_a_dead_worker_is_retried_then_reported_failed(cluster, tmp_path):
    rlm = RLM("question -> answer", max_iters=3)
    lm = scripted_lm(DieOnce(str(tmp_path), ("q1",)))
    batch = run_batch(rlm, _examples(3), runner="ray", max_retries=1, progress=False, lm=lm)
    assert batch.counts == {"submitted": 3}  # q1's worker died once; Ray re-ran the task on a new worker
    died_pid = (tmp_path / "died-q1").read_text()
    assert batch[1].outputs == {"answer": "1q"} and not batch[1].worker.endswith(f":{died_pid}")

    lm = scripted_lm(DieAlways(("q0",)))
    batch = run_batch(rlm, _examples(2), runner="ray", max_retries=1, progress=False, lm=lm)
    assert [item.index for item in batch] == [0, 1] and batch[1].kind == "submitted"
    lost = batch[0].error  # never silently dropped: a typed record after the retries
    assert lost is not None and lost.type == "WorkerCrashedError" and lost.attempts == 2
    assert batch[0].result is None and batch.counts == {"error": 1, "submitted": 1}


@pytest.mark.timeout(300)
def test_item_exceptions_come_back_without_retries(cluster, tmp_path):
    rlm = RLM("question -> answer", max_iters=3)
    examples = [{"question": "q0"}, {"question": "q1", "hint": "not in the signature"}]
    batch = run_batch(rlm, examples, runner="ray", trace_dir=tmp_path, progress=False, lm=scripted_lm(Echo()))
    assert batch[0].kind == "submitted" and batch[0].trace_paths == [str(tmp_path / "item-00000.json")]
    error = batch[1].error
    assert error.type == "ValueError" and "Unexpected inputs" in error.message and error.attempts == 1


@pytest.mark.timeout(300)
def test_interrupting_the_driver_keeps_finished_items_and_cancels_the_rest(cluster, tmp_path, sigint_handler):
    import signal
    import threading
    import time

    from dspy_rlm.scale import BatchInterrupted

    def ctrl_c_after_first_item():  # a Ctrl-C as soon as item 0's trace is on disk
        deadline = time.monotonic() + 120
        while not (tmp_path / "item-00000.json").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        os.kill(os.getpid(), signal.SIGINT)

    rlm = RLM("question -> answer", max_iters=3)
    watcher = threading.Thread(target=ctrl_c_after_first_item, daemon=True)
    watcher.start()
    with pytest.raises(BatchInterrupted) as stop:
        run_batch(
            rlm,
            _examples(6),
            runner="ray",
            max_concurrency=1,
            trace_dir=tmp_path,
            progress=False,
            lm=scripted_lm(Echo(), delay=1.0),
        )
    watcher.join()
    batch = stop.value.batch
    assert batch.interrupted and batch[0].index == 0 and batch[0].kind == "submitted"
    assert len(batch.pending) >= 4 and batch.pending[-1] == 5  # the queued items never ran
