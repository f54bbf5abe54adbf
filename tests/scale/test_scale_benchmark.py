"""benchmarks/scale.py's projection: tasks/hour is the least of the workers, the LM server and the driver."""

from __future__ import annotations

from benchmarks.scale import projection


def _measured(item_s: float, serial_ms: float, pipelined_ms: float) -> dict:
    return {
        "ray": {"item_s_median": item_s},
        "ray_dispatch": {"serial_ms_per_item": serial_ms, "pipelined_ms_per_item": pipelined_ms},
    }


def test_projection_names_the_limit_at_each_scale():
    out = projection(_measured(0.2, 0.0, 3.6), None)  # 200 ms LM call + nothing: 18,000 tasks/h a worker
    sc = out["scenarios"]["scripted_200ms_lm"]
    assert sc["tasks_per_hour_per_worker"] == 18000 and sc["lm_server_limit_tasks_per_hour"] == 1152000
    assert sc["driver_limit_tasks_per_hour"] == 1000000 and sc["workers_at_which_lm_server_limits"] == 64.0
    assert sc["workers"]["8"] == {"tasks_per_hour": 144000, "limit": "workers"}
    assert sc["workers"]["512"] == {"tasks_per_hour": 1000000, "limit": "driver"}
    assert any("3.6 ms" in a and "driver" in a for a in out["assumptions"])  # the measured figures are stated


def test_a_slow_single_server_limits_from_the_first_worker():
    tier3 = {"server": {"latency_s_median": 4.0}}
    sc = projection(_measured(0.25, 5.0, 4.0), tier3)["scenarios"]["embedded_model_one_llamacpp_server"]
    assert sc["server_capacity_calls_per_s"] == 0.25 and sc["workers_at_which_lm_server_limits"] < 1.1
    assert {row["limit"] for row in sc["workers"].values()} == {"lm_server"}
    assert sc["workers"]["512"]["tasks_per_hour"] == round(0.25 / 2.17 * 3600)
