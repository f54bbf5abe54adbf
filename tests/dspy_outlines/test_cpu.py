"""Threads that fit the machine: the cores this process may use, shared by its local engines."""

from __future__ import annotations

import os

import pytest

from dspy_outlines.engines import cpu


def test_cgroup_v2_and_v1_quotas_are_read(tmp_path):
    (tmp_path / "cpu.max").write_text("150000 100000\n")
    assert cpu.cgroup_cpu_quota(tmp_path) == 1.5
    (tmp_path / "cpu.max").write_text("max 100000\n")
    assert cpu.cgroup_cpu_quota(tmp_path) is None
    (tmp_path / "cpu.max").unlink()
    (tmp_path / "cpu").mkdir()
    (tmp_path / "cpu" / "cpu.cfs_quota_us").write_text("50000\n")
    (tmp_path / "cpu" / "cpu.cfs_period_us").write_text("100000\n")
    assert cpu.cgroup_cpu_quota(tmp_path) == 0.5
    (tmp_path / "cpu" / "cpu.cfs_quota_us").write_text("-1\n")
    assert cpu.cgroup_cpu_quota(tmp_path) is None
    assert cpu.cgroup_cpu_quota(tmp_path / "missing") is None


def test_usable_cpus_is_the_affinity_capped_by_the_quota(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3, 4, 5, 6, 7}, raising=False)
    assert cpu.usable_cpus(tmp_path) == 8  # no quota file
    (tmp_path / "cpu.max").write_text("250000 100000\n")
    assert cpu.usable_cpus(tmp_path) == 3  # 2.5 cores: rounded up
    (tmp_path / "cpu.max").write_text("10000 100000\n")
    assert cpu.usable_cpus(tmp_path) == 1
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {3}, raising=False)
    (tmp_path / "cpu.max").write_text("max 100000\n")
    assert cpu.usable_cpus(tmp_path) == 1


@pytest.mark.parametrize(
    ("usable", "engines", "threads"), [(2, 1, 1), (8, 1, 4), (8, 2, 2), (8, 3, 1), (16, 2, 4), (1, 4, 1)]
)
def test_auto_threads_takes_half_the_cores_split_between_engines(monkeypatch, usable, engines, threads):
    monkeypatch.setattr(cpu, "usable_cpus", lambda root=cpu.CGROUP_ROOT: usable)
    assert cpu.auto_threads(engines) == threads


@pytest.mark.parametrize(("usable", "engines", "threads"), [(2, 1, 2), (8, 1, 8), (8, 3, 2), (3, 1, 3), (1, 4, 1)])
def test_the_prefill_takes_every_usable_core_split_between_engines(monkeypatch, usable, engines, threads):
    monkeypatch.setattr(cpu, "usable_cpus", lambda root=cpu.CGROUP_ROOT: usable)
    assert cpu.batch_threads(engines) == threads


class _Engine:
    def __init__(self, auto: bool) -> None:
        self.auto_threads, self.threads = auto, None

    def set_threads(self, n_threads: int, n_threads_batch: int | None = None) -> None:
        self.threads = (n_threads, n_threads_batch)


def test_an_engine_loading_rebalances_the_earlier_ones_but_not_explicit_ones(monkeypatch):
    monkeypatch.setattr(cpu, "usable_cpus", lambda root=cpu.CGROUP_ROOT: 16)
    monkeypatch.setattr(cpu, "_users", type(cpu._users)())
    first, explicit, last = _Engine(True), _Engine(False), _Engine(True)
    assert cpu.register(first) == (8, 16)
    assert cpu.register(explicit) == (4, 8) and first.threads == (4, 8)
    assert cpu.register(last) == (2, 5) and first.threads == (2, 5) and explicit.threads is None


@pytest.mark.real_model
def test_the_llamacpp_engine_picks_its_threads_and_an_explicit_count_wins(llamacpp_lm, monkeypatch):
    from dspy_outlines.lm import OutlinesLM

    monkeypatch.setattr(cpu, "usable_cpus", lambda root=cpu.CGROUP_ROOT: 8)
    monkeypatch.setattr(cpu, "_users", type(cpu._users)())
    auto = OutlinesLM(None, engine="llamacpp", max_tokens=4)
    assert auto.engine.auto_threads and (auto.engine.n_threads, auto.engine.n_threads_batch) == (4, 8)
    pinned = OutlinesLM(None, engine="llamacpp", max_tokens=4, engine_options={"n_threads": 3})
    assert (pinned.engine.n_threads, pinned.engine.n_threads_batch) == (3, 3)  # an explicit count: both
    assert (auto.engine.n_threads, auto.engine.n_threads_batch) == (2, 4)  # two engines now share the cores
    assert pinned.engine.dump_state()["engine_options"] == {"n_threads": 3}
    assert "engine_options" not in auto.engine.dump_state()  # the machine's pick is not part of the state
    question = [{"role": "user", "content": "What is the capital of France?"}]
    assert auto.forward(messages=question).choices[0].message.content == (
        pinned.forward(messages=question).choices[0].message.content
    )


def test_prefill_takes_only_the_cores_free_now(tmp_path, monkeypatch):
    """Extra prefill threads only on cores the other processes left free (issue 31: a 900-token prefill took
    28 s on 2 threads against 8 s on 1 while two other jobs ran on this 2-core machine)."""
    monkeypatch.setattr(cpu, "usable_cpus", lambda root=cpu.CGROUP_ROOT: 2)
    stat = tmp_path / "stat"
    ticks = cpu.os.sysconf("SC_CLK_TCK")

    def write(busy_s: float) -> None:  # user ticks, idle ticks fixed
        stat.write_text(f"cpu  {int(busy_s * ticks)} 0 0 1000000 0 0 0 0 0 0\ncpu0 ...\n")

    write(0)
    clock = {"wall": 100.0, "own": 5.0}
    monkeypatch.setattr(cpu.time, "monotonic", lambda: clock["wall"])
    monkeypatch.setattr(cpu.time, "process_time", lambda: clock["own"])
    busy = cpu._OthersBusy(stat)
    monkeypatch.setattr(cpu, "_others_busy", busy)
    clock.update(wall=110.0, own=15.0)  # 10 s: this process used one core the whole time, nothing else ran
    write(10)
    assert cpu.free_cpus() == pytest.approx(2.0)
    clock.update(wall=110.1)  # within 0.2 s: the same figure
    write(50)
    assert cpu.free_cpus() == pytest.approx(2.0)
    clock.update(wall=120.0, own=15.0)  # then others kept 1.5 cores busy while this process idled
    write(10 + 15)
    assert cpu.free_cpus() == pytest.approx(0.5)
    monkeypatch.setattr(cpu, "free_cpus", lambda: 1.0)
    assert cpu.prefill_threads(1, 2) == 2 and cpu.prefill_threads(1, 1) == 1
    monkeypatch.setattr(cpu, "free_cpus", lambda: 0.5)
    assert cpu.prefill_threads(1, 2) == 1


def test_the_prefill_share_counts_the_engines_computing_now_not_those_loaded(monkeypatch):
    """Engines only loaded (a sub-LM, a test session's fixtures) leave the prefill every core: one engine
    computing takes them all, two at once split them."""
    monkeypatch.setattr(cpu, "usable_cpus", lambda root=cpu.CGROUP_ROOT: 4)
    monkeypatch.setattr(cpu, "_users", type(cpu._users)())
    loaded = [_Engine(True) for _ in range(4)]
    for engine in loaded:
        cpu.register(engine)
    assert loaded[0].threads == (1, 1)  # four loaded: a quarter each, as before
    assert cpu.computing_share() == 4  # none computing: a call about to start takes every core
    with cpu.computing():
        assert cpu.computing_share() == 4
        with cpu.computing():
            assert cpu.computing_share() == 2
        assert cpu.computing_share() == 4
    with pytest.raises(RuntimeError), cpu.computing():
        raise RuntimeError("a failed call")
    assert cpu.computing_share() == 4  # a call that raised no longer counts
