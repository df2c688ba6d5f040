"""Long-form answers read sentence by sentence against retrieved documents (Chen et al. 2023,
"Understanding Retrieval Augmentation for Long-Form Question Answering"; snapshot
``timchen0618+LFQA-Verification``, ``data/``), as the offline-verdicts validation reads them: the
closest of the stored sets to a RAG answer and its retrieved chunks. Answers of WebGPT, GPT-3 and
Alpaca (with and without documents in the prompt) to ELI5 questions, each sentence labelled
``supported``, ``partially`` or ``not_supported`` by three annotators against the question's WebGPT
documents (``data/docs/docs-webgpt.json``, the pairing of the repository's own evaluation config,
``src/Automatic/input_file.json``).

Fixed here before any verdict figure of this source was computed:

- **units**: one per annotated answer sentence; its claims (:func:`rageval.claims.extract.answer_claims`
  with the question) are checked against the question's WebGPT documents, one context each;
- **gold**: a sentence is supported when at least 2 of its 3 labels are ``supported``
  (``partially`` counts as not); every claim of a sentence takes its sentence's gold;
- **excluded**: ``annotations-gpt3_whudoc.json`` (answers written from the human-chosen documents,
  paired with the WebGPT ones by the config: which documents its annotators read is not clear);
  a sentence with no label or no text; a question with no WebGPT documents;
- **split**: by question, ``DEV_SHARE`` percent of the questions to the development portion and the
  rest to the report portion, by a seeded sha256 of the question id (every answer to one question,
  whatever its system, in one portion).
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from training.data import snapshot_file
from validation.portions import require_portion, seeded_portion

REPO = "timchen0618+LFQA-Verification"
SYSTEMS = ("webgpt", "gpt3_wdoc", "alpaca_wdoc", "gpt3", "alpaca")
LEFT_OUT_FILES = ("gpt3_whudoc",)
SEED = 2023
DEV_SHARE = 30


def _json(mirror: Path, path: str):
    return json.loads(snapshot_file(mirror, REPO, path))


def portion_of(question_id: str) -> str:
    """``dev`` for DEV_SHARE percent of questions (seeded sha256 of the id), else ``report``."""
    return seeded_portion(SEED, str(question_id).strip(), DEV_SHARE)


def supported(labels: list[str]) -> bool:
    """The gold of a sentence: at least 2 of its labels read ``supported``."""
    return sum(str(label).strip().lower() == "supported" for label in labels) >= 2


def units(mirror: Path, portion: str) -> tuple[list[dict], Counter]:
    """The annotated sentences of ``portion`` (``dev`` or ``report``), ``{system, question_id,
    question, sentence, docs, supported, labels}``, and the counts left out by reason."""
    require_portion(portion, "LFQA")
    docs = {str(q["question_id"]).strip(): [d["text"] for d in q["docs"] if d.get("text", "").strip()]
            for q in _json(mirror, "data/docs/docs-webgpt.json")}
    left_out: Counter = Counter({f"{name}: file left out (which documents its annotators read is unclear)": 1
                                 for name in LEFT_OUT_FILES})
    out = []
    for system in SYSTEMS:
        for answer in _json(mirror, f"data/annotations/annotations-{system}.json"):
            qid = str(answer["question_id"]).strip().strip('"')
            notes = answer["annotations"]
            notes = json.loads(notes) if isinstance(notes, str) else notes
            question = str(answer["question"]).strip().strip('"')
            for note in notes:
                sentence = (note.get("answer") or "").strip()
                if not sentence or not note.get("labels"):
                    left_out[f"{system}: a sentence with no text or no label"] += 1
                elif not docs.get(qid):
                    left_out[f"{system}: a question with no WebGPT documents"] += 1
                elif portion_of(qid) != portion:
                    left_out[f"in the {'report' if portion == 'dev' else 'dev'} portion"] += 1
                else:
                    out.append({"system": system, "question_id": qid, "question": question, "sentence": sentence,
                                "docs": docs[qid], "supported": supported(note["labels"]), "labels": note["labels"]})
    return out, left_out
