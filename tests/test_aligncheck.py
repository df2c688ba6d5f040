"""AlignCheck: Algorithm 1 on hand-made facts, extraction from spaCy parses, normalisation,
TF-IDF granularity, unscored cases, and the registry / CLI integration."""
from __future__ import annotations

import json
import math
import random
from collections import Counter

import numpy as np
import pytest

from rageval.aligncheck import entities, triples
from rageval.aligncheck.granularity import (
    Granularity,
    kept_types,
    parse_granularity,
    type_weights,
)
from rageval.aligncheck.score import align
from rageval.aligncheck.triples import Aliases, Fact, normalise
from rageval.cli import main
from rageval.errors import ConfigError
from rageval.metrics.base import evaluate, get_metric, parse_metric_list
from rageval.types import Sample
from rageval.text.lang import guess_language
from tests.fakes import FakeEmbedder, fake_resources

F = Fact


def never(p, q):
    raise AssertionError(f"similarity called for {p!r} / {q!r}")


# ------------------------------------------------------------------------------ Algorithm 1
def literal_algorithm_1(f_s, f_t, sim):
    """The paper's loop read literally (sets of triples, every matching target fact adds its similarity)."""
    f_s, f_t = set(f_s), set(f_t)
    so_s, so_t = {(f.subject, f.object) for f in f_s}, {(f.subject, f.object) for f in f_t}
    tp = fp = fn = 0.0
    for a in f_s:
        if (a.subject, a.object) not in so_t:
            fn += 1
        else:
            for b in f_t:
                if a.subject == b.subject and a.object == b.object:
                    tp += 1.0 if a.predicate == b.predicate else sim(a.predicate, b.predicate)
    for b in f_t:
        if (b.subject, b.object) not in so_s:
            fp += 1
    return tp, fp, fn


CASES = [
    # (source, target, sim, expected (tp, fp, fn, P, R, F1))
    ([F("a", "p", "b")], [F("a", "p", "b")], never, (1.0, 0, 0, 1.0, 1.0, 1.0)),
    ([F("a", "p", "b"), F("a", "p", "c")], [F("a", "p", "b")], never, (1.0, 0, 1, 1.0, 0.5, 2 / 3)),
    ([F("a", "p", "b")], [F("a", "p", "b"), F("x", "p", "y")], never, (1.0, 1, 0, 0.5, 1.0, 2 / 3)),
    ([F("a", "p", "b")], [F("a", "q", "b")], lambda p, q: 0.6, (0.6, 0, 0, 1.0, 1.0, 1.0)),
    ([F("a", "p", "b"), F("c", "p", "d")], [F("a", "q", "b"), F("e", "p", "f")], lambda p, q: 0.5,
     (0.5, 1, 1, 0.5 / 1.5, 0.5 / 1.5, 0.5 / 1.5)),
    # no shared pair: a real zero, not clipped
    ([F("a", "p", "b")], [F("c", "p", "d")], never, (0.0, 1, 1, 0.0, 0.0, 0.0)),
]


@pytest.mark.parametrize("source,target,sim,expected", CASES)
def test_algorithm_1_table(source, target, sim, expected):
    a = align(source, target, sim)
    assert a.reason is None
    assert (a.tp, a.fp, a.fn, a.precision, a.recall, a.f1) == pytest.approx(expected)
    tp, fp, fn = literal_algorithm_1(source, target, sim)
    assert (a.tp, a.fp, a.fn) == pytest.approx((tp, fp, fn))  # one predicate per pair: both readings agree


def test_several_predicates_for_one_pair_best_and_literal_sum():
    sims = {("founded", "started"): 0.8, ("founded", "sold"): 0.1, ("led", "started"): 0.3, ("led", "sold"): 0.2}
    sim = lambda p, q: sims[(p, q)]  # noqa: E731
    source = [F("jobs", "founded", "apple"), F("jobs", "led", "apple")]
    target = [F("jobs", "started", "apple"), F("jobs", "sold", "apple")]
    best = align(source, target, sim)
    assert best.tp == pytest.approx(0.8 + 0.3) and best.fp == 0 and best.fn == 0
    assert [p["target"]["predicate"] for p in best.tp_pairs] == ["started", "started"]
    summed = align(source, target, sim, pairing="sum")
    assert summed.tp == pytest.approx(0.8 + 0.1 + 0.3 + 0.2)
    assert summed.tp == pytest.approx(literal_algorithm_1(source, target, sim)[0])
    with pytest.raises(ValueError):
        align(source, target, sim, pairing="mean")


def test_literal_reading_matches_the_reference_loop_on_random_facts():
    rng = random.Random(5)
    ents, preds = list("abcde"), ["p", "q", "r"]
    table = {(p, q): rng.uniform(-1, 1) for p in preds for q in preds}
    for _ in range(200):
        fs = [F(rng.choice(ents), rng.choice(preds), rng.choice(ents)) for _ in range(rng.randint(1, 6))]
        ft = [F(rng.choice(ents), rng.choice(preds), rng.choice(ents)) for _ in range(rng.randint(1, 6))]
        sim = lambda p, q: table[(p, q)]  # noqa: E731
        got = align(fs, ft, sim, pairing="sum")
        tp, fp, fn = literal_algorithm_1(fs, ft, sim)
        assert (got.fp, got.fn) == (fp, fn)
        if tp > 0:
            assert got.tp == pytest.approx(tp)
            assert got.precision == pytest.approx(tp / (tp + fp)) and got.recall == pytest.approx(tp / (tp + fn))
        else:
            assert (got.tp, got.precision, got.recall, got.f1) == (0.0, 0.0, 0.0, 0.0)
        for v in (got.precision, got.recall, got.f1):
            assert 0.0 <= v <= 1.0 and not math.isnan(v)


def test_non_positive_tp_is_clipped_to_zero():
    a = align([F("a", "p", "b")], [F("a", "q", "b")], lambda p, q: -0.4)
    assert (a.tp, a.precision, a.recall, a.f1, a.tp_clipped) == (0.0, 0.0, 0.0, 0.0, True)
    assert a.tp_pairs[0]["predicate_similarity"] == -0.4  # the evidence is kept


def test_empty_fact_sets_are_unscored_not_zero():
    src_empty = align([], [F("a", "p", "b")], never)
    assert src_empty.reason == "no_source_facts" and src_empty.f1 is None and len(src_empty.fp_facts) == 1
    tgt_empty = align([F("a", "p", "b")], [], never)
    assert tgt_empty.reason == "no_answer_facts" and tgt_empty.precision is None and len(tgt_empty.fn_facts) == 1


def test_duplicate_triples_count_once_and_details_are_json():
    a = align([F("a", "p", "b"), F("a", "p", "b")], [F("a", "p", "b"), F("x", "p", "y"), F("x", "p", "y")], never)
    assert (a.tp, a.fp, a.fn) == (1.0, 1, 0)
    d = json.loads(json.dumps(a.details()))
    assert d["fp_facts"][0]["subject"] == "x" and d["tp_pairs"][0]["predicate_similarity"] == 1.0


# ------------------------------------------------------------------------------ extraction
def spo(text, kept=None):
    doc = entities.parse([text])[text]
    cands = triples.candidates(doc)
    return {(f.subject, f.predicate, f.object)
            for f in triples.facts(cands, kept, Aliases(triples.person_names(cands, doc)))}


@pytest.mark.parametrize("text,expected", [
    ("Steve Jobs founded Apple in 1976.", {("steve jobs", "founded", "apple"), ("steve jobs", "founded in", "1976")}),
    # passive with an agent reads as the active sentence
    ("Apple was founded by Steve Jobs.", {("steve jobs", "founded", "apple")}),
    # copular complement with a prepositional object
    ("Tim Cook is the CEO of Apple.", {("tim cook", "is ceo of", "apple")}),
    # passive without an agent, prepositional object
    ("Barack Obama was born in Hawaii.", {("barack obama", "born in", "hawaii")}),
    ("Google did not buy Microsoft.", {("google", "not buy", "microsoft")}),
])
def test_extraction_patterns(text, expected):
    assert spo(text) == expected


def test_kept_types_filter_subjects_and_pronouns_are_never_subjects():
    text = "Steve Jobs founded Apple in 1976. Apple hired John Sculley in 1983."
    assert {s for s, _, _ in spo(text)} == {"steve jobs", "apple"}
    assert {s for s, _, _ in spo(text, kept={"ORG"})} == {"apple"}
    assert spo("He founded Apple in 1976.") == set()


@pytest.mark.parametrize("raw,norm", [
    ("The  United Nations", "united nations"), ("an Apple", "apple"), ("Apple's", "apple"),
    ("  NASA. ", "nasa"), ("the the Beatles", "beatles"),
])
def test_normalise(raw, norm):
    assert normalise(raw) == norm


def test_surname_alias_resolves_only_unambiguous_full_names():
    assert Aliases(["steve jobs"]).resolve("jobs") == "steve jobs"
    assert Aliases(["steve jobs", "laurene jobs"]).resolve("jobs") == "jobs"
    assert Aliases(["steve jobs"]).resolve("cook") == "cook"
    # in the metric, a surname in the answer matches the full name of the reference
    text = "Jobs founded Apple in 1976."
    doc = entities.parse([text])[text]
    cands = triples.candidates(doc)
    got = triples.facts(cands, None, Aliases(["steve jobs", *triples.person_names(cands, doc)]))
    assert {f.subject for f in got} <= {"steve jobs", "apple"}


def test_guess_language():
    assert guess_language("The committee approved the budget of the city in March.") == "en"
    assert guess_language("Il comitato ha approvato il bilancio della città a marzo.") == "it"
    assert guess_language("Roma") == "en"  # too little to tell: the project's default
    # English words that other languages share never tip the balance
    assert guess_language("Included: 10 aluminium Y-stakes, 4 guy lines, a repair sleeve and a stuff sack.") == "en"
    assert guess_language("Lodging cap per night: 190 EUR; Meals per diem: 70 EUR.") == "en"
    assert guess_language("Die Regierung hat das Gesetz nicht mit der Mehrheit beschlossen.") == "de"
    assert entities.unsupported_reason("it") == "no_spacy_pipeline_for_language:it"
    assert entities.unsupported_reason("en") is None


# ------------------------------------------------------------------------------ granularity
def test_type_weights_equal_a_matrix_tfidf():
    bags = [Counter({"PERSON": 3, "ORG": 1}), Counter({"PERSON": 1, "DATE": 2}), Counter(), Counter({"GPE": 1})]
    types = sorted({t for b in bags for t in b})
    counts = np.array([[b.get(t, 0) for t in types] for b in bags], dtype=float)
    totals = counts.sum(axis=1, keepdims=True)
    tf = np.divide(counts, totals, out=np.zeros_like(counts), where=totals > 0)
    n, df = len(bags), (counts > 0).sum(axis=0)
    idf = np.log((1 + n) / (1 + df)) + 1
    expected = dict(zip(types, (tf * idf).sum(axis=0)))
    got = type_weights(bags)
    assert set(got) == set(types)
    for t in types:
        assert got[t] == pytest.approx(expected[t])


def test_kept_types_top_n_all_and_explicit():
    bags = [Counter({"PERSON": 3, "ORG": 1}), Counter({"PERSON": 1, "DATE": 2}), Counter({"GPE": 1})]
    assert kept_types(bags, Granularity()) == ("DATE", "GPE", "ORG", "PERSON")
    # by hand: N = 3, idf(PERSON) = ln(4/3) + 1 over 2 texts, idf(GPE) = ln(4/2) + 1 in 1 text
    w_person = (3 / 4 + 1 / 3) * (math.log(4 / 3) + 1)
    w_gpe = 1.0 * (math.log(2) + 1)
    w_date = (2 / 3) * (math.log(2) + 1)
    assert type_weights(bags)["PERSON"] == pytest.approx(w_person)
    assert w_gpe > w_person > w_date
    assert kept_types(bags, Granularity(top_n=1)) == ("GPE",)
    assert kept_types(bags, Granularity(top_n=2)) == ("GPE", "PERSON")
    assert kept_types(bags, Granularity(top_n=9)) == ("DATE", "GPE", "ORG", "PERSON")
    assert kept_types(bags, Granularity(types=("ORG",))) == ("ORG",)


@pytest.mark.parametrize("value,label", [("all", "all"), ("", "all"), (3, "top3-tfidf"), ("2", "top2-tfidf"),
                                         ("person, org", "ORG+PERSON")])
def test_parse_granularity(value, label):
    assert parse_granularity(value).label == label


@pytest.mark.parametrize("value", ["0", "PER-SON", ",,"])
def test_parse_granularity_rejects(value):
    with pytest.raises(ConfigError):
        parse_granularity(value)


# ------------------------------------------------------------------------------ metrics
REF = "Apple was founded by Steve Jobs in 1976. Jobs was born in San Francisco."
SAMPLES = [
    Sample(id="good", answer="Steve Jobs founded Apple in 1976.", references=(REF,)),
    Sample(id="wrong", answer="Steve Jobs founded Apple in 1977. Tim Cook bought Google.", references=(REF,)),
    Sample(id="it", answer="La Torre di Pisa è il campanile della cattedrale di Pisa.", references=(REF,)),
    Sample(id="nofacts", answer="I am not sure.", references=(REF,)),
    Sample(id="ctx", answer="Steve Jobs founded Apple.", contexts=("Steve Jobs founded Apple in Cupertino.",)),
]


def run(names="aligncheck_f1,aligncheck_precision,aligncheck_recall", samples=SAMPLES, **options):
    metrics = parse_metric_list(names, embedder=FakeEmbedder.name, **options)
    return evaluate(samples, metrics, fake_resources())


def test_metric_values_and_details():
    got = run()
    by = {m: {s.id: sc for s, sc in zip(SAMPLES, scores)} for m, scores in got.items()}
    good = by["aligncheck_f1"]["good"]
    # good: 2 of the reference's 3 facts, nothing added
    assert by["aligncheck_precision"]["good"].value == pytest.approx(1.0)
    assert by["aligncheck_recall"]["good"].value == pytest.approx(2 / 3)
    assert good.value == pytest.approx(0.8)
    wrong = by["aligncheck_f1"]["wrong"].details["aligncheck"]
    assert {(f["subject"], f["object"]) for f in wrong["fp_facts"]} == {("steve jobs", "1977"), ("tim cook", "google")}
    assert {(f["subject"], f["object"]) for f in wrong["fn_facts"]} == {
        ("steve jobs", "1976"),
        ("steve jobs", "san francisco"),
    }
    assert wrong["tp_pairs"][0]["predicate_similarity"] == 1.0
    assert by["aligncheck_precision"]["wrong"].value == pytest.approx(1 / 3)
    assert by["aligncheck_f1"]["it"].reason == "no_spacy_pipeline_for_language:it"
    assert by["aligncheck_f1"]["nofacts"].reason == "no_answer_facts"
    assert by["aligncheck_f1"]["ctx"].reason == "no_reference"
    json.dumps([s.details for scores in got.values() for s in scores])


def test_contexts_source_and_language_option():
    got = run("aligncheck_f1", aligncheck_source="contexts")["aligncheck_f1"]
    # the contexts add "in Cupertino" (one FN): P = 1, R = 1/2
    assert got[4].value == pytest.approx(2 / 3) and got[4].details["source"] == "contexts"
    assert got[0].reason == "no_contexts"
    it = run("aligncheck_f1", language="it")["aligncheck_f1"]
    assert {s.reason for s in it if s.reason != "no_reference"} == {"no_spacy_pipeline_for_language:it"}
    assert get_metric("aligncheck_f1", aligncheck_source="contexts").needs == frozenset({"answer", "contexts"})
    with pytest.raises(ConfigError):
        get_metric("aligncheck_f1", aligncheck_source="documents")


def test_granularity_option_restricts_subjects_and_is_in_signature_and_details():
    org = run("aligncheck_f1", aligncheck_types="ORG")["aligncheck_f1"]
    assert org[0].reason == "no_source_facts" and org[0].details["kept_types"] == ["ORG"]
    top1 = run("aligncheck_f1", aligncheck_types="1")["aligncheck_f1"]
    assert top1[0].details["kept_types"] in (["PERSON"], ["ORG"], ["DATE"], ["GPE"])
    sigs = {get_metric("aligncheck_f1", aligncheck_types=t).signature() for t in ("all", "2", "PERSON,ORG")}
    assert len(sigs) == 3 and any("types:ORG+PERSON" in s for s in sigs)


def test_deterministic_and_order_independent():
    a, b = run(), run(samples=SAMPLES[::-1])
    for name in a:
        assert [(s.value, s.reason) for s in a[name]] == [(s.value, s.reason) for s in b[name][::-1]]
    again = run()
    assert all(json.dumps([s.details for s in a[n]]) == json.dumps([s.details for s in again[n]]) for n in a)


def test_three_metrics_share_one_analysis(monkeypatch):
    calls = []
    real = entities.parse
    monkeypatch.setattr(entities, "parse", lambda texts, **kw: calls.append(len(texts)) or real(texts, **kw))
    run(samples=SAMPLES[:2])
    assert calls == [3]  # two answers and one reference, parsed once for the three metrics
    nouns = get_metric("aligncheck_precision", embedder=FakeEmbedder.name, aligncheck_objects="nouns")
    evaluate(SAMPLES[:2], [get_metric("aligncheck_f1", embedder=FakeEmbedder.name), nouns], fake_resources())
    assert calls == [3, 3]  # a new evaluate call reads again (nothing kept by the process) ...
    # ... and another reading of the same texts in that call parsed nothing more


# ------------------------------------------------------------------------------ CLI
def test_cli_score_details_and_options(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    src = tmp_path / "a.jsonl"
    rows = [{"id": "1", "question": "Who founded Apple?", "answer": "Steve Jobs founded Apple in 1977.",
             "reference": "Apple was founded by Steve Jobs in 1976.",
             "contexts": ["Steve Jobs founded Apple in 1977 in Cupertino."]}]
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert main(["score", str(src), "--metrics", "aligncheck_f1,aligncheck_recall", "--details", "--no-store"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["aligncheck_f1"] == pytest.approx(0.5)
    assert [f["object"] for f in row["aligncheck"]["fp_facts"]] == ["1977"]
    assert [f["object"] for f in row["aligncheck"]["fn_facts"]] == ["1976"]
    assert main(["score", str(src), "--metrics", "aligncheck_f1", "--aligncheck-source", "contexts"]) == 0
    # against the contexts 1977 is right and "in Cupertino" is dropped: P = 1, R = 2/3
    assert json.loads(capsys.readouterr().out)["aligncheck_f1"] == pytest.approx(0.8)
    assert main(["score", str(src), "--metrics", "aligncheck_f1", "--aligncheck-types", "0", "--no-store"]) == 2
    assert "aligncheck_types" in capsys.readouterr().err


def test_noun_objects_only_when_asked():
    text = "Apple cut prices in March. Tim Cook is the CEO of Apple."
    doc = entities.parse([text])[text]
    cands = triples.candidates(doc)
    ents = {(f.subject, f.predicate, f.object) for f in triples.facts(cands, None, Aliases([]))}
    nouns = {(f.subject, f.predicate, f.object) for f in triples.facts(cands, None, Aliases([]), objects="nouns")}
    assert ents == {("apple", "cut in", "march"), ("tim cook", "is ceo of", "apple")}
    assert nouns == ents | {("apple", "cut", "prices"), ("tim cook", "is", "ceo")}
    m = get_metric("aligncheck_f1", aligncheck_objects="nouns")
    assert "obj:nouns" in m.signature() and "obj:entities" in get_metric("aligncheck_f1").signature()
    with pytest.raises(ConfigError):
        get_metric("aligncheck_f1", aligncheck_objects="verbs")


def test_fact_tables_and_answers_page_shows_the_facts(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from rageval.metrics.aligncheck import fact_tables
    from rageval.project import open_project
    from rageval.runs.scoring import score

    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RAGEVAL_NO_AUTODEMO", "1")
    samples = [Sample(id="w", question="Who founded Apple?", answer=SAMPLES[1].answer, references=(REF,))]
    result = score(samples, "aligncheck_f1,token_f1", embedder=FakeEmbedder.name, resources=fake_resources(),
                   project=open_project("ac"), source="a.jsonl")
    tables = fact_tables(evaluate(samples, parse_metric_list("aligncheck_f1", embedder=FakeEmbedder.name),
                                  fake_resources())["aligncheck_f1"][0].details)
    assert [r["object"] for r in tables["added"]] == ["1977", "google"]
    assert [r["object"] for r in tables["dropped"]] == ["1976", "san francisco"]
    assert tables["matched"][0]["predicate similarity"] == 1.0
    assert fact_tables(None) == {"matched": [], "added": [], "dropped": []}
    at = AppTest.from_file(
        str(__import__("pathlib").Path(__file__).resolve().parents[1] / "app.py"), default_timeout=90
    )
    at.session_state["project"] = "ac"
    at.switch_page("pages/answers.py").run()
    at.selectbox(key="ans_run").set_value(result.run_id).run()
    assert not at.exception, [e.value for e in at.exception]
    labels = [e.label for e in at.expander]
    assert "AlignCheck facts: 1 matched, 2 added by the answer (possible fabrication), 2 dropped" in labels
    shown = [df.value for df in at.dataframe]
    assert any("subject" in d.columns and "tim cook" in list(d["subject"]) for d in shown)


def test_run_config_carries_aligncheck_options_without_changing_old_hashes():
    from rageval.config import RunConfig

    base = RunConfig(corpus="c", qa_set="q")
    assert "aligncheck_types" not in base.result_fields()  # runs made before the option keep their hash
    top2 = RunConfig(corpus="c", qa_set="q", aligncheck_types="2", aligncheck_source="contexts")
    assert top2.config_hash() != base.config_hash()
    assert RunConfig.from_dict(top2.to_dict()) == top2
    metric = parse_metric_list("aligncheck_f1", **top2.metric_options())[0]
    assert "source:contexts|types:top2-tfidf" in metric.signature()


def test_run_page_asks_for_granularity_only_with_an_aligncheck_metric(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from tests.test_app import build_project

    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RAGEVAL_NO_AUTODEMO", "1")
    build_project("acr", runs=False)
    at = AppTest.from_file(
        str(__import__("pathlib").Path(__file__).resolve().parents[1] / "app.py"), default_timeout=90
    )
    at.session_state["project"] = "acr"
    at.switch_page("pages/run.py").run()
    assert not [t for t in at.text_input if t.key == "run_aligncheck_types"]
    at.multiselect(key="run_metrics").set_value(["token_f1", "aligncheck_f1"]).run()
    at.text_input(key="run_aligncheck_types").set_value("0").run()
    assert any("aligncheck_types" in e.value.replace("\\", "") for e in at.error)
    at.text_input(key="run_aligncheck_types").set_value("PERSON,ORG").run()
    assert not at.error and not at.exception


# ------------------------------------------------------------------------------ judge extractor
JUDGE_TRIPLES = {
    "Steve Jobs founded Apple in 1977.": [
        {
            "subject": "Steve Jobs",
            "subject_type": "PERSON",
            "predicate": "founded",
            "object": "Apple",
            "object_type": "ORG",
        },
        {
            "subject": "Steve Jobs",
            "subject_type": "PERSON",
            "predicate": "founded in",
            "object": "1977",
            "object_type": "DATE",
        },
    ],
    "Apple was founded by Steve Jobs in 1976.": [
        {
            "subject": "Steve Jobs",
            "subject_type": "PERSON",
            "predicate": "founded",
            "object": "Apple",
            "object_type": "ORG",
        },
        {
            "subject": "Steve Jobs",
            "subject_type": "person",
            "predicate": "founded in",
            "object": "1976",
            "object_type": "DATE",
        },
    ],
    "Steve Jobs ha fondato Apple nel 1976.": [
        {
            "subject": "Steve Jobs",
            "subject_type": "PERSON",
            "predicate": "ha fondato",
            "object": "Apple",
            "object_type": "ORG",
        },
        {
            "subject": "Steve Jobs",
            "subject_type": "PERSON",
            "predicate": "ha fondato nel",
            "object": "1976",
            "object_type": "DATE",
        },
    ],
}


def judge_responder(request):
    prompt = next(m["content"] for m in request["messages"] if m["role"] == "user")
    text = prompt.split("Text:\n<text>\n", 1)[1].split("\n</text>", 1)[0].strip()
    if text == "BROKEN":
        return "no JSON here"
    return json.dumps({"triples": JUDGE_TRIPLES.get(text, [])})


def test_judge_extractor_through_the_llm_client(llm_env):
    from rageval.llm.client import make_llm_client
    from rageval.aligncheck import judge as aligncheck_judge
    from rageval.types import Resources

    llm_env.script(responder=judge_responder)
    client = make_llm_client({"judge": "openai:fake-judge"}, concurrency=2, use_cache=False, max_retries=1,
                             timeout=5.0, backoff_base=0.01, backoff_cap=0.05)
    try:
        ref = "Apple was founded by Steve Jobs in 1976."
        samples = [Sample(id="en", answer="Steve Jobs founded Apple in 1977.", references=(ref,)),
                   Sample(id="it", answer="Steve Jobs ha fondato Apple nel 1976.", references=(ref,)),
                   Sample(id="bad", answer="BROKEN", references=(ref,))]
        metrics = parse_metric_list("aligncheck_f1,aligncheck_precision", judge="openai:fake-judge",
                                    embedder=FakeEmbedder.name)
        assert metrics[0].needs_llm and "judge:openai:fake-judge|prompt:" in metrics[0].signature()
        got = evaluate(samples, metrics, Resources(embedder_factory=FakeEmbedder, llm=client))
        en, it, bad = got["aligncheck_f1"]
        assert en.value == pytest.approx(0.5) and en.details["extractor"] == "openai:fake-judge"
        assert [f["object"] for f in en.details["aligncheck"]["fp_facts"]] == ["1977"]
        # an Italian answer: the judge reads it, the pairs match, the predicates differ in wording
        assert it.status == "ok" and it.details["aligncheck"]["fp"] == 0 and it.details["aligncheck"]["fn"] == 0
        assert (bad.status, bad.reason) == ("unscored", "judge_parse_error") and bad.value is None
    finally:
        client.close()
    with pytest.raises(ValueError):
        aligncheck_judge.validate_triples({"triples": [{"subject": "x", "subject_type": "??", "predicate": "p",
                                                        "object": "y"}]})
    assert aligncheck_judge.validate_triples({"triples": [{"subject": "", "predicate": "p", "object": "y"}]}) == []
