"""Long-context suites: generators, gold answers, scorers, the oracle policy through the real RLM, reports."""

from __future__ import annotations

import json
import re
from collections import Counter
from itertools import combinations

import pytest

from benchmarks.longcontext import generate_suite, niah, oolong
from benchmarks.longcontext.__main__ import main as cli_main
from benchmarks.longcontext.harness import BenchConfig, run_benchmark, truncate_context
from benchmarks.longcontext.oracle import oracle_lm, solver_code
from benchmarks.longcontext.task import (
    score_answer,
    score_exact,
    score_niah,
    score_numeric,
    score_pairs_f1,
)

SUITES = ("niah", "oolong", "pairs")
SMALLEST = 2**13


# ------------------------------------------------------------------------------------------ generators


@pytest.mark.parametrize("suite", SUITES)
def test_generators_are_deterministic_under_a_seed(suite):
    first = generate_suite(suite, SMALLEST, 3, seed=7)
    again = generate_suite(suite, SMALLEST, 3, seed=7)
    other = generate_suite(suite, SMALLEST, 3, seed=8)
    assert [(t.context, t.query, t.gold) for t in first] == [(t.context, t.query, t.gold) for t in again]
    assert [t.context for t in first] != [t.context for t in other]
    assert len({t.id for t in first}) == 3


@pytest.mark.parametrize("suite", SUITES)
@pytest.mark.parametrize("size", [SMALLEST, 2**14, 2**18])
def test_context_length_within_five_percent(suite, size):
    task = generate_suite(suite, size, 1, seed=0)[0]
    assert abs(len(task.context) / 4 - size) <= 0.05 * size
    assert task.size_tokens == size


def test_needle_present_once_at_recorded_depth():
    depths = []
    for task in generate_suite("niah", SMALLEST, 8, seed=3):
        needle = task.meta["needle"]
        value = task.gold[0]
        assert re.fullmatch(r"\d{7}", value)
        assert task.context.count(needle) == 1
        assert task.context.count("special magic number") == 1
        assert task.context.index(needle) == task.meta["needle_offset"]
        assert task.meta["depth"] == pytest.approx(task.meta["needle_offset"] / len(task.context))
        assert abs(task.meta["depth"] - task.meta["target_depth"]) < 0.01
        assert task.meta["key"] in task.query and value not in task.query
        # The haystack around the needle is only RULER filler.
        rest = task.context.replace(needle, "")
        assert set(re.split(r"(?<=\.)\s+", rest.strip())) <= set(niah.FILLER_SENTENCES) | {""}
        depths.append(task.meta["depth"])
    assert max(depths) - min(depths) > 0.3  # random depths, not one fixed spot


def _template_classifier():
    """Independent of the oracle: turn the generator's templates into full-line regexes."""
    rules = []
    for label, templates in oolong.TEMPLATES.items():
        for template in templates:
            pattern = re.escape(template)
            pattern = re.sub(r"\\\{\w+\\\}", ".+", pattern)
            rules.append((re.compile(pattern + r"\Z"), label))

    def classify(text):
        labels = {label for rx, label in rules if rx.match(text)}
        assert len(labels) == 1, (text, labels)
        return labels.pop()

    return classify


def _parse(context):
    classify = _template_classifier()
    rows = []
    for line in context.split("\n"):
        m = re.fullmatch(r"Date: (\w{3}) (\d{2}), 2023 \|\| User: (\d{5}) \|\| Instance: (.+)", line)
        assert m, line
        instance = m.group(4)
        assert not any(label in instance.lower() for label in oolong.LABELS)  # label never written
        rows.append((oolong.MONTHS.index(m.group(1)) + 1, m.group(3), classify(instance)))
    return rows


def _top(counter):
    ranked = counter.most_common()
    return ranked[0][0] if len(ranked) == 1 or ranked[0][1] > ranked[1][1] else None


def _recompute_aggregation(rows, meta):
    family = meta["family"]
    if family == "count":
        return sum(1 for r in rows if r[2] == meta["label"])
    if family == "most_common":
        return _top(Counter(r[2] for r in rows))
    if family == "user_count":
        return sum(1 for r in rows if r[1] == meta["user"] and r[2] == meta["label"])
    if family == "user_most_common":
        return _top(Counter(r[2] for r in rows if r[1] == meta["user"]))
    if family == "month_count":
        return sum(1 for r in rows if r[2] == meta["label"] and r[0] == meta["month"])
    assert family == "top_month"
    return oolong.MONTH_NAMES[_top(Counter(r[0] for r in rows if r[2] == meta["label"])) - 1]


def test_oolong_gold_answers_recomputed_from_the_text():
    families = set()
    for seed in (0, 1):
        for task in generate_suite("oolong", SMALLEST, 6, seed=seed):
            families.add(task.meta["family"])
            assert task.gold == _recompute_aggregation(_parse(task.context), task.meta)
            assert task.metric == ("numeric" if isinstance(task.gold, int) else "exact")
    assert len(families) >= 5


def test_pairs_gold_answers_recomputed_from_the_text():
    for task in generate_suite("pairs", SMALLEST, 8, seed=2):
        rows = _parse(task.context)
        per_user = {}
        for _month, user, label in rows:
            per_user.setdefault(user, Counter())[label] += 1
        x, y = task.meta["x"], task.meta.get("y")
        conditions = {
            "both_dominant": lambda c: _top(c) == x,
            "neither": lambda c: x not in c and y not in c,
            "both_have": lambda c: x in c and y in c,
        }
        family = task.meta["family"]
        expected = set()
        for a, b in combinations(sorted(per_user, key=int), 2):
            if family == "cross_dominant":
                ok = {_top(per_user[a]), _top(per_user[b])} == {x, y}
            else:
                ok = conditions[family](per_user[a]) and conditions[family](per_user[b])
            if ok:
                expected.add((a, b))
        assert {tuple(p) for p in task.gold} == expected
        assert task.metric == "pairs_f1"


# ---------------------------------------------------------------------------------------------- scorers


def test_niah_scorer_is_share_of_gold_found():
    assert score_niah("1234567.", ["1234567"]) == 1.0
    assert score_niah("The number is 1234567.", ["1234567"]) == 0.0  # the whole answer, not containment
    assert score_niah("1234567", ["1234567", "7654321"]) == 0.5
    assert score_niah("7654321 and 1234567", ["1234567", "7654321"]) == 1.0
    assert score_niah(["1234567", "1", "2", "3"], ["1234567"]) == 0.25  # listing candidates is no answer
    assert score_niah("none", ["1234567"]) == 0.0
    assert score_niah(None, ["1"]) == 0.0


@pytest.mark.parametrize(
    ("answer", "gold", "expected"),
    [
        ("12", 12, 1.0),
        ("There are 14 instances.", 12, 0.75**2),
        (9, 12, 0.75**3),
        ("none", 3, 0.0),
        ("1,204", 1204, 1.0),
        ("12.0", 12, 1.0),
    ],
)
def test_numeric_scorer_is_075_power_error(answer, gold, expected):
    assert score_numeric(answer, gold) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("answer", "gold", "expected"),
    [
        ("location", "location", 1.0),
        ("  'Location'. ", "location", 1.0),
        ("Answer: March", "March", 1.0),
        ("human being", "human being", 1.0),
        ("human", "human being", 0.0),
        ("It is location", "location", 0.0),
    ],
)
def test_exact_scorer(answer, gold, expected):
    assert score_exact(answer, gold) == expected


def test_pairs_scorer_is_f1_over_unordered_pairs():
    gold = [["10001", "10002"], ["10001", "10003"]]
    assert score_pairs_f1("(10001, 10002)\n(10003, 10001)", gold) == 1.0
    assert score_pairs_f1("[(10001, 10002)]", gold) == pytest.approx(2 / 3)  # P=1, R=1/2
    assert score_pairs_f1("(10001, 10002), (10004, 10005)", gold) == pytest.approx(0.5)
    assert score_pairs_f1("no pairs", gold) == 0.0
    assert score_pairs_f1("", []) == 1.0
    assert score_pairs_f1([("10002", "10001"), ("10001", "10003")], gold) == 1.0


def test_unknown_metric_names_the_choices():
    with pytest.raises(ValueError, match="niah, numeric, exact, pairs_f1"):
        score_answer("f1", "x", "y")


# ----------------------------------------------------------------------------------------------- oracle


class _Submitted(BaseException):
    pass


@pytest.mark.parametrize("suite", SUITES)
def test_oracle_code_computes_gold_from_context(suite):
    """The oracle's action code, exec'd with a SUBMIT stub, answers every task exactly."""
    code = solver_code()
    for size in (SMALLEST, 2**15):
        for task in generate_suite(suite, size, 6, seed=5):
            submitted = {}

            def SUBMIT(**kwargs):
                submitted.update(kwargs)
                raise _Submitted

            with pytest.raises(_Submitted):
                exec(code, {"context": task.context, "query": task.query, "SUBMIT": SUBMIT, "print": lambda *a: None})
            assert task.score(submitted["answer"]) == 1.0, (task.id, submitted["answer"], task.gold)


def test_truncate_context_keeps_the_head_within_the_window():
    text = "x" * 40_000
    cut, truncated = truncate_context(text, window_tokens=8192, reserve_tokens=768)
    assert truncated and len(cut) == (8192 - 768) * 4 and cut.startswith("xxx")
    assert truncate_context("short", 8192, 768) == ("short", False)


def test_truncate_context_fits_the_real_token_count():
    """Digits run one token a character in SmolLM2's tokenizer: the 4-chars estimate would overflow the window."""

    def count(text: str) -> int:
        return len(text)  # one token a character

    cut, truncated = truncate_context("7" * 40_000, window_tokens=8192, reserve_tokens=768, count_tokens=count)
    assert truncated and count(cut) <= 8192 - 768 and len(cut) > (8192 - 768) * 0.9
    assert truncate_context("short", 8192, 768, count) == ("short", False)


def _check_reports(payload, out_dir):
    for name in ("longcontext.json", "longcontext.md", "longcontext.png"):
        assert (out_dir / name).stat().st_size > 0
    assert (out_dir / "longcontext.png").read_bytes()[:4] == b"\x89PNG"
    data = json.loads((out_dir / "longcontext.json").read_text())
    for record in data["records"]:
        for key in ("task_id", "method", "score", "lm_calls", "total_tokens", "cost_usd", "seconds", "answer"):
            assert key in record
        assert 0.0 <= record["score"] <= 1.0
    assert {"suite", "size_tokens", "method", "score", "lm_calls"} <= set(data["summary"][0])
    assert "| suite |" in (out_dir / "longcontext.md").read_text()
    return data


def test_oracle_scores_100_percent_through_the_real_rlm(tmp_path):
    """Every suite and every question family, at the smallest size, through dspy_rlm.RLM."""
    pytest.importorskip("dspy_rlm")
    config = BenchConfig(suites=list(SUITES), sizes=[SMALLEST], n_tasks=6, methods=("rlm",), max_iters=3)
    payload = run_benchmark(oracle_lm(), config, out_dir=tmp_path, lm_name="oracle")
    data = _check_reports(payload, tmp_path)
    assert len(data["records"]) == 18
    for record in data["records"]:
        assert record["score"] == 1.0, record
        assert record["error"] is None and record["result_kind"] == "submitted"
        assert record["lm_calls"] >= 1 and record["total_tokens"] > 0
    assert all(row["score"] == 1.0 for row in data["summary"])


def test_oracle_direct_baseline_sees_only_the_window(tmp_path):
    config = BenchConfig(suites=["niah", "oolong"], sizes=[4096, SMALLEST], n_tasks=2, methods=("direct",))
    payload = run_benchmark(oracle_lm(), config)
    by_size = {}
    for record in payload["records"]:
        by_size.setdefault(record["size_tokens"], []).append(record)
        assert record["lm_calls"] == 1 and record["error"] is None
    assert all(r["score"] == 1.0 and not r["truncated"] for r in by_size[4096])  # fits the window
    assert all(r["truncated"] for r in by_size[SMALLEST])  # 8K context + prompt overflow an 8K window


def test_cli_writes_reports_and_rejects_bad_arguments(tmp_path, capsys):
    rc = cli_main(
        [
            "--suite",
            "niah",
            "--sizes",
            "4096",
            "--lm",
            "oracle",
            "--tasks",
            "1",
            "--methods",
            "direct",
            "--out",
            str(tmp_path),
        ]
    )
    assert rc == 0
    assert "| niah | 4096 | direct | 1 | 1.000 |" in capsys.readouterr().out
    assert (tmp_path / "longcontext.png").exists()
    assert cli_main(["--lm", "oracle", "--methods", "rlm,bogus", "--out", str(tmp_path)]) == 2
    with pytest.raises(SystemExit):
        cli_main(["--suite", "bogus"])


# --------------------------------------------------------------------------------------- embedded model


@pytest.mark.real_model
def test_embedded_model_smoke_run_writes_reports(tmp_path):
    """The smallest size with the embedded SmolLM2: the pipeline, not the score.

    Kept to one S-NIAH task, one RLM iteration and short completions (the model runs on CPU); the direct
    baseline gets a 1024-token window so its prompt stays small (CPU prompt processing dominates).
    """
    try:
        # Not pytest.importorskip("mlx_lm"): importing mlx before dspy_outlines routes BLAS makes the
        # model ~10x slower; require_mlx() checks the stack in the right order.
        from dspy_outlines import OutlinesLM
        from dspy_outlines.models import require_mlx

        require_mlx()
        lm = OutlinesLM(max_tokens=48)
    except (ImportError, FileNotFoundError) as e:
        pytest.skip(f"embedded model unavailable: {e}")
    config = BenchConfig(
        suites=["niah"],
        sizes=[SMALLEST],
        n_tasks=1,
        max_iters=1,
        max_llm_calls=1,
        window_tokens=1024,
        reserve_tokens=512,
    )
    payload = run_benchmark(lm, config, out_dir=tmp_path, lm_name="embedded")
    data = _check_reports(payload, tmp_path)
    assert {r["method"] for r in data["records"]} == {"rlm", "direct"}
    assert all(r["lm_calls"] >= 1 for r in data["records"])
