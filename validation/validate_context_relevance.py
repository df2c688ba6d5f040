"""Offline ``context_relevance`` against human evidence labels (WiCE), whole-chunk vector vs the
chunk's vector read from its sentence vectors.

    python -m validation.validate_context_relevance [--max-claims 120] [--negatives 3] [--n-boot 1000]

Why: the offline ``context_relevance`` used to embed every retrieved chunk whole although the
claim verifier embeds the same chunk sentence by sentence; it now reads the chunk from its
sentence vectors instead, which changes its values. No set in the data folder ($RAGEVAL_DATA) labels
passages as relevant to a question, so this uses the nearest human label there is: WiCE's
annotators marked which sentences of a cited article support (or bear on) a Wikipedia claim.

The task: each claim (the query) against chunks of its cited article, consecutive evidence
sentences joined up to about 100 words (the size of a retrieved passage); a chunk is *relevant*
when it holds a sentence of any annotated supporting set. Per claim, every relevant chunk and up
to ``--negatives`` other chunks (seeded). Each (claim, chunk) gets the metric's offline value
``0.5 * clip((cos - 0.1) / 0.5, 0, 1) + 0.5 * term_share`` with ``cos`` from one of:

- ``whole``: the chunk embedded whole (the metric's earlier version);
- ``mean``: the normalised mean of the chunk's unit sentence vectors;
- ``chars``: the same, each sentence weighted by its length in characters;
- ``max``: the highest cosine of the query with one of the chunk's sentences.

AUROC of the value for relevant vs other chunks, with a 95% bootstrap CI over claims. WiCE's
``dev`` split is where the variant was chosen (development); ``test`` is reported once. Nothing
else is fitted. Sentences are the spans the claim verifier reads (rageval/embed/sentences.py).
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from training.data import DATA as SHARED_DATA  # noqa: E402
from training.stats import auroc  # noqa: E402
from validation.validate_answer_metrics import group_bootstrap  # noqa: E402
from rageval.embed.cache import CachedEmbedder  # noqa: E402
from rageval.embed.minilm import MiniLMEmbedder  # noqa: E402
from rageval.embed.sentences import sentence_spans, sentence_vectors  # noqa: E402
from rageval.metrics.triad import mapped_cosine, term_share  # noqa: E402

DATA = SHARED_DATA / "wice" / "claims.jsonl.gz"
VARIANTS = ("whole", "mean", "chars", "max")
CHUNK_WORDS = 100


def chunks_of(evidence: list[str]) -> list[tuple[str, set[int]]]:
    """Consecutive evidence sentences joined up to ~CHUNK_WORDS words: (text, sentence indices)."""
    out, text, idx, words = [], [], set(), 0
    for i, sent in enumerate(evidence):
        n = len(sent.split())
        if text and words + n > CHUNK_WORDS:
            out.append((" ".join(text), idx))
            text, idx, words = [], set(), 0
        text.append(sent)
        idx.add(i)
        words += n
    if text:
        out.append((" ".join(text), idx))
    return out


def pairs_of(split: str, max_claims: int, negatives: int, seed: int = 0) -> list[tuple[str, str, str, int]]:
    """(claim id, claim, chunk text, relevant 0/1) for up to ``max_claims`` claims of ``split``."""
    rng = random.Random(seed)
    rows = [json.loads(line) for line in gzip.open(DATA, "rt", encoding="utf-8")]
    rows = [r for r in rows if r["level"] == "claim" and r["split"] == split]
    rng.shuffle(rows)
    out = []
    for r in rows:
        support = set().union(*[set(s) for s in r["supporting_sentences"]])
        chunks = chunks_of(r["evidence"])
        relevant = [c for c, idx in chunks if idx & support]
        others = [c for c, idx in chunks if not idx & support]
        if not relevant or not others:
            continue
        rng.shuffle(others)
        out += [(r["id"], r["claim"], c, 1) for c in relevant] + [
            (r["id"], r["claim"], c, 0) for c in others[:negatives]
        ]
        if len({p[0] for p in out}) >= max_claims:
            break
    return out


def cosines(embedder, pairs) -> dict[str, np.ndarray]:
    """Per variant, the cosine of each pair's claim with its chunk."""
    claims = sentence_vectors(embedder, [p[1] for p in pairs])
    whole = sentence_vectors(embedder, [p[2] for p in pairs])
    out = {v: np.zeros(len(pairs)) for v in VARIANTS}
    out["whole"] = np.einsum("ij,ij->i", claims, whole)
    for k, (_, _, chunk, _) in enumerate(pairs):
        spans = [sp.text for sp in sentence_spans(chunk)] or [chunk]
        vecs = sentence_vectors(embedder, spans)
        sims = vecs @ claims[k]
        for name, w in (("mean", np.ones(len(spans))), ("chars", np.array([len(s) for s in spans], float))):
            v = (w[:, None] * vecs).sum(axis=0)
            out[name][k] = float(v @ claims[k] / max(np.linalg.norm(v), 1e-12))
        out["max"][k] = float(sims.max())
    return out


def report(split: str, pairs, cos: dict[str, np.ndarray], n_boot: int) -> list[str]:
    y = np.array([p[3] for p in pairs])
    share = np.array([term_share(p[1], p[2]) for p in pairs])
    values = {v: np.array([0.5 * mapped_cosine(c) + 0.5 * s for c, s in zip(cos[v], share)]) for v in VARIANTS}
    boots = group_bootstrap([p[0] for p in pairs], n_boot=n_boot)
    lines = [
        f"WiCE {split}: {len({p[0] for p in pairs})} claims, {len(pairs)} chunks ({int(y.sum())} relevant)",
        "",
        "| cosine from | AUROC of the value [95% CI] | AUROC of the cosine alone | Spearman with `whole` | mean abs. "
        "difference from `whole` |",
        "|---|---|---|---|---|",
    ]
    from scipy.stats import spearmanr

    for v in VARIANTS:
        stat = [auroc(values[v][b], y[b]) for b in boots]
        lo, hi = np.percentile(stat, [2.5, 97.5])
        rho = spearmanr(values[v], values["whole"]).statistic
        lines.append(f"| {v} | {auroc(values[v], y):.3f} [{lo:.3f}, {hi:.3f}] | {auroc(cos[v], y):.3f} | "
                     f"{rho:.3f} | {np.abs(values[v] - values['whole']).mean():.4f} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-claims", type=int, default=120)
    parser.add_argument("--negatives", type=int, default=3)
    parser.add_argument("--n-boot", type=int, default=1000)
    parser.add_argument("--splits", default="dev,test")
    args = parser.parse_args()
    embedder = CachedEmbedder(MiniLMEmbedder())
    for split in args.splits.split(","):
        t0, c0 = time.perf_counter(), time.process_time()
        pairs = pairs_of(split, args.max_claims, args.negatives)
        cos = cosines(embedder, pairs)
        print("\n".join(report(split, pairs, cos, args.n_boot)))
        print(f"({time.perf_counter() - t0:.0f} s wall, {time.process_time() - c0:.0f} CPU-s, "
              f"load {open('/proc/loadavg').read().split()[0]})\n", flush=True)


if __name__ == "__main__":
    main()
