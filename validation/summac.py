"""Three human-labelled CNN/DM summary sets as the SummaC benchmark stored them, read by the
offline-verdicts validation: the snapshot ``tingofurro+summac`` at commit ``COMMIT`` (its later
commits dropped the data files), ``data/<set>.json``, each row a document, a summary and labels:

- **Polytope** (Huang et al., EMNLP 2020): summaries of nine systems, extractive ones included
  (TextRank, BertExt, ...), with an error log per summary; the file holds SummaC's ``val`` half;
- **FactCC** (Kryściński et al., EMNLP 2020): single summary sentences of abstractive systems,
  annotated consistent or not;
- **SummEval** (Fabbri et al., TACL 2021): the summaries SummaC kept, consistent when experts
  rated them so (``label``).

Fixed here before any verdict figure of these sets was computed:

- **units**: one per row (document, summary); the summary is the answer, the document its context;
- **gold**: every claim of a consistent summary is gold supported, every claim of another counts as
  not supported (conservative). Consistent means: Polytope, no error of the kinds that make a
  statement false (``Inaccuracy_internal``, ``Inaccuracy_external``, ``Positive_Negative_Aspect``;
  ``Omission``, ``Addition`` (irrelevant source text), ``Duplication`` and ``Word_Form`` judge what
  is said, not whether it is true); FactCC and SummEval, ``label`` 1;
- **excluded**: a row whose document or summary is empty; a row whose document also opens a
  document of the sets already read (QAGS, SummEdits, FaithBench; the first ``OVERLAP_CHARS``
  characters, whitespace-collapsed and lower case);
- **split**: by document, ``DEV_SHARE`` percent of the documents to the development portion and the
  rest to the report portion, by a seeded sha256 of the document's normalised opening.
"""
from __future__ import annotations

import ast
import json
from collections import Counter
from pathlib import Path

from training.data import snapshot_file
from validation.portions import norm, require_portion, seeded_portion, take

REPO = "tingofurro+summac"
COMMIT = "fbd18e22cc93e68179ae9264c9e12d82a65895f2"
SETS = {"polytope": "Polytope", "factcc": "FactCC", "summeval": "SummEval"}
FALSE_ERRORS = frozenset({"Inaccuracy_internal", "Inaccuracy_external", "Positive_Negative_Aspect"})
SEED = 5
DEV_SHARE = 30
OVERLAP_CHARS = 120


def portion_of(document: str) -> str:
    """``dev`` for DEV_SHARE percent of documents (seeded sha256 of the normalised opening), else ``report``."""
    return seeded_portion(SEED, norm(document)[:OVERLAP_CHARS], DEV_SHARE)


def consistent(name: str, row: dict) -> bool:
    """The gold of every claim of this row's summary (module docstring)."""
    if name == "polytope":
        errors = row["errors"] if isinstance(row["errors"], list) else ast.literal_eval(row["errors"] or "[]")
        return not FALSE_ERRORS & set(errors)
    return int(row["label"]) == 1


def rows(mirror: Path) -> list[dict]:
    """Every row of the three sets: ``{set, model, document, summary, consistent, note}``."""
    out = []
    for name, title in SETS.items():
        for key, row in json.loads(snapshot_file(mirror, REPO, f"data/{name}.json", rev=COMMIT)).items():
            out.append({"set": title, "model": row.get("model_name") or "", "document": row.get("document") or "",
                        "summary": row.get("claim") or "", "consistent": consistent(name, row),
                        "note": f"{key} {row.get('model_name') or row.get('ID') or row.get('id') or ''}; "
                                f"errors: {row.get('errors', row.get('error_type', '-'))}"})
    return out


def units(mirror: Path, portion: str, read_before: list[str]) -> tuple[list[dict], Counter]:
    """The rows of ``portion`` (``dev`` or ``report``) and the counts left out by reason;
    ``read_before``: the documents of the sets already read (QAGS, SummEdits, FaithBench)."""
    require_portion(portion, "The SummaC source")
    left_out: Counter = Counter()
    whole = []
    for row in rows(mirror):
        if row["document"].strip() and row["summary"].strip():
            whole.append(row)
        else:
            left_out[f"{row['set']}: empty document or summary"] += 1
    out = take(whole, portion, lambda r: portion_of(r["document"]), left_out, read_before,
               overlap=lambda r: norm(r["document"])[:OVERLAP_CHARS],
               why_read=lambda r: f"{r['set']}: document also in a set already read")
    return out, left_out
