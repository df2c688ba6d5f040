"""Knowledge-grounded dialogue responses read by people, as the offline-verdicts validation reads
them: a response written by a dialogue model from one knowledge snippet, and a human judgement of
whether the snippet supports it. Dialogue models copy their knowledge often, so these sets hold
many more copied claims than summaries do. Three snapshots:

- **BEGIN** (Dziri et al., TACL 2022; ``google+BEGIN-dataset``): responses of GPT-2, T5, CTRL and
  DoHA trained on Wizard of Wikipedia, CMU-DoG and TopicalChat, labelled *Fully attributable*,
  *Not fully attributable* or *Generic* (the TSV files the snapshot stores: WoW dev and test,
  CMU-DoG dev, TopicalChat dev);
- **Q²** (Honovich et al., EMNLP 2021; ``orhonovich+q-squared``): Wizard of Wikipedia responses of
  two systems, 150 annotated consistent and 150 inconsistent per system (the file says which);
  ``cross_annotation.csv`` is left out, since the snapshot does not say which way its 0/1 labels run;
- **FaithDial audit** (Dziri et al., NAACL 2022; ``McGill-NLP+FaithDial``, ``data-audit/``): 200
  responses per benchmark of the gold data and of CTRL, DoHA and GPT-2, labelled with BEGIN's
  categories (*Entailment*, *Hallucination*, *Partial Hallucination*, *Generic*, *Uncooperative*).

Fixed here before any verdict figure of these sources was computed:

- **units**: one per (knowledge, response); the response is the answer, the knowledge its one
  context; the message before it is kept as a note only;
- **gold**: every claim of a response labelled *Fully attributable* (BEGIN), consistent (Q²) or
  *Entailment* (FaithDial audit; its model files carry several labels in one cell, such as
  ``entailment,uncooperative``: gold supported when a label reads entailment and none reads
  hallucination, since *uncooperative* and *generic* judge the conversation, not the facts) is gold
  supported; every claim of any other response counts as not supported (conservative: a
  response-level label, as with summaries);
- **excluded**: a row whose knowledge, response or label is empty; a repeat of an earlier (knowledge,
  response) pair, normalised (sources read in the order above, so BEGIN's copy is kept); a row whose
  knowledge also lies in a document of the sets already read (QAGS, SummEdits, FaithBench);
- **split**: by knowledge snippet, ``DEV_SHARE`` percent of the snippets to the development portion
  and the rest to the report portion, by a seeded sha256 of the normalised snippet (every response
  to one snippet, whatever its source, in one portion).
"""
from __future__ import annotations

import csv
import io
import re
from collections import Counter
from pathlib import Path

from training.data import snapshot_file
from validation.portions import norm, require_portion, seeded_portion, take

SEED = 42
DEV_SHARE = 30
BEGIN_FILES = ("wow/begin_dev_wow.tsv", "wow/begin_test_wow.tsv", "cmu-dog/begin_dev_cmu.tsv",
               "cmu-dog/begin_test_cmu.tsv", "topicalchat/begin_dev_tc.tsv", "topicalchat/begin_test_tc.tsv")
Q2_FILES = {f"third_party/data/{system}_{label}.csv": (system, label == "consistent")
            for system in ("dodeca", "memnet") for label in ("consistent", "inconsistent")}
AUDIT_FILES = {f"data-audit/{folder}/{name}.csv": (model, bench)
               for folder, model in (("CTRL", "ctrl"), ("DoHA", "doha"), ("GPT2", "gpt2"))
               for name, bench in ((f"{model}_processed_cmu", "cmu"), (f"{model}_processed_topical", "tc"),
                                   (f"{model}_processed_topicalchat", "tc"), (f"{model}_processed_wow", "wow"))}
AUDIT_FILES.update({f"data-audit/gold/{name}.csv": ("gold", bench)
                    for name, bench in (("cmu", "cmu"), ("topical", "tc"), ("wow", "wow"))})


def _show(mirror: Path, repo: str, path: str) -> str | None:
    """A file of a snapshot, or None when the snapshot does not store it (large files are absent)."""
    blob = snapshot_file(mirror, repo, path, missing_ok=True)
    return None if blob is None else blob.decode("utf-8", errors="replace")


def portion_of(knowledge: str) -> str:
    """``dev`` for DEV_SHARE percent of knowledge snippets (seeded sha256 of the normalised text), else ``report``."""
    return seeded_portion(SEED, norm(knowledge), DEV_SHARE)


def _begin(mirror: Path, left_out: Counter) -> list[dict]:
    out = []
    for path in BEGIN_FILES:
        text = _show(mirror, "google+BEGIN-dataset", path)
        if text is None:
            left_out[f"BEGIN {path}: not stored in the snapshot"] += 1
            continue
        for line in text.splitlines()[1:]:
            cells = line.split("\t")
            if len(cells) != 6:
                left_out[f"BEGIN {path}: a line without 6 tab-separated cells"] += 1
                continue
            model, bench, knowledge, message, response, label = cells
            out.append({"origin": "BEGIN", "model": model, "bench": bench, "knowledge": knowledge,
                        "message": message, "response": response, "label": label})
    return out


def _q2(mirror: Path) -> list[dict]:
    out = []
    for path, (system, consistent) in Q2_FILES.items():
        for row in csv.DictReader(io.StringIO(_show(mirror, "orhonovich+q-squared", path) or "")):
            out.append({"origin": "Q2", "model": system, "bench": "wow", "knowledge": row["knowledge"],
                        "message": row["message"], "response": row["response"],
                        "label": "consistent" if consistent else "inconsistent"})
    return out


def _audit(mirror: Path) -> list[dict]:
    out = []
    for path, (model, bench) in AUDIT_FILES.items():
        text = _show(mirror, "McGill-NLP+FaithDial", path)
        for row in csv.DictReader(io.StringIO(text or "")):
            out.append({"origin": "FaithDial audit", "model": model, "bench": bench,
                        "knowledge": row.get("knowledge") or row.get("evidence") or "",
                        "message": row.get("history") or "", "response": row.get(model) or row.get("response") or "",
                        "label": row.get("begin_label") or row.get("BEGIN") or ""})
    return out


def gold_supported(origin: str, label: str) -> bool:
    """The gold of every claim of a response with this label (module docstring)."""
    if origin == "BEGIN":
        return label.strip().lower() == "fully attributable"
    if origin == "Q2":
        return label == "consistent"
    words = re.findall(r"[a-z]+", label.lower())
    return any(w.startswith("entail") for w in words) and not any(w.startswith("hallucinat") for w in words)


def rows(mirror: Path) -> tuple[list[dict], Counter]:
    """Every row of the three sources, each with ``supported`` (the gold of its claims), and the rows
    left out by reason (empty, repeated); the split is applied by :func:`units`."""
    left_out: Counter = Counter()
    seen: set[tuple[str, str]] = set()
    out = []
    for row in _begin(mirror, left_out) + _q2(mirror) + _audit(mirror):
        key = (norm(row["knowledge"]), norm(row["response"]))
        if not key[0] or not key[1] or not row["label"].strip():
            left_out[f"{row['origin']}: empty knowledge, response or label"] += 1
        elif key in seen:
            left_out[f"{row['origin']}: repeats an earlier (knowledge, response) pair"] += 1
        else:
            seen.add(key)
            out.append({**row, "supported": gold_supported(row["origin"], row["label"])})
    return out, left_out


def units(mirror: Path, portion: str, read_before: list[str]) -> tuple[list[dict], Counter]:
    """The rows of ``portion`` (``dev`` or ``report``) and the counts left out by reason;
    ``read_before``: the documents of the sets already read (QAGS, SummEdits, FaithBench)."""
    require_portion(portion, "The dialogue source")
    everything, left_out = rows(mirror)
    out = take(everything, portion, lambda r: portion_of(r["knowledge"]), left_out, read_before,
               overlap=lambda r: norm(r["knowledge"]),
               why_read=lambda r: f"{r['origin']}: knowledge also in a document already read")
    return out, left_out
