"""Labelled (contexts, claim, label, claim_type, language) pairs for the learned claim verifier.

    python -m training.make_claim_data --out CLAIMS_DIR [--seed 13]

Writes ``pairs.jsonl`` (one pair a line: ``id, split, source, origin, contexts, claim, label,
claim_type, language``) into ``--out`` (never into the repository). Seeded: the same command
gives the same file.

Generated pairs (``origin: generated``) come from real text cut into contexts of 3-7
consecutive sentences (plus, half of the time, one or two other chunks of the same document, as
retrieval returns):
- SQuALITY stories (their source split: train -> train, dev -> dev, test -> test),
- SummEdits documents of the ``evaluation`` split (by document: 75% train, 25% dev; the
  ``test`` split is never read here),
- WiCE evidence of the ``dev`` claims (by claim: 80% train, 20% dev; ``test`` never read),
- the demo corpus (train),
- templated contexts in seven domains, English and Italian (training/claim_templates.py: templates
  0-5 train, 6 dev, 7 and up test).
From one sentence of the context: SUPPORTED = the sentence, a paraphrase, a compression or the
same number in another form; CONTRADICTED = a number, date, unit, name, role, quantifier,
negation, antonym or temporal-order edit (training/claim_edits.py); NOT_MENTIONED = the next
sentence of the document outside the context, a sentence of another document, that sentence with
this context's names, or a world fact found in no context.

Human pairs (``origin: human``):
- WiCE dev claims against their evidence: supported -> SUPPORTED, partially / not supported ->
  NOT_MENTIONED (WiCE has no refuted label); same 80/20 split by claim as above;
- SummEdits ``evaluation`` summaries, one pair per summary sentence: a sentence that the edit
  did not change is SUPPORTED; a changed sentence of a consistent summary is SUPPORTED (a human
  paraphrase), of an inconsistent one NOT_MENTIONED for a hallucinated insertion, CONTRADICTED
  for entity / antonym / negation edits; same document split as above.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
from pathlib import Path

from rageval.claims.cues import names
from rageval.text.lang import guess_language as language
from rageval.text.sentences import split_sentences
from training import claim_edits as E
from training import claim_templates as T
from training.data import DATA, ROOT, read_jsonl

NAME = re.compile(r"\b[A-Z][a-z]{2,}(?:\s[A-Z][a-z]{2,})?\b")
_COMMON_CAPS = {"The", "This", "That", "They", "There", "These", "When", "What", "And", "But", "His", "Her",
                "She", "You", "Yes", "Well", "Then", "Now", "Its", "Our", "For", "With", "Gli", "Il", "La", "Le",
                "Per", "Nel", "Una", "Dal"}


def bucket(key: str, train: float) -> str:
    """``train`` or ``dev`` from a stable hash of ``key``."""
    h = int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    return "train" if h < train else "dev"


def clean_story(text: str) -> list[str]:
    paras = [" ".join(p.split()) for p in re.split(r"\n\s*\n", text)]
    return [p for p in paras if len(p.split()) >= 8 and "Transcriber" not in p and "Produced by" not in p]


def doc_sentences(paragraphs: list[str]) -> list[str]:
    out = []
    for p in paragraphs:
        out.extend(s.text for s in split_sentences(p))
    return [s for s in out if 4 <= len(s.split()) <= 45]


def names_of(sents: list[str]) -> list[str]:
    found = []
    for s in sents:
        found += [m.group() for m in NAME.finditer(s) if m.start() > 0 and m.group().split()[0] not in _COMMON_CAPS]
    return sorted(set(found))


def good_target(s: str) -> bool:
    return 6 <= len(s.split()) <= 35 and s.count('"') + s.count("\u201c") == 0 and not s.endswith("?")


class Generator:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.extra = random.Random(seed + 1)  # the second pass below draws only from this one
        self.rows: list[dict] = []
        self.n = 0

    def add(self, split, source, origin, contexts, claim, label, ctype, lang=None):
        self.n += 1
        self.rows.append({"id": f"{source}-{self.n}", "split": split, "source": source, "origin": origin,
                          "contexts": contexts, "claim": claim.strip(), "label": label, "claim_type": ctype,
                          "language": lang or language(claim + " " + " ".join(contexts)[:1000])})

    def from_document(self, split, source, sents, others, per_doc, lang="en", min_sentences=6):
        """``per_doc`` contexts from one document's sentences; ``others`` = sentences of other documents."""
        rng = self.rng
        if len(sents) < min_sentences:
            return
        pool = names_of(sents) or names_of(others[:200])
        for _ in range(per_doc):
            size = rng.randint(3, 7)
            lo = rng.randrange(0, max(1, len(sents) - size - 1))
            window = sents[lo:lo + size]
            targets = [s for s in window if good_target(s)]
            if not targets:
                continue
            contexts = [" ".join(window)]
            if rng.random() < 0.5:  # other chunks of the same document, as a retriever returns them
                for _ in range(rng.randint(1, 2)):
                    j = rng.randrange(0, max(1, len(sents) - 4))
                    if abs(j - lo) > size + 4:
                        contexts.append(" ".join(sents[j:j + rng.randint(3, 5)]))
                rng.shuffle(contexts)
            target = rng.choice(targets)
            self._supported(split, source, contexts, target, lang)
            self._contradicted(split, source, contexts, target, lang, pool)
            self._not_mentioned(split, source, contexts, sents, lo, size, others, pool, lang)
            self._second_pass(split, source, contexts, window, targets, lang)

    def _second_pass(self, split, source, contexts, window, targets, lang):
        """More varied SUPPORTED claims (chained paraphrases; a pronoun replaced by its subject,
        and the negated form of that claim as CONTRADICTED), and contradictions that reuse the
        contexts' own figures and names (a number or a name swapped for another one the contexts
        state elsewhere), drawn from ``self.extra``."""
        rng = self.extra
        joined = " ".join(contexts)
        target = rng.choice(targets)
        swapped = E.numbers_from_context(target, rng, lang, joined) if rng.random() < 0.5 else None
        if swapped and swapped != target:
            self.add(split, source, "generated", contexts, swapped, "CONTRADICTED", "numbers_in_context", lang)
        real = names(joined)  # capitalised runs that are names, not sentence-initial words
        names_here = list(dict.fromkeys(m.group() for m in NAME.finditer(joined) if m.group().lower() in real))
        swapped = E.entities(target, rng, lang, names_here) if names_here and rng.random() < 0.5 else None
        if swapped and swapped != target:
            self.add(split, source, "generated", contexts, swapped, "CONTRADICTED", "entities_in_context", lang)
        new = E.chain(target, rng, lang)
        if new:
            self.add(split, source, "generated", contexts, new, "SUPPORTED", "paraphrase_chain", lang)
        for prev, cur in zip(window, window[1:]):
            resolved = E.resolve_pronoun(prev, cur)
            if resolved:
                self.add(split, source, "generated", contexts, resolved, "SUPPORTED", "pronoun", lang)
                neg = E.negation(resolved, rng, lang)
                if neg and rng.random() < 0.5:
                    self.add(split, source, "generated", contexts, neg, "CONTRADICTED", "negation", lang)
                break

    def _supported(self, split, source, contexts, s, lang):
        kinds = list(E.SUPPORT_EDITS)
        self.rng.shuffle(kinds)
        for kind in kinds:
            new = E.SUPPORT_EDITS[kind](s, self.rng, lang)
            if new and self.rng.random() < 0.8:
                self.add(split, source, "generated", contexts, new, "SUPPORTED", kind, lang)
                return
        self.add(split, source, "generated", contexts, s, "SUPPORTED", "verbatim", lang)

    def _contradicted(self, split, source, contexts, s, lang, pool):
        kinds = list(E.CONTRA_EDITS) + ["entities"] * 2
        self.rng.shuffle(kinds)
        for kind in kinds:
            new = (E.entities(s, self.rng, lang, pool) if kind == "entities"
                   else E.CONTRA_EDITS[kind](s, self.rng, lang))
            if new and new != s:
                self.add(split, source, "generated", contexts, new, "CONTRADICTED", kind, lang)
                return

    def _not_mentioned(self, split, source, contexts, sents, lo, size, others, pool, lang):
        rng, joined = self.rng, " ".join(contexts)
        pick = rng.random()
        outside = [s for s in sents[lo + size + 1:lo + size + 6] + sents[max(0, lo - 5):max(0, lo - 1)]
                   if good_target(s) and s not in joined]
        if pick < 0.4 and outside:
            self.add(split, source, "generated", contexts, rng.choice(outside), "NOT_MENTIONED", "same_topic", lang)
            return
        other = [s for s in (rng.choice(others) for _ in range(20)) if good_target(s) and s not in joined]
        if not other:
            return
        claim = other[0]
        if pick < 0.75 and pool:
            theirs = [m.group() for m in NAME.finditer(claim) if m.start() > 0]
            if theirs:
                claim = claim.replace(theirs[0], rng.choice(pool))
                self.add(split, source, "generated", contexts, claim, "NOT_MENTIONED", "addition", lang)
                return
        if pick < 0.85:
            fact = rng.choice(E.WORLD_FACTS[lang])
            if fact not in joined:
                self.add(split, source, "generated", contexts, fact, "NOT_MENTIONED", "world_fact", lang)
                return
        self.add(split, source, "generated", contexts, claim, "NOT_MENTIONED", "other_document", lang)


def squality(gen: Generator, per_doc: int) -> None:
    stories = read_jsonl(DATA / "squality" / "stories.jsonl.gz")
    docs = [(st["split"], doc_sentences(clean_story(st["text"]))) for st in stories]
    everything = [s for _, d in docs for s in d]
    for split, sents in docs:
        gen.from_document(split, "squality", sents, everything, per_doc)


def summedits_docs(gen: Generator, per_doc: int) -> None:
    rows = [r for r in read_jsonl(DATA / "summedits" / "items.jsonl.gz") if r["split"] == "evaluation"]
    docs = {r["document"]: r["domain"] for r in rows}
    all_sents = {d: doc_sentences(d.split("\n")) for d in docs}
    for doc, domain in docs.items():
        others = [s for d, ss in all_sents.items() if docs[d] == domain and d != doc for s in ss]
        gen.from_document(bucket(doc, 0.75), "summedits_doc", all_sents[doc], others, per_doc)
    for r in rows:  # human labels, one pair per summary sentence
        split = bucket(r["document"], 0.75)
        orig = {s.text for s in split_sentences(r["original_summary"])}
        types = set(r["edit_types"])
        for s in split_sentences(r["summary"]):
            if s.text in orig:
                if r["id"].endswith("_og"):
                    gen.add(split, "summedits", "human", [r["document"]], s.text, "SUPPORTED", "seed_summary", "en")
                continue
            if r["label"] == 1:
                gen.add(split, "summedits", "human", [r["document"]], s.text, "SUPPORTED", "paraphrase", "en")
            elif types == {"hallucinated_fact_insertion"}:
                gen.add(split, "summedits", "human", [r["document"]], s.text, "NOT_MENTIONED", "addition", "en")
            elif types and "hallucinated_fact_insertion" not in types:
                gen.add(split, "summedits", "human", [r["document"]], s.text, "CONTRADICTED",
                        sorted(types)[0], "en")


def wice(gen: Generator, per_doc: int) -> None:
    rows = [r for r in read_jsonl(DATA / "wice" / "claims.jsonl.gz") if r["split"] == "dev" and r["level"] == "claim"]
    everything = [s for r in rows for s in r["evidence"][:60]]
    for r in rows:
        split = bucket(r["claim_id"], 0.8)
        ev = [s for s in r["evidence"] if not s.startswith("(meta data)")]
        gen.add(split, "wice", "human", ["\n".join(ev)], r["claim"],
                "SUPPORTED" if r["label"] == "supported" else "NOT_MENTIONED", r["label"], "en")
        support = sorted({i for group in r["supporting_sentences"] for i in group})
        if support:
            lo = max(0, support[0] - 3)
            sents = [s for s in r["evidence"][lo:lo + 25] if 4 <= len(s.split()) <= 45]
            gen.from_document(split, "wice_evidence", sents, everything, per_doc)


def demo(gen: Generator, per_doc: int) -> None:
    files = sorted((ROOT / "rageval" / "demo" / "corpus").glob("*"))
    docs = [doc_sentences(f.read_text(encoding="utf-8").split("\n")) for f in files if f.suffix in (".txt", ".md")]
    everything = [s for d in docs for s in d]
    for sents in docs:
        gen.from_document("train", "demo", sents, everything, per_doc)


def templates(gen: Generator, per_template: int) -> None:
    for lang in ("en", "it"):
        for i, make in enumerate(T.TEMPLATES[lang]):
            split = "train" if i < 6 else "dev" if i == 6 else "test"
            for _ in range(per_template):
                sents = make(gen.rng)
                others = [s for j, other in enumerate(T.TEMPLATES[lang]) if j != i for s in other(gen.rng)]
                gen.from_document(split, f"template_{lang}", sents, others, 1, lang, min_sentences=4)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="the folder of pairs.jsonl (CLAIMS_DIR: any scratch folder outside "
                    "the repository)")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--per-doc", type=int, default=8, help="contexts per SQuALITY story / SummEdits document")
    args = ap.parse_args(argv)
    gen = Generator(args.seed)
    squality(gen, args.per_doc)
    summedits_docs(gen, max(2, args.per_doc // 2))
    wice(gen, 1)
    demo(gen, 25)
    templates(gen, 100)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with (out / "pairs.jsonl").open("w", encoding="utf-8") as fh:
        for r in gen.rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    from collections import Counter
    print(f"{len(gen.rows)} pairs -> {out / 'pairs.jsonl'}")
    for key in ("split", "source", "label", "language", "claim_type"):
        print(key, dict(Counter(r[key] for r in gen.rows)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
