"""Calibrated endings (issue 28, item 5): a supported SUBMIT carries its support class's fitted confidence and
ends Submitted only at or above the fitted threshold."""

from __future__ import annotations

import dspy
from dspy.utils import DummyLM

from benchmarks.calibrate import threshold
from dspy_rlm import RLM
from dspy_rlm.profiles.calibration import PRIOR_WEIGHT, Calibration, load_calibration, support_class
from dspy_rlm.profiles.candidates import Candidate
from dspy_rlm.profiles.oracle import OraclePolicy

TABLE = "name,os,cores\n" + "\n".join(f"host-{i},{'Debian' if i % 3 else 'Fedora'},{i * 4}" for i in range(1, 31))


def test_support_class_names_no_data():
    cls = support_class(Candidate("Debian", "os", True, "the record matches the question's key"), str)
    assert cls == "str|field|the record matches the question's key|table"
    assert support_class(Candidate(12, "count", True, "counted"), int, "jsonl") == "int|count|counted|jsonl"


def test_threshold_reaches_the_precision_and_never_admits_a_mostly_wrong_class():
    cal = Calibration({"a": [99, 100], "b": [90, 100], "c": [0, 5]})
    t = threshold(cal)
    assert cal.confidence("b") <= t <= cal.confidence("a")  # a+b together: 94.5%, below 95%
    assert threshold(Calibration({"a": [990, 1000], "c": [1, 5]})) == Calibration({"a": [990, 1000]}).confidence("a")


def test_the_shipped_calibration_ends_a_well_supported_lookup_submitted_with_its_confidence():
    question = "What is the os of host-7?"
    with dspy.context(lm=DummyLM([{"answer": "x"}] * 10)):
        pred = RLM("context, question -> answer", policy=OraclePolicy({question: "Debian"}), max_iters=4)(
            context=TABLE, question=question
        )
    cal = load_calibration()
    assert pred.rlm_result.kind == "submitted" and pred.answer == "Debian"
    assert cal.threshold <= pred.rlm_result.confidence < 1.0


def test_a_supported_value_below_the_threshold_ends_extracted_with_a_note(monkeypatch):
    from dspy_rlm.profiles import calibration

    cls = "str|field|the record matches the question's key|table"
    low = Calibration({cls: [1, 10]}, threshold=0.9)
    monkeypatch.setattr(calibration, "load_calibration", lambda: low)
    question = "What is the os of host-7?"
    with dspy.context(lm=DummyLM([{"answer": "x"}] * 10)):
        pred = RLM("context, question -> answer", policy=OraclePolicy({question: "Debian"}), max_iters=4)(
            context=TABLE, question=question
        )
    result = pred.rlm_result
    assert result.kind == "extracted" and pred.answer == "Debian"
    assert result.confidence == low.confidence(cls)
    assert "calibrated threshold" in result.reason and result.notes


def test_an_unseen_structure_backs_off_to_the_class_over_every_structure():
    cal = Calibration({"int|count|counted|table": [9, 10], "int|count|counted|json": [10, 10]})
    prior = 20 / 22  # int|count over the records: 19 of 20, smoothed
    assert cal.confidence("int|count|counted|yaml") == round((19 + PRIOR_WEIGHT * prior) / (20 + PRIOR_WEIGHT), 3)
    assert cal.confidence("bool|answer|checked|yaml") == cal.unseen


def test_a_class_on_records_never_borrows_from_text_but_text_may_borrow_from_records():
    cal = Calibration({"str|field|stated after the key|prose": [20, 20], "str|field|stated after the key|json": [0, 9]})
    text, records = 21 / 22, 1 / 11  # the priors: str|field over text, over records
    assert cal.confidence("str|field|stated after the key|lines") == round((20 + 4 * text) / 24, 3)  # from text
    assert cal.confidence("str|field|stated after the key|table") == round((0 + 4 * records) / 13, 3)  # records
    only_text = Calibration({"str|field|stated after the key|prose": [20, 20]})
    assert only_text.confidence("str|field|stated after the key|table") == only_text.unseen
    only_records = Calibration({"str|field|the record matches the question's key|json": [9, 10]})
    assert only_records.confidence("str|field|the record matches the question's key|lines") == round(
        (9 + 4 * 10 / 12) / 14, 3
    )


def test_a_class_seen_once_leans_on_its_kind_of_value_over_its_family():
    cal = Calibration({"int|count|counted|json": [98, 100], "int|count|counted the entries|ini": [0, 1]})
    prior = 99 / 103
    assert cal.confidence("int|count|counted the entries|ini") == round((0 + PRIOR_WEIGHT * prior) / 5, 3)
    assert 0.7 < cal.confidence("int|count|counted the entries|ini") < cal.confidence("int|count|counted|json")


def test_the_chooser_fit_weighs_the_rankers_probability_beside_the_class_precision(tmp_path):
    import json

    cls = "str|field|the record matches the question's key|table"
    plain = Calibration({cls: [8, 10]}, threshold=0.7)
    assert plain.combined(cls, 0.9) == plain.confidence(cls) and plain.cutoff(0.9) == 0.7
    assert plain.unsupported() == 0.25
    fit = Calibration(
        {cls: [8, 10]}, 0.7, chooser={"weights": [1.0, 1.0], "bias": 0.0, "threshold": 0.6, "unsupported": 0.1}
    )
    assert fit.combined(cls, 0.5) == plain.confidence(cls)  # an undecided chooser adds nothing
    assert fit.combined(cls, 0.99) > fit.combined(cls, 0.5) > fit.combined(cls, 0.01)
    assert fit.combined(cls, None) == plain.confidence(cls) and fit.cutoff(None) == 0.7  # no ranker scored it
    assert fit.cutoff(0.9) == 0.6 and fit.unsupported() == 0.1
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(fit.to_dict()))
    assert load_calibration.__wrapped__(str(path)) == fit


def test_fit_chooser_keeps_the_precision_above_its_threshold():
    from benchmarks.calibrate import FLOOR, PRECISION, fit_chooser
    from dspy_rlm.profiles.calibration import combine

    endings = [(True, 0.9, 0.99, True)] * 95 + [(True, 0.9, 0.99, False)] * 2 + [(True, 0.6, 0.3, False)] * 30
    endings += [(True, 0.6, 0.3, True)] * 10 + [(False, 0.0, 0.01, False)] * 18 + [(False, 0.0, 0.01, True)] * 2
    fit = fit_chooser(endings, seed=0)
    assert fit["threshold"] > FLOOR and fit["unsupported"] == round(3 / 22, 3)
    kept = [ok for s, conf, p, ok in endings if s and combine(fit, conf, p) >= fit["threshold"]]
    assert kept and sum(kept) / len(kept) >= PRECISION
    assert combine(fit, 0.9, 0.99) > combine(fit, 0.6, 0.3)


def test_the_shipped_calibration_has_a_chooser_fit():
    chooser = load_calibration().chooser
    assert chooser is not None and 0.5 <= chooser["threshold"] <= 1.0 and 0.0 < chooser["unsupported"] < 0.5
