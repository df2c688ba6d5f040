"""Property tests (hypothesis) at the boundary: chunking, every loader and table parsing take
arbitrary unicode without an exception; an identical answer scores exactly one; real MiniLM
values do not depend on the batch. (That every registered metric takes arbitrary unicode, stays
in its range and does not depend on the batch is tested once, in test_metrics_registry.py.)
Example counts are kept small so that the suite stays fast on 2 cores."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rageval.errors import InputError
from rageval.ingest.chunking import chunk_document
from rageval.config import ChunkingConfig
from rageval.ingest.loaders import KINDS, Document, IngestProblem, Page, load_file
from rageval.metrics.base import evaluate, get_metric
from rageval.types import Sample
from rageval.ingest.rows import read_table
from tests.fakes import FakeEmbedder, fake_resources

ANY = st.text(alphabet=st.characters(codec=None), max_size=120)  # lone surrogates, NUL, bidi, all planes
FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _metric(name):
    return get_metric(name, embedder=FakeEmbedder.name)


@pytest.mark.parametrize("name", ["bleu", "token_f1", "rougeL", "exact_match", "bertscore_f1"])
def test_exact_match_is_exactly_one(name):
    metric = _metric(name)
    text = "The Eiffel Tower was finished in 1889 in Paris, France."
    score = evaluate([Sample(id="a", question="q", answer=text, references=(text,))], [metric],
                     fake_resources())[metric.name][0]
    assert score.status == "ok" and 0.0 <= score.value <= 1.0 and score.value == pytest.approx(1.0)


def test_real_minilm_bertscore_and_similarity_do_not_depend_on_the_batch():
    """The reported bug: bertscore_f1 1.0000000445 in a batch, 0.9999999960 alone (padding)."""
    from rageval.embed.cache import make_embedder
    from rageval.types import Resources

    embedder = make_embedder("local")
    texts = ["Paris is the capital of France.", "The treaty was signed in 1648 at Münster and Osnabrück "
             "after thirty years of war across central Europe.", "Yes.", "Rome, città eterna, è bella."]
    batch = [
        Sample(id=f"s{i}", question="q", answer=t, references=(t, texts[(i + 1) % 4])) for i, t in enumerate(texts)
    ]
    for name in ("bertscore_f1", "bertscore_precision", "answer_similarity"):
        metric = get_metric(name)
        together = evaluate(batch, [metric], Resources(embedder_factory=lambda: embedder))[name]
        for sample, score in zip(batch, together):
            fresh = make_embedder("local")  # a new cache: the text is computed alone
            alone = evaluate([sample], [metric], Resources(embedder_factory=lambda: fresh))[name][0]
            assert score.value == alone.value and -1.0 <= score.value <= 1.0, name
            assert score.value <= 1.0


@FAST
@given(text=st.text(alphabet=st.characters(codec=None), max_size=3000),
       size=st.integers(20, 400), overlap=st.integers(0, 19), method=st.sampled_from(["recursive", "chars"]))
def test_chunking_any_text(text, size, overlap, method):
    from rageval.ingest.loaders import normalize_text

    body = normalize_text(text)
    doc = Document(id="d", name="d.txt", kind="txt", pages=(Page(1, body),), size_bytes=len(text))
    chunks = chunk_document(doc, ChunkingConfig(method=method, size=size, overlap=overlap))
    for c in chunks:
        assert c.text == doc.text[c.char_start:c.char_end] and c.text.strip()
        c.text.encode("utf-8")


@FAST
@given(name=ANY, ext=st.sampled_from(sorted(KINDS) + [".csv", ""]), data=st.binary(max_size=600)
       | ANY.map(lambda t: t.encode("utf-8", "surrogatepass")))
def test_every_loader_any_bytes_and_name(name, ext, data):
    got = load_file(name + ext, data)
    assert isinstance(got, (Document, IngestProblem))
    assert got.name and len(got.name) <= 120 and "/" not in got.name
    if isinstance(got, Document):
        for page in got.pages:
            page.text.encode("utf-8")  # no lone surrogate reaches storage
            assert "\x00" not in page.text
    else:
        assert got.reason


@FAST
@given(ext=st.sampled_from([".csv", ".tsv", ".json", ".jsonl"]),
       data=st.binary(max_size=400) | ANY.map(lambda t: t.encode("utf-8", "surrogatepass"))
       | st.lists(st.dictionaries(st.sampled_from(["id", "question", "answer", "reference", "x\ud800"]), ANY,
                                  max_size=4), max_size=4).map(lambda rows: __import__("json").dumps(rows).encode()))
def test_table_parsing_any_bytes(ext, data):
    from rageval.ingest.qa import parse_qa
    from rageval.runs.scoring import parse_answers

    for parse in (read_table, parse_qa, parse_answers):
        try:
            parse("f" + ext, data)
        except InputError as exc:
            assert str(exc).startswith("f" + ext)
    try:
        items, problems = parse_qa("f" + ext, data)
    except InputError:
        return
    for item in items:
        item["question"].encode("utf-8")
    for p in problems:
        str(p).encode("utf-8")
