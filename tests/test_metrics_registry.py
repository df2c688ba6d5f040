"""One contract test over every registered metric (``@K`` ones with K = 3).

Every metric: has its metadata, a docstring with a formula (an equation, not any ``=``), values inside its declared
range on random samples and on drawn batches of arbitrary unicode (hypothesis), values that do not depend on the rest of
the batch, ``unscored`` with the right reason for each missing input, and a signature that changes whenever an option
changes (a judged metric's names its judge and, with a model, the prompt's hash). Semantic metrics run on the
deterministic fake embedder; judges stay heuristic (no server).
"""
from __future__ import annotations

import dataclasses
import json
import math
import random
import re

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from rageval.errors import ConfigError
from rageval.metrics.base import evaluate, get_metric, metric_names
from rageval.runs.scoring import clean_sample
from rageval.types import NEED_REASONS, OFFLINE_JUDGE, Sample, Score, Spec
from tests.fakes import FakeEmbedder, fake_resources

KINDS = {"retrieval", "lexical", "semantic", "judged", "claims"}
NAMES = [n.replace("@K", "@3") for n in metric_names()]
OPTIONS = {"embedder": FakeEmbedder.name}
#: a second value for option fields, to check that the signature follows it
ALTERNATIVES = {"k": 5, "language": "it", "judge": Spec("judge", model="some-model"), "relevance": "evidence",
                "tokenize": "intl"}
WORDS = ("paris france capital city the river seine tower eiffel museum art history king queen 1789 "
         "revolution napoleon war peace bread wine cheese rome italy milan la città è bella").split()

FIXED = [
    "recall@K", "precision@K", "hit_rate@K", "ndcg@K", "map", "mrr", "bleu", "rouge1", "rouge2", "rougeL",
    "rougeLsum", "token_precision", "token_recall", "token_f1", "exact_match", "bertscore_precision",
    "bertscore_recall", "bertscore_f1", "answer_similarity", "answer_equivalence", "answer_correctness_offline",
]


def metric(name: str, **extra):
    return get_metric(name, **OPTIONS, **extra)


def text(rng: random.Random, lo: int = 1, hi: int = 12) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(lo, hi)))


def random_samples(seed: int, n: int = 12) -> list[Sample]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        ids = [f"c{j}" for j in range(10)]
        out.append(Sample(
            id=f"s{i}", question=text(rng) + "?", answer=text(rng),
            contexts=tuple(text(rng, 5, 30) for _ in range(rng.randint(1, 5))),
            references=tuple(text(rng, 1, 8) for _ in range(rng.randint(1, 3))),
            retrieved_ids=tuple(rng.sample(ids, rng.randint(1, 8))),
            relevant_ids={d: rng.randint(1, 3) for d in rng.sample(ids, rng.randint(1, 4))},
            context_ids=(),
        ))
    # a few edge cases: the answer equals a reference, shares nothing, or is one token
    out.append(dataclasses.replace(out[0], id="same", answer=out[0].references[0]))
    out.append(dataclasses.replace(out[1], id="none", answer="zzz qqq"))
    out.append(dataclasses.replace(out[2], id="one", answer="paris"))
    # an answer copied from its context and its reference: offline, claim metrics decide only such claims
    longest = max((c for s in out for c in s.contexts), key=lambda c: len(c.split()))
    out.append(dataclasses.replace(out[3], id="copied", answer=longest, contexts=(longest,), references=(longest,)))
    # prose with entity-to-entity facts, which AlignCheck needs to score anything
    out.append(dataclasses.replace(out[0], id="prose", answer="Napoleon ruled France in 1804.",
                                   references=("Napoleon ruled France from 1804.", "Napoleon left Paris in 1815.")))
    return out


def test_the_fixed_names_are_registered():
    registered = set(metric_names())
    assert set(FIXED) <= registered, set(FIXED) - registered


@pytest.mark.parametrize("name", NAMES)
def test_metadata_present(name):
    m = metric(name)
    assert m.name == name
    assert isinstance(m.needs, frozenset) and m.needs and m.needs <= set(NEED_REASONS), m.needs
    lo, hi = m.range
    assert isinstance(lo, float) and isinstance(hi, float) and lo < hi
    assert isinstance(m.higher_is_better, bool)
    assert m.kind in KINDS
    assert isinstance(m.languages, tuple) and m.languages and all(isinstance(x, str) for x in m.languages)
    assert isinstance(m.needs_llm, bool)
    assert dataclasses.is_dataclass(m) and type(m).__dataclass_params__.frozen


#: a quantity, " = " and an expression: an operator, a bracket, a set operation, a condition or a
#: reduction on the right. A keyword argument (``k=5``) or a plain setting (``k = 5``) is not a formula.
FORMULA = re.compile(r"[\w@|#)}\]]\s=\s.*([+*/^(|∩]|\s-\s|\bif\b|\b(max|min|sum|mean|log|exp)\b)")


def states_a_formula(doc: str) -> bool:
    """Whether a line of ``doc``, outside its examples (``>>>`` and their outputs), states a formula."""
    prose, in_example = [], False
    for line in doc.splitlines():
        stripped = line.strip()
        in_example = stripped.startswith((">>>", "...")) or (in_example and stripped != "")
        if not in_example:
            prose.append(stripped)
    return any(FORMULA.search(line) for line in prose)


@pytest.mark.parametrize("doc, formula", [
    ("Formula: F1 = 2PR / (P + R), P = TP / (TP + FP)", True),
    ("``faithfulness = #SUPPORTED / #claims``; no claims -> unscored.", True),
    ("Formula: hit_rate@K = 1 if |relevant ∩ top-K| > 0 else 0", True),
    ("EM = max over references of [normalize(answer) == normalize(reference)]", True),
    ("Recall of the top-k chunks, k=5 by default.", False),
    ("Options: k = 5, language = en.", False),
    ("Formula:", False),
    (">>> f1_of(tp=2, fp=1, fn=1) == 2 / 3\nTrue", False),
])
def test_the_formula_check_wants_an_equation_not_any_equals_sign(doc, formula):
    assert states_a_formula(doc) is formula


@pytest.mark.parametrize("name", NAMES)
def test_docstring_states_a_formula(name):
    assert states_a_formula(type(metric(name)).__doc__ or ""), f"{name}: no formula in the docstring"


@pytest.mark.parametrize("name", [n for n in NAMES if metric(n).needs_llm])
def test_a_judged_metric_signs_its_judge_and_prompt(name):
    # offline the heuristic judge is named; with a model, the model and the prompt's hash
    assert metric(name).judge == OFFLINE_JUDGE and metric(name).signature().startswith(f"{name}|judge:heuristic|")
    judged = metric(name, judge="openai:gpt-x").signature()
    assert re.search(r"\|judge:openai:gpt-x\|prompt:[0-9a-f]{8}\|", judged), judged


ANY = st.text(alphabet=st.characters(codec=None), max_size=120)  # lone surrogates, NUL, bidi, all planes
HOSTILE = st.lists(st.sampled_from("the a Paris is capital of France 1789 Rome città è \u202e \x00 \ud800 ? . ,"
                                   .split(" ")) | ANY, max_size=12).map(" ".join)
REALISTIC = random_samples(7)


def hostile_samples() -> st.SearchStrategy[Sample]:
    ids = st.lists(st.sampled_from(["c0", "c1", "c2", "c3", "\ud800"]), max_size=4)
    return st.builds(
        lambda i, q, a, ctx, refs, ret, rel: Sample(
            id=f"s{i}", question=q, answer=a, contexts=tuple(ctx), references=tuple(refs),
            retrieved_ids=tuple(dict.fromkeys(ret)), relevant_ids={r: 1.0 for r in rel}),
        st.integers(0, 10**6), HOSTILE, HOSTILE, st.lists(HOSTILE, max_size=3),
        st.lists(HOSTILE, max_size=3), ids, ids)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(batch=st.lists(hostile_samples(), min_size=1, max_size=4))
@example(batch=REALISTIC)
def test_values_in_range_and_independent_of_the_batch(name, batch):
    """On the realistic samples and on drawn batches of arbitrary unicode: each value lies in the
    metric's range exactly (or is unscored / failed with a reason), its details are JSON, and a
    sample scores the same alone as in the batch (so order does not matter either)."""
    m = metric(name)
    realistic = batch is REALISTIC
    batch = [dataclasses.replace(clean_sample(s), id=f"s{i}") for i, s in enumerate(batch)]
    together = evaluate(batch, [m], fake_resources())[m.name]
    assert len(together) == len(batch)
    if realistic:
        assert any(s.status == "ok" for s in together), [s.reason for s in together]
        assert all(s.status in ("ok", "unscored") for s in together), [s.reason for s in together]
    lo, hi = m.range
    for sample, s in zip(batch, together):
        assert isinstance(s, Score) and (s.value is None) == (s.status != "ok") and (s.status == "ok" or s.reason)
        if s.status == "ok":
            assert not math.isnan(s.value) and lo <= s.value <= hi, (name, s.value)
        json.dumps(s.details)  # details are stored as JSON
        alone = evaluate([sample], [m], fake_resources())[m.name][0]
        assert (alone.status, alone.value, alone.reason) == (s.status, s.value, s.reason), name


@pytest.mark.parametrize("name", NAMES)
def test_unscored_when_an_input_is_missing(name):
    m = metric(name)
    full = random_samples(3, n=1)[0]
    blank = {"answer": {"answer": None}, "reference": {"references": ()}, "contexts": {"contexts": ()},
             "retrieved_ids": {"retrieved_ids": ()}, "relevant_ids": {"relevant_ids": {}}, "question": {"question": ""}}
    for need in sorted(m.needs):
        lacking = dataclasses.replace(full, **blank[need])
        got = evaluate([lacking, full], [m], fake_resources())[m.name]
        assert got[0].status == "unscored" and got[0].reason == NEED_REASONS[need], (need, got[0])
        assert got[1].status != "unscored" or got[1].reason not in NEED_REASONS.values()


@pytest.mark.parametrize("name", NAMES)
def test_signature_pins_every_option(name):
    m = metric(name)
    sig = m.signature()
    assert isinstance(sig, str) and sig.startswith(m.name.split("@")[0]) and "|" in sig
    assert metric(name).signature() == sig  # stable
    changed = 0
    for f in dataclasses.fields(m):
        current = getattr(m, f.name)
        if isinstance(current, bool):
            other = not current
        elif f.name in ALTERNATIVES and ALTERNATIVES[f.name] != current:
            other = ALTERNATIVES[f.name]
        else:
            continue
        try:
            variant = dataclasses.replace(m, **{f.name: other})
        except ConfigError:
            continue  # an alternative this metric does not accept
        if variant.signature() == sig:
            # allowed only for an option that cannot change a value in this configuration
            # (e.g. language for label-based retrieval metrics)
            samples = random_samples(11)
            a = evaluate(samples, [m], fake_resources())[m.name]
            b = evaluate(samples, [variant], fake_resources())[m.name]
            assert [x.value for x in a] == [x.value for x in b], f"{name}: signature ignores option {f.name}"
        changed += 1
    options = [f.name for f in dataclasses.fields(m) if f.name != "embedder"]
    assert changed or not options, f"{name}: options {options} but none could be varied by this test"


def test_unknown_metric_option_is_an_error_not_ignored():
    from rageval.errors import ConfigError
    from rageval.metrics.base import parse_metric_list

    with pytest.raises(ConfigError, match="unknown metric option"):
        parse_metric_list("bleu,token_f1", judeg="openai:x")
    # an option only some metrics take goes to those, quietly
    assert [m.name for m in parse_metric_list("bleu,faithfulness", judge="heuristic")] == ["bleu", "faithfulness"]


def test_memo_computes_each_key_once_across_threads_and_forgets_failures():
    import threading

    from rageval.types import Memo

    memo, calls, gate = Memo(), [], threading.Barrier(4)

    def computer(keys):
        def compute(todo):
            calls.append([keys[i] for i in todo])
            return ["bad" if keys[i] == "c" else keys[i].upper() for i in todo]
        return compute

    def worker(out):
        gate.wait()
        out.append(memo.many(["a", "b", "c"], computer(["a", "b", "c"])))

    outs = []
    threads = [threading.Thread(target=worker, args=(outs,)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outs == [["A", "B", "bad"]] * 4
    assert sum(len(c) for c in calls) == 3  # each key computed once, whichever thread came first
    fresh = Memo()
    assert fresh.many(["a", "b", "c"], computer(["a", "b", "c"]), keep=lambda v: v != "bad") == ["A", "B", "bad"]
    assert fresh.many(["a", "c"], computer(["a", "c"]), keep=lambda v: v != "bad") == ["A", "bad"]
    assert calls[-1] == ["c"]  # the failed value was forgotten and asked again; "a" was kept


def test_each_evaluate_call_has_its_own_memo():
    from rageval.types import Resources

    seen = []

    class Probe:
        name, needs, range, higher_is_better, kind = "probe", frozenset(), (0.0, 1.0), True, "lexical"

        def signature(self):
            return "probe|v1"

        def score_batch(self, samples, resources):
            seen.append(resources.memo)
            return [Score.ok(resources.memo.one(s.id, lambda: 1.0)) for s in samples]

    given = Resources()
    evaluate([Sample(id="x")], [Probe()], given)
    evaluate([Sample(id="x")], [Probe()], given)
    assert seen[0] is not seen[1] and given.memo not in seen
