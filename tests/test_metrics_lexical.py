"""Lexical metrics: sacrebleu and rouge-score values on their own inputs, SQuAD EM/F1 by hand."""
from __future__ import annotations

import pytest
import sacrebleu
from rouge_score import rouge_scorer

from rageval.errors import ConfigError
from rageval.metrics.base import evaluate, get_metric
from rageval.types import Sample
from rageval.metrics.lexical import corpus_bleu
from rageval.text.tokenize import WordTokenizer, normalize_answer

BLEU_CASES = [
    ("The cat sat on the mat.", ["The cat is on the mat.", "There is a cat on the mat."]),
    ("It is a guide to action which ensures that the military always obeys the commands of the party.",
     ["It is a guide to action that ensures that the military will forever heed Party commands.",
      "It is the guiding principle which guarantees the military forces always being under the command of the Party."]),
    ("Paris", ["Paris", "the city of Paris"]),
    ("no overlap at all here", ["completely different words"]),
    ("Il gatto dorme sul divano.", ["Il gatto sta dormendo sul divano."]),
    ("42", ["forty two"]),
]


def _samples(cases):
    return [Sample(id=str(i), answer=h, references=tuple(r)) for i, (h, r) in enumerate(cases)]


def test_sentence_bleu_equals_sacrebleu():
    scores = evaluate(_samples(BLEU_CASES), [get_metric("bleu")])["bleu"]
    for (hyp, refs), score in zip(BLEU_CASES, scores):
        assert score.value * 100 == pytest.approx(sacrebleu.sentence_bleu(hyp, refs).score, abs=1e-9)


def test_bleu_options_follow_sacrebleu():
    metric = get_metric("bleu", tokenize="intl", lowercase=True)
    scores = evaluate(_samples(BLEU_CASES), [metric])["bleu"]
    for (hyp, refs), score in zip(BLEU_CASES, scores):
        expected = sacrebleu.sentence_bleu(hyp, refs, tokenize="intl", lowercase=True).score
        assert score.value * 100 == pytest.approx(expected, abs=1e-9)
    assert metric.signature() != get_metric("bleu").signature()
    with pytest.raises(ConfigError):
        get_metric("bleu", tokenize="nope")


def test_corpus_bleu_from_stored_statistics_equals_sacrebleu():
    cases = [(h, r[:2] if len(r) >= 2 else r * 2) for h, r in BLEU_CASES]  # two reference streams
    metric = get_metric("bleu")
    scores = evaluate(_samples(cases), [metric])["bleu"]
    streams = [[r[j] for _, r in cases] for j in range(2)]
    expected = sacrebleu.corpus_bleu([h for h, _ in cases], streams).score
    assert metric.corpus_score(scores) * 100 == pytest.approx(expected, abs=1e-9)
    assert corpus_bleu([s.details for s in scores[:2]]) * 100 == pytest.approx(
        sacrebleu.corpus_bleu([h for h, _ in cases[:2]], [s[:2] for s in streams]).score, abs=1e-9
    )


# rouge-score's own test inputs (rouge_scorer_test.py) and a few more ASCII cases
ROUGE_CASES = [
    ("testing", ["testing one two"]),
    ("testing one", ["testing one two"]),
    ("testing two", ["testing one two"]),
    ("text first", ["first text", "first something"]),
    ("", ["testing one two"]),
    ("The runners were running quickly to the stations.", ["A runner runs quickly to the station.", "Runners ran."]),
    ("first sentence here.\nsecond sentence there.", ["second sentence here.\nfirst sentence there too."]),
]


@pytest.mark.parametrize("rouge_type", ["rouge1", "rouge2", "rougeL", "rougeLsum"])
@pytest.mark.parametrize("stem", [False, True])
def test_rouge_equals_rouge_score(rouge_type, stem):
    cases = [(h, r) for h, r in ROUGE_CASES if h]
    scores = evaluate(_samples(cases), [get_metric(rouge_type, use_stemmer=stem)])[rouge_type]
    reference = rouge_scorer.RougeScorer([rouge_type], use_stemmer=stem)
    for (hyp, refs), score in zip(cases, scores):
        expected = reference.score_multi(refs, hyp)[rouge_type]
        assert score.value == pytest.approx(expected.fmeasure, abs=1e-12)
        assert score.details["precision"] == pytest.approx(expected.precision, abs=1e-12)
        assert score.details["recall"] == pytest.approx(expected.recall, abs=1e-12)


def test_word_tokenizer_matches_rouge_score_on_ascii_and_keeps_unicode():
    from rouge_score.tokenizers import DefaultTokenizer

    for text, _ in ROUGE_CASES + BLEU_CASES[:4]:
        for stem in (False, True):
            assert WordTokenizer("en", stem).tokenize(text) == DefaultTokenizer(stem).tokenize(text)
    assert WordTokenizer("it").tokenize("Perché la città è così bella?") == [
        "perché",
        "la",
        "città",
        "è",
        "così",
        "bella",
    ]
    assert DefaultTokenizer().tokenize("città") == ["citt"]  # the mangling this tokenizer avoids


def test_italian_rouge_is_not_mangled_and_uses_snowball_not_porter():
    s = Sample(id="1", answer="La città più bella", references=("Le città più belle",))
    plain = evaluate([s], [get_metric("rouge1", language="it")])["rouge1"][0]
    stemmed = evaluate([s], [get_metric("rouge1", language="it", use_stemmer=True)])["rouge1"][0]
    assert plain.value == pytest.approx(0.5)  # città, più match; la/le and bella/belle do not
    assert stemmed.value > plain.value
    assert "stem:snowball-it" in get_metric("rouge1", language="it", use_stemmer=True).signature()
    with pytest.raises(ConfigError):
        get_metric("rougeL", language="ja", use_stemmer=True)


# (prediction, references, EM, F1) computed by hand with the official SQuAD rules
SQUAD_CASES = [
    ("Paris", ["Paris"], 1.0, 1.0),
    ("the Eiffel Tower!", ["Eiffel tower"], 1.0, 1.0),
    ("a dog ran", ["the dog"], 0.0, 2 / 3),
    ("dog dog", ["dog"], 0.0, 2 / 3),  # multiset: one shared token, P = 1/2, R = 1
    ("Washington metropolitan area", ["FedExField in Landover", "the Washington metropolitan area"], 1.0, 1.0),
    ("in 1990s", ["1990"], 0.0, 0.0),
    ("New York City", ["new york"], 0.0, 0.8),
    ("U.S.", ["US"], 1.0, 1.0),
    ("an apple", ["The"], 0.0, 0.0),  # reference normalises to nothing
    ("The", ["a"], 1.0, 1.0),  # both normalise to nothing
    ("Smith, John", ["John Smith", "J. Smith"], 0.0, 1.0),
]


@pytest.mark.parametrize("pred,refs,em,f1", SQUAD_CASES)
def test_squad_em_and_f1_by_hand(pred, refs, em, f1):
    s = Sample(id="1", answer=pred, references=tuple(refs))
    got = evaluate([s], [get_metric("exact_match"), get_metric("token_f1")])
    assert got["exact_match"][0].value == em
    assert got["token_f1"][0].value == pytest.approx(f1)


def test_token_precision_and_recall_max_over_references():
    s = Sample(id="1", answer="john smith jr", references=("smith", "john smith jr junior"))
    got = evaluate([s], [get_metric("token_precision"), get_metric("token_recall")])
    assert got["token_precision"][0].value == pytest.approx(1.0)  # second reference holds all three
    assert got["token_recall"][0].value == pytest.approx(1.0)  # first reference fully recalled


def test_italian_normalisation():
    assert normalize_answer("L'Italia", "it") == "italia"
    assert normalize_answer("Gli anni \u201980", "it") == "anni 80"
    assert normalize_answer("un'isola e la città", "it") == "isola e città"
    s = Sample(id="1", answer="L'Italia", references=("Italia",))
    assert evaluate([s], [get_metric("exact_match", language="it")])["exact_match"][0].value == 1.0
    assert evaluate([s], [get_metric("exact_match")])["exact_match"][0].value == 0.0
    assert get_metric("token_f1", language="it").signature() == "token_f1|norm:squad-it|refs:max|v1"
    with pytest.raises(ConfigError):
        get_metric("token_f1", language="italian")


def test_missing_reference_is_unscored():
    s = Sample(id="1", answer="x", references=("  ",))
    got = evaluate([s], [get_metric("bleu"), get_metric("rougeL"), get_metric("token_f1")])
    assert all(v[0].status == "unscored" and v[0].reason == "no_reference" for v in got.values())
