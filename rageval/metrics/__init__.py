"""Every metric rageval has: ``METRICS`` maps a name to its class (a literal dict, as sacrebleu
does), so the list of metrics is read here and nowhere is filled by import side effects.

A name ending in ``@K`` (``"ndcg@K"``) takes ``k``: ``get_metric("ndcg@10")`` builds ``NdcgAtK(k=10)``.
Look-up, options and parsing of metric lists are in :mod:`rageval.metrics.base`; a new metric is a
frozen dataclass in its family's module plus one line here.
"""
from rageval.metrics.retrieval import (
    RecallAtK,
    PrecisionAtK,
    HitRateAtK,
    NdcgAtK,
    AveragePrecision,
    ReciprocalRank,
)
from rageval.metrics.lexical import (
    Bleu,
    Rouge1,
    Rouge2,
    RougeL,
    RougeLsum,
    TokenPrecision,
    TokenRecall,
    TokenF1,
    ExactMatch,
)
from rageval.metrics.semantic import AnswerSimilarity, BertScorePrecision, BertScoreRecall, BertScoreF1
from rageval.metrics.correctness import AnswerCorrectnessOffline, AnswerEquivalence
from rageval.metrics.judged import RagasAnswerCorrectness, RagasAnswerRelevance
from rageval.metrics.claims import Faithfulness, ContradictedShare, NotMentionedShare
from rageval.metrics.hedging import Hedging
from rageval.metrics.triad import ContextRelevance, Groundedness, AnswerRelevance
from rageval.metrics.aligncheck import AlignCheckF1, AlignCheckPrecision, AlignCheckRecall

METRICS = {
    "recall@K": RecallAtK,
    "precision@K": PrecisionAtK,
    "hit_rate@K": HitRateAtK,
    "ndcg@K": NdcgAtK,
    "map": AveragePrecision,
    "mrr": ReciprocalRank,
    "bleu": Bleu,
    "rouge1": Rouge1,
    "rouge2": Rouge2,
    "rougeL": RougeL,
    "rougeLsum": RougeLsum,
    "token_precision": TokenPrecision,
    "token_recall": TokenRecall,
    "token_f1": TokenF1,
    "exact_match": ExactMatch,
    "answer_similarity": AnswerSimilarity,
    "bertscore_precision": BertScorePrecision,
    "bertscore_recall": BertScoreRecall,
    "bertscore_f1": BertScoreF1,
    "answer_correctness_offline": AnswerCorrectnessOffline,
    "answer_equivalence": AnswerEquivalence,
    "ragas_answer_correctness": RagasAnswerCorrectness,
    "ragas_answer_relevance": RagasAnswerRelevance,
    "faithfulness": Faithfulness,
    "contradicted_share": ContradictedShare,
    "not_mentioned_share": NotMentionedShare,
    "hedging": Hedging,
    "context_relevance": ContextRelevance,
    "groundedness": Groundedness,
    "answer_relevance": AnswerRelevance,
    "aligncheck_f1": AlignCheckF1,
    "aligncheck_precision": AlignCheckPrecision,
    "aligncheck_recall": AlignCheckRecall,
}
