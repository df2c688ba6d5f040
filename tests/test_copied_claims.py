"""A claim copied from the documents is SUPPORTED, with its whole sentence as evidence:
files go through the real loader and chunker, answers through ``evaluate`` with faithfulness
(and the ``score`` command), so hard wraps, PDF line breaks, Markdown and Italian elisions all
meet the one segmenter and the containment check before the model."""
from __future__ import annotations

import json

import pytest
from fpdf import FPDF

from rageval.embed.cache import make_embedder
from rageval.ingest.chunking import chunk_document
from rageval.config import ChunkingConfig
from rageval.ingest.loaders import load_file
from rageval.metrics.base import evaluate, get_metric
from rageval.types import Resources, Sample

TXT = (b"Travel policy, version 3\n\n"
       b"Employees book trains through the travel desk at least five days before the trip. Refunds are\n"
       b"not issued for tickets bought with a promotional code, even when the trip is cancelled by\n"
       b"the company. Receipts are needed for every expense above 25 EUR.\n")

MARKDOWN = (b"# Travel policy\n\n## Refunds\n\n"
            b"- Refunds are not issued for tickets bought with a promotional code,\n"
            b"  even when the trip is cancelled.\n"
            b"- Receipts are needed for every expense above 25 EUR.\n\n"
            b"## Booking\n\nTrains are booked through the travel desk.\n")

ITALIAN = ("Regolamento interno\n\n"
           "Il personale dell'Area Tecnica registra le presenze entro le 10 del mattino nel portale\n"
           "aziendale. Le richieste di ferie vanno inviate all'ufficio del personale con due settimane\n"
           "di anticipo.\n").encode("utf-8")


def pdf_bytes() -> bytes:
    """One page whose sentences the narrow text box breaks over several lines."""
    pdf = FPDF()
    pdf.set_font("Helvetica", size=11)
    pdf.add_page()
    pdf.multi_cell(90, 6, "Employees book trains through the travel desk at least five days before the trip. "
                          "Refunds are not issued for tickets bought with a promotional code, even when the "
                          "trip is cancelled by the company. Receipts are needed for every expense above 25 EUR.")
    return bytes(pdf.output())


def contexts_of(name: str, data: bytes) -> list[str]:
    doc = load_file(name, data)
    return [c.text for c in chunk_document(doc, ChunkingConfig())]


_EMBEDDER: list = []


def _embedder():
    if not _EMBEDDER:
        _EMBEDDER.append(make_embedder("local"))
    return _EMBEDDER[0]


def faithfulness_claims(answer: str, contexts: list[str]) -> tuple[float, list[dict]]:
    (score,) = evaluate(
        [Sample(id="q1", question="What does the policy say?", answer=answer, contexts=tuple(contexts))],
        [get_metric("faithfulness")],
        Resources(embedder_factory=_embedder),
    )["faithfulness"]
    assert score.status == "ok", score.reason
    return score.value, score.details["claims"]


def whole_sentence(ctx: str, claim: dict) -> str:
    start, end = claim["span"]
    assert ctx[start:end] == claim["evidence"]
    return " ".join(claim["evidence"].split())


SENTENCE = ("Refunds are not issued for tickets bought with a promotional code, even when the trip is "
            "cancelled by the company.")


@pytest.mark.parametrize("name, data, answer, sentence", [
    ("policy.txt", TXT, SENTENCE, SENTENCE),
    ("policy.pdf", None, SENTENCE, SENTENCE),
    ("policy.md", MARKDOWN,
     "Refunds are not issued for tickets bought with a promotional code, even when the trip is cancelled.",
     "Refunds are not issued for tickets bought with a promotional code, even when the trip is cancelled."),
    ("regolamento.txt", ITALIAN,
     "Il personale dell'Area Tecnica registra le presenze entro le 10 del mattino nel portale aziendale.",
     "Il personale dell'Area Tecnica registra le presenze entro le 10 del mattino nel portale aziendale."),
])
def test_a_copied_sentence_is_supported_with_its_whole_sentence(name, data, answer, sentence):
    contexts = contexts_of(name, data if data is not None else pdf_bytes())
    head = " ".join(sentence.split()[:2])
    assert any(head in c and "\n" in c[c.index(head):c.index(head) + len(sentence)] for c in contexts), \
        "the document must break the sentence's lines"
    value, claims = faithfulness_claims(answer, contexts)
    assert value == 1.0
    (claim,) = claims
    assert claim["verdict"] == "SUPPORTED" and claim["confidence"] == 1.0 and claim["low_confidence"] is False
    assert "verbatim" in claim["reason"]
    ctx = contexts[int(claim["evidence_chunk"].strip("context[]"))]
    assert whole_sentence(ctx, claim) == sentence


def test_markdown_list_item_and_curly_quotes_and_dashes():
    contexts = contexts_of("policy.md", MARKDOWN)
    value, claims = faithfulness_claims("receipts are needed for every expense above 25 EUR", contexts)
    assert (
        value == 1.0 and whole_sentence(contexts[0], claims[0]) == "Receipts are needed for every expense above 25 EUR."
    )
    ctx = ["The desk said: \u201cTrains are booked 5\u20137 days ahead\u201d, which is new."]
    value, claims = faithfulness_claims('The desk said: "trains are booked 5-7 days ahead"', ctx)
    assert value == 1.0 and claims[0]["quote_span"] == [0, ctx[0].index(", which")]


def test_score_command_marks_a_copied_claim_supported(tmp_path, monkeypatch, capsys):
    from rageval.cli import main

    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    rows = tmp_path / "answers.jsonl"
    rows.write_text(json.dumps({"id": "q1", "question": "Refunds?", "answer": SENTENCE,
                                "contexts": [TXT.decode()]}) + "\n", encoding="utf-8")
    assert main(["score", str(rows), "--metrics", "faithfulness", "--details", "--no-store"]) == 0
    (row,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    (claim,) = row["claims"]
    assert row["faithfulness"] == 1.0 and claim["verdict"] == "SUPPORTED" and claim["low_confidence"] is False
    assert " ".join(claim["evidence"].split()) == SENTENCE and claim["confidence"] == 1.0


def test_a_copy_of_a_markdown_sentence_with_emphasis_is_supported():
    contexts = contexts_of("leave.md", b"# Leave\n\n- Full-time employees receive **25 working days** of paid "
                                       b"annual leave per calendar year.\n")
    for answer in ("Full-time employees receive 25 working days of paid annual leave per calendar year.",
                   "Full-time employees receive **25 working days** of paid annual leave per calendar year."):
        sample = Sample(id="q7", question="How much leave?", contexts=tuple(contexts), answer=answer)
        (score,) = evaluate([sample], [get_metric("faithfulness")],
                            Resources(embedder_factory=_embedder))["faithfulness"]
        (claim,) = score.details["claims"]
        assert claim["verdict"] == "SUPPORTED" and "**25 working days**" in claim["evidence"]  # shown as written
