"""AggreFact (Tang et al., ACL 2023) as read by the offline-verdicts validation: summaries of news
articles with human factual-consistency labels, aggregated from nine annotated datasets.

What the snapshot holds. The repository's full tables (``aggre_fact_final.csv`` and its SOTA
subset, with every document and summary) are not in the stored snapshot (large files); its
``data/AggreFact-Unified-val.xlsx`` and ``-test.xlsx`` are: the summaries the paper's Section 4
maps to unified error types, one sheet per error type (``cnn_in_np``, ``xsum_ex_pred`` ...; a
summary with several errors appears in several sheets). Only the XSum sheets carry the document
(column ``doc``), and not on every row: a row without one takes the document of another row of
the same file with the same XSum ``id`` (the BBC article's number), else it is left out (counted),
as are the CNN/DM sheets, which have no document at all. Nearly every row
is labelled inconsistent (``label`` 0): these are the summaries in which annotators found errors.

Fixed here before any verdict figure of the report portion was computed:

- **excluded**: every row whose origin dataset is QAGS or SummEdits (both already read by the
  offline-verdicts validation), matched on the ``dataset`` column, case-insensitive;
- **split**: AggreFact's own ``val`` file is the development portion, its ``test`` file the
  report portion; a document (``id``) of the test file that is also in the val file is dropped
  from the report portion (the two files share most XSum documents, since the source datasets
  split by summary, not by document);
- **units**: one per distinct (document id, model, summary); its label is inconsistent when any
  of its rows says so (the rows of one summary agree in the files read), and it keeps the
  annotated error spans of all its rows (for reading errors).

Gold, conservative: every claim of a consistent summary is gold supported; every claim of an
inconsistent summary counts as not supported, though the error may lie in another of its claims
(a SUPPORTED verdict there is counted wrong and listed, with the annotated spans, for reading).
"""
from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

from training.data import snapshot_file
from validation.xlsx import sheets

REPO = "Liyan06+AggreFact"
FILES = {"dev": "data/AggreFact-Unified-val.xlsx", "report": "data/AggreFact-Unified-test.xlsx"}
EXCLUDED = ("qags", "summedits")
#: the ``dataset`` column's names -> the names the tables show
ORIGINS = {"xsumfaith": "XSumFaith", "cliff": "CLIFF", "goyaldurrett2021": "Goyal'21", "frank": "FRANK",
           "polytope": "Polytope", "factcc": "FactCC", "summeval": "SummEval", "wang'20": "Wang'20"}


def _rows(mirror: Path, path: str) -> list[dict[str, str]]:
    blob = snapshot_file(mirror, REPO, path)
    return [dict(r, sheet=name) for name, rows in sheets(blob).items() for r in rows]


def units(mirror: Path, portion: str) -> tuple[list[dict], Counter]:
    """The units of ``portion`` (``dev``: the val file; ``report``: the test file less the val
    file's documents), each ``{id, origin, model, doc, summary, consistent, spans}``, and the
    counts of rows left out by reason."""
    if portion not in FILES:
        raise SystemExit(f"AggreFact has portions {', '.join(FILES)} only (no train portion)")
    left_out: Counter = Counter()
    rows = _rows(mirror, FILES[portion])
    docs = {r["id"]: r["doc"] for r in rows if r.get("doc", "").strip()}
    dev_docs = {r["id"] for r in _rows(mirror, FILES["dev"])} if portion == "report" else set()
    out: dict[tuple[str, str, str], dict] = {}
    for r in rows:
        dataset = r.get("dataset", "").strip()
        if any(x in dataset.lower() for x in EXCLUDED):
            left_out[f"origin {dataset} (read before)"] += 1
        elif r["id"] not in docs:
            left_out[f"no document ({r['sheet'].split('_')[0]} sheets)"] += 1
        elif r["id"] in dev_docs:
            left_out["document also in the development (val) file"] += 1
        else:
            key = (r["id"], r["model_name"], r["summ"])
            unit = out.setdefault(key, {"id": r["id"], "origin": ORIGINS.get(dataset.lower(), dataset),
                                        "model": r["model_name"], "doc": docs[r["id"]], "summary": r["summ"],
                                        "consistent": True, "spans": []})
            unit["consistent"] = unit["consistent"] and str(r["label"]).strip() in ("1", "1.0")
            unit["spans"] += [s for s in _spans(r.get("annotated_span", "")) if s not in unit["spans"]]
    return list(out.values()), left_out


def _spans(cell: str) -> list[str]:
    """The annotated error spans of a cell written as a Python list (``"['a', nan]"``)."""
    try:
        value = ast.literal_eval(re.sub(r"\bnan\b", "None", cell)) if cell.strip() else []
    except (ValueError, SyntaxError):
        return [cell]
    return [str(s) for s in (value if isinstance(value, list) else [value]) if s]
