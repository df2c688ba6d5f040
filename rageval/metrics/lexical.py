"""Lexical answer metrics: BLEU (sacrebleu), ROUGE (rouge-score), SQuAD token P/R/F1 and exact match.

Every metric takes several references. BLEU uses sacrebleu's own multi-reference BLEU
(n-gram counts clipped by the maximum count in any reference, closest reference length);
the others score the answer against each reference and keep the maximum.
Values are in [0, 1]; BLEU is sacrebleu's 0-100 score divided by 100.
"""
from __future__ import annotations

import importlib.metadata
from collections import Counter
from dataclasses import dataclass
from typing import Mapping, Sequence

from rageval.errors import ConfigError
from rageval.types import Resources, Sample, Score
from rageval.text.tokenize import (
    WordTokenizer,
    answer_tokens,
    check_language,
    normalization_name,
    normalize_answer,
    stemmer_name,
)

BLEU_TOKENIZERS = ("13a", "intl", "char", "none")
_ROUGE_VERSION = importlib.metadata.version("rouge-score")


def references_of(sample: Sample) -> list[str]:
    """The sample's non-blank references, in order."""
    return [r for r in sample.references if r.strip()]


@dataclass(frozen=True)
class _Lexical:
    needs = frozenset({"answer", "reference"})
    range = (0.0, 1.0)
    higher_is_better = True
    kind = "lexical"
    needs_llm = False


# --------------------------------------------------------------------------------------- BLEU
@dataclass(frozen=True)
class Bleu(_Lexical):
    """Sentence BLEU as computed by sacrebleu, on a 0-1 scale.

    Smoothing: sacrebleu's ``sentence_bleu`` defaults, the ones it recommends for single
    sentences: ``exp`` smoothing (NIST "method 3": a zero n-gram precision is replaced by
    1 / (2^j * total_n)) with effective order (orders longer than the hypothesis are left out).
    ``details["stats"]`` keeps sacrebleu's sufficient statistics, so :func:`corpus_bleu` gives
    corpus BLEU over any subset exactly as ``sacrebleu.corpus_bleu`` would.

    Formula: BLEU = BP * exp(sum_{n=1..4} log(p_n) / 4), BP = min(1, exp(1 - ref_len / hyp_len)),
    p_n = clipped matching n-grams / hypothesis n-grams (sacrebleu's 0-100 value / 100)
    """

    tokenize: str = "13a"
    lowercase: bool = False

    name = "bleu"
    languages = ("any",)

    def __post_init__(self) -> None:
        if self.tokenize not in BLEU_TOKENIZERS:
            raise ConfigError(f"tokenize={self.tokenize!r}; choose one of: {', '.join(BLEU_TOKENIZERS)}")

    def _scorer(self, sentence: bool):
        from sacrebleu.metrics import BLEU

        return BLEU(lowercase=self.lowercase, tokenize=self.tokenize, smooth_method="exp", effective_order=sentence)

    def signature(self) -> str:
        import sacrebleu

        case = "lc" if self.lowercase else "mixed"
        return (f"bleu|nrefs:var|case:{case}|eff:yes|tok:{self.tokenize}|smooth:exp|scale:0-1"
                f"|sacrebleu:{sacrebleu.__version__}|v1")

    def score_batch(self, samples: Sequence[Sample], resources: Resources) -> list[Score]:
        scorer = self._scorer(sentence=True)
        out = []
        for sample in samples:
            got = scorer.sentence_score(sample.answer or "", references_of(sample))
            stats = [got.sys_len, got.ref_len, *got.counts, *got.totals]
            out.append(Score.ok(got.score / 100.0, {"sacrebleu": got.score, "stats": [int(x) for x in stats]}))
        return out

    def corpus_score(self, scores: Sequence[Score]) -> float:
        """Corpus BLEU (0-1, effective order off, as ``sacrebleu.corpus_bleu``) from stored details."""
        return corpus_bleu([s.details for s in scores if s.status == "ok" and s.details])


def corpus_bleu(details: Sequence[Mapping]) -> float:
    """Corpus BLEU on a 0-1 scale from the ``details`` of sentence-level :class:`Bleu` scores.

    The statistics (already tokenised by the metric's tokenizer) are summed over sentences and
    scored once (``exp`` smoothing, no effective order): the same number as
    ``sacrebleu.corpus_bleu(hyps, refs).score / 100`` with the same tokenizer and casing.
    """
    if not details:
        raise ConfigError("corpus BLEU needs at least one scored sentence")
    from sacrebleu.metrics import BLEU

    sums = [sum(col) for col in zip(*(d["stats"] for d in details))]
    order = (len(sums) - 2) // 2
    got = BLEU.compute_bleu(
        correct=sums[2 : 2 + order], total=sums[2 + order :], sys_len=sums[0], ref_len=sums[1],
        smooth_method="exp", effective_order=False, max_ngram_order=order,
    )
    return got.score / 100.0


# -------------------------------------------------------------------------------------- ROUGE
@dataclass(frozen=True)
class _Rouge(_Lexical):
    use_stemmer: bool = False
    language: str = "en"

    languages = ("en", "it")
    rouge_type = ""
    #: what score_batch imports: rouge-score pulls in NLTK, whose __init__ imports scipy.stats
    #: (about 1.1 CPU-s); rageval.scoring.parallel.warm_up imports it ahead, in the background
    imports = ("rouge_score.rouge_scorer",)

    def __post_init__(self) -> None:
        object.__setattr__(self, "language", check_language(self.language))
        stemmer_name(self.language, self.use_stemmer)  # ConfigError for a language without a stemmer

    @property
    def name(self) -> str:
        return self.rouge_type

    def signature(self) -> str:
        stem = stemmer_name(self.language, self.use_stemmer)
        return (f"{self.rouge_type}|tok:unicode-words|lang:{self.language}|stem:{stem}|refs:max-f"
                f"|rouge-score:{_ROUGE_VERSION}|v1")

    def score_batch(self, samples: Sequence[Sample], resources: Resources) -> list[Score]:
        from rouge_score.rouge_scorer import RougeScorer

        scorer = RougeScorer([self.rouge_type], tokenizer=WordTokenizer(self.language, self.use_stemmer))
        out = []
        for sample in samples:
            per_ref = [scorer.score(ref, sample.answer or "")[self.rouge_type] for ref in references_of(sample)]
            best = max(range(len(per_ref)), key=lambda i: per_ref[i].fmeasure)
            got = per_ref[best]
            out.append(
                Score.ok(got.fmeasure, {"precision": got.precision, "recall": got.recall, "best_reference": best})
            )
        return out


_ROUGE_DOC = """{what} F-measure from rouge-score's ``RougeScorer``, max over references.

    Tokens come from :class:`rageval.text.tokenize.WordTokenizer` (Unicode letters kept;
    on ASCII text identical to rouge-score's default tokenizer); ``use_stemmer`` stems with
    Porter for English, Snowball for other languages. Details hold precision and recall of the
    best reference.

    Formula: {formula}
    """


@dataclass(frozen=True)
class Rouge1(_Rouge):
    __doc__ = _ROUGE_DOC.format(
        what="ROUGE-1 (unigram)",
        formula="F = 2PR/(P+R), P = |unigram overlap| / |answer unigrams|, R = |overlap| / |reference unigrams|",
    )
    rouge_type = "rouge1"


@dataclass(frozen=True)
class Rouge2(_Rouge):
    __doc__ = _ROUGE_DOC.format(
        what="ROUGE-2 (bigram)",
        formula="F = 2PR/(P+R), P = |bigram overlap| / |answer bigrams|, R = |overlap| / |reference bigrams|",
    )
    rouge_type = "rouge2"


@dataclass(frozen=True)
class RougeL(_Rouge):
    __doc__ = _ROUGE_DOC.format(
        what="ROUGE-L (longest common subsequence)",
        formula="F = 2PR/(P+R), P = LCS / |answer tokens|, R = LCS / |reference tokens|",
    )
    rouge_type = "rougeL"


@dataclass(frozen=True)
class RougeLsum(_Rouge):
    __doc__ = _ROUGE_DOC.format(
        what="ROUGE-Lsum (summary-level LCS over newline-separated sentences, as rouge-score)",
        formula="F = 2PR/(P+R), P = sum_ref-sentences |union-LCS| / |answer tokens|, R = same / |reference tokens|",
    )
    rouge_type = "rougeLsum"


# ------------------------------------------------------------------------- SQuAD token metrics
def token_prf(pred: Sequence[str], gold: Sequence[str]) -> tuple[float, float, float]:
    """SQuAD (v2 script) token precision, recall and F1; both empty counts as a match.

    >>> token_prf(["dog", "ran"], ["dog"])
    (0.5, 1.0, 0.6666666666666666)
    """
    if not pred or not gold:
        same = float(list(pred) == list(gold))
        return same, same, same
    common = sum((Counter(pred) & Counter(gold)).values())
    if common == 0:
        return 0.0, 0.0, 0.0
    p, r = common / len(pred), common / len(gold)
    return p, r, 2 * p * r / (p + r)


@dataclass(frozen=True)
class _Token(_Lexical):
    language: str = "en"

    languages = ("en", "it")
    part = 0  # index into token_prf's triple

    def __post_init__(self) -> None:
        object.__setattr__(self, "language", check_language(self.language))

    def signature(self) -> str:
        return f"{self.name}|norm:{normalization_name(self.language)}|refs:max|v1"

    def score_batch(self, samples: Sequence[Sample], resources: Resources) -> list[Score]:
        out = []
        for sample in samples:
            pred = answer_tokens(sample.answer or "", self.language)
            values = [token_prf(pred, answer_tokens(ref, self.language))[self.part] for ref in references_of(sample)]
            best = max(range(len(values)), key=values.__getitem__)
            out.append(Score.ok(values[best], {"best_reference": best}))
        return out


@dataclass(frozen=True)
class TokenPrecision(_Token):
    """Share of the answer's SQuAD-normalised tokens found in a reference (bag of tokens), max over references.

    Formula: P = |answer ∩ reference| / |answer| (multiset intersection)
    """

    name = "token_precision"
    part = 0


@dataclass(frozen=True)
class TokenRecall(_Token):
    """Share of a reference's SQuAD-normalised tokens found in the answer, max over references.

    Formula: R = |answer ∩ reference| / |reference| (multiset intersection)
    """

    name = "token_recall"
    part = 1


@dataclass(frozen=True)
class TokenF1(_Token):
    """SQuAD token F1 between answer and reference, max over references (the official script's).

    Formula: F1 = 2PR / (P + R) with P, R as token_precision and token_recall; 0 when nothing is shared
    """

    name = "token_f1"
    part = 2


@dataclass(frozen=True)
class ExactMatch(_Token):
    """1 when the SQuAD-normalised answer equals a normalised reference, else 0.

    Formula: EM = max over references of [normalize(answer) == normalize(reference)]
    """

    name = "exact_match"

    def score_batch(self, samples: Sequence[Sample], resources: Resources) -> list[Score]:
        out = []
        for sample in samples:
            pred = normalize_answer(sample.answer or "", self.language)
            hits = [i for i, ref in enumerate(references_of(sample)) if normalize_answer(ref, self.language) == pred]
            out.append(Score.ok(1.0 if hits else 0.0, {"matched_reference": hits[0] if hits else None}))
        return out
