"""Build the fixed word-piece idf table of BERTScore's ``idf=True`` (rageval/models/wordpiece_idf.json).

    python -m training.build_idf            # reads $RAGEVAL_DATA, writes the table (about a minute)

BERTScore's original idf is computed over the references being scored, so a value depended on
which other items shared its batch and on a resumed run's remaining items. rageval uses one
table instead, computed once from public text and shipped: the *units* are the sentences
(rageval.text.sentences) of the SQuALITY stories, the SummEdits documents (each once) and the
WiCE evidence sentences; for each word-piece id of the MiniLM tokenizer, ``df`` is the number of
units that contain it. The metric uses ``idf(w) = log((M + 1) / (df(w) + 1))`` with ``M`` units
(a word-piece in no unit gets ``log(M + 1)``). Only word-pieces with ``df >= 2`` are stored
(the others read as df = 0 or 1; the difference is at most log 2, and the table stays small).
"""
from __future__ import annotations

import argparse
import hashlib
import json
from collections import Counter
from pathlib import Path

from rageval.embed.minilm import _load_minilm, minilm_folder
from rageval.text.sentences import split_sentences
from training.data import DATA, read_jsonl

ROOT = Path(__file__).resolve().parents[1]

OUT = ROOT / "rageval" / "models" / "wordpiece_idf.json"
MIN_DF = 2


def units() -> list[str]:
    out: list[str] = []
    for story in read_jsonl(DATA / "squality" / "stories.jsonl.gz"):
        out.extend(s.text for s in split_sentences(story["text"]))
    for doc in dict.fromkeys(r["document"] for r in read_jsonl(DATA / "summedits" / "items.jsonl.gz")):
        out.extend(s.text for s in split_sentences(doc))
    for r in read_jsonl(DATA / "wice" / "claims.jsonl.gz"):
        out.extend(r["evidence"])
    return [u for u in dict.fromkeys(out) if u.strip()]


def main() -> int:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()  # no options; --help says what it does
    texts = units()
    tokenizer = _load_minilm(str(minilm_folder())).tokenizer
    df: Counter = Counter()
    for lo in range(0, len(texts), 4096):
        for enc in tokenizer.encode_batch(texts[lo:lo + 4096]):
            df.update(set(enc.ids[1:-1]))
    kept = sorted((w, c) for w, c in df.items() if c >= MIN_DF)
    sources = "sentences of SQuALITY stories, SummEdits documents and WiCE evidence ($RAGEVAL_DATA)"
    table = {"tokenizer": minilm_folder().name, "units": len(texts), "min_df": MIN_DF, "source": sources,
             "df": kept}
    raw = json.dumps(table, separators=(",", ":")) + "\n"
    OUT.write_text(raw)
    print(f"{len(texts)} units, {len(df)} word-pieces seen, {len(kept)} kept; wrote {OUT} "
          f"({OUT.stat().st_size} bytes, sha256 {hashlib.sha256(raw.encode()).hexdigest()[:10]})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
