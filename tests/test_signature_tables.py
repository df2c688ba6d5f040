"""A table a metric reads (numbers, units, dates, hedging phrases, word lists) is part of its
signature: change one entry and every metric that reads it gets a new signature."""
import re

import pytest

from rageval.metrics.base import get_metric, metric_names
from rageval.text import hedges, numbers, tokenize, words
from rageval.util import tables_hash

NAMES = [n.replace("@K", "@3") for n in metric_names()]
#: metrics whose offline values read the text tables (the rest: ids, lexical norms, embeddings only)
READERS = {"hedging", "answer_correctness_offline", "answer_equivalence", "faithfulness", "contradicted_share",
           "not_mentioned_share", "context_relevance", "groundedness", "answer_relevance",
           "ragas_answer_correctness", "ragas_answer_relevance"}


def _signatures() -> dict[str, str]:
    return {n: get_metric(n).signature() for n in NAMES}


@pytest.mark.parametrize("module,table,change", [
    (numbers, "UNITS", lambda t: {**t, "furlong": ("m", 201.168)}),
    (numbers, "MONTHS", lambda t: {**t, "septembre": 9}),
    (numbers, "CURRENCY_WORDS", lambda t: {**t, "quid": "gbp"}),
    (hedges, "HEDGE_CUES", lambda t: t + ("arguably",)),
    (hedges, "ABSTAIN_CUES", lambda t: t + ("no comment",)),
    (tokenize, "_NON_WORD", lambda t: re.compile(r"\W+")),  # the word tokenizer (language guess, generator)
])
def test_changing_a_table_moves_every_signature_that_reads_it(monkeypatch, module, table, change):
    before = _signatures()
    monkeypatch.setattr(module, table, change(getattr(module, table)))
    after = _signatures()
    unmoved = sorted(n for n in READERS if n in before and before[n] == after[n])
    assert unmoved == []


def test_tables_hash_sees_sets_dicts_and_patterns(monkeypatch):
    first = tables_hash(words, numbers)
    monkeypatch.setattr(words, "STOPWORDS", words.STOPWORDS | {"zzz"})
    assert tables_hash(words, numbers) != first
    assert tables_hash(numbers) == tables_hash(numbers)  # stable: sets and dicts are sorted
