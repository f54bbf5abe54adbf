"""benchmarks.finetune_program's data and teacher (the benchmark itself trains the embedded model: minutes)."""

from __future__ import annotations

import dspy

from benchmarks import finetune_program as fp


def test_held_out_texts_share_no_person_city_or_phrasing_with_training():
    train = fp.examples(48, fp.NAMES[:20], fp.PLACES[:20], fp.TRAIN_PHRASINGS, 0)
    held = fp.examples(40, fp.NAMES[20:], fp.PLACES[20:], fp.HELD_OUT_PHRASINGS, 1)
    seen_words = {w for ex in train for w in ex.gold}
    assert not seen_words & {w for ex in held for w in ex.gold}
    assert len({ex.text for ex in train}) == 48 and len({ex.text for ex in held}) == 40
    assert fp.examples(48, fp.NAMES[:20], fp.PLACES[:20], fp.TRAIN_PHRASINGS, 0) == train  # seeded


def test_the_teacher_answers_each_text_with_its_gold_and_the_metric_checks_all_three_parts():
    train = fp.examples(6, fp.NAMES[:20], fp.PLACES[:20], fp.TRAIN_PHRASINGS, 0)
    teacher = dspy.Predict(fp.SIGNATURE)
    teacher.set_lm(fp.GoldLM({ex.text: ex.gold for ex in train}))
    for ex in train:
        assert fp.metric(ex, teacher(text=ex.text))
    wrong = dspy.Example(gold=(train[0].gold[0], train[0].gold[1], "Atlantis"))
    assert not fp.metric(wrong, teacher(text=train[0].text))
    assert fp.baseline("Ann lives in Paris, France.") == ("Ann", "Paris", "France")
