"""Offline claim verdicts on human-labelled data: how often SUPPORTED is right, how much
is decided, and that no gold-supported claim is marked CONTRADICTED, each beside the set's
majority class.

    python -m validation.validate_offline_verdicts --mirror MIRROR --portion dev     # look here, change here
    python -m validation.validate_offline_verdicts --mirror MIRROR --portion report  # development figures now
    python -m validation.validate_offline_verdicts --mirror MIRROR --portion train [--write-docs]  # once
    python -m validation.validate_offline_verdicts --mirror MIRROR --source aggrefact --portion dev
    python -m validation.validate_offline_verdicts --mirror MIRROR --source aggrefact --portion report --write-docs
    python -m validation.validate_offline_verdicts --mirror MIRROR --source faithbench --portion dev
    python -m validation.validate_offline_verdicts --mirror MIRROR --source faithbench --portion report --write-docs
    python -m validation.validate_offline_verdicts --mirror MIRROR --source dialogue --portion dev
    python -m validation.validate_offline_verdicts --mirror MIRROR --source dialogue --portion report --write-docs
    python -m validation.validate_offline_verdicts --mirror MIRROR --source summac --portion dev
    python -m validation.validate_offline_verdicts --mirror MIRROR --source summac --portion report --write-docs
    python -m validation.validate_offline_verdicts --mirror MIRROR --source lfqa --portion dev
    python -m validation.validate_offline_verdicts --mirror MIRROR --source lfqa --portion report --write-docs

Each ``--portion report`` run with ``--write-docs`` is made once.

Portions. ``dev`` is where the rules are chosen. ``report`` was the held-out portion until its
figures were read error by error (the fragment rule of revision 2, ``contain-r2``, came from that
reading): it is a development set now, never to be called held out. ``train`` is the one portion
no offline rule was chosen on: the rows ``training/prepare_nli_data.py`` puts in its train
portion, which only trained the learned cross-encoder (training/, no part of offline verdicts), and WiCE's
``train`` split (its sub-claims: the file has no claim-level rows there), which no script read.
It has no SummEdits (its ``evaluation`` split, train side included, was read whole as ``dev``,
its ``test`` split as ``report``), no QAGS and no Climate-FEVER (report only); it adds the
binary-MNLI rows (human-labelled, read by no offline check). No set is sampled: the largest is
16,616 pairs and containment takes seconds (fixed here before any figure of this portion was seen).

The offline check is the product's (:data:`rageval.claims.offline.CHECKER`, docs/claim-rules.md): a
claim copied from one sentence or two adjacent ones that asserts it as it stands, with nothing in
its context withdrawing it, is SUPPORTED; every other claim UNVERIFIED. Only the verdicts are
measured, so this script calls the checker's ``decide`` itself (the verifier's first and only
deciding step) and skips the evidence ranking and hints an UNVERIFIED claim gets (they never
change a verdict; ``tests/test_offline_verdicts.py`` checks that the verifier writes only these two).

Sets, portions as ``training/prepare_nli_data.py`` splits them (its readers are reused; the
repository snapshots are read from ``--mirror``, ``<owner>+<name>/repo``):

- pairs, the claim as written against its premise: SNLI (dev / report / train: dev file, test
  file, dev file), binary FEVER-NLI (dev file / test file / dev file), binary MNLI (train only:
  dev and test files), Climate-FEVER (report only: each claim against each of its evidence
  sentences), e-RTE-3-it (DEV.xml / TEST.xml / DEV.xml, Italian), Citation-Integrity (dev / test /
  train file: a claim against the rationale sentences of a cited abstract);
- claims through the product's path (:func:`rageval.claims.extract.answer_claims`, then the
  check against the whole document): WiCE claims against their whole cited article (dev / test
  split; train: the ``train`` split's sub-claims); SummEdits summaries against their document
  (``evaluation`` / ``test`` split); QAGS summary sentences against their article (report only).

Gold per decided claim: a pair is right when labelled entailed. A claim from a longer text takes
its text's gold: a WiCE claim or sub-claim ``supported``; a SummEdits summary sentence of a consistent summary,
or one that is also a sentence of the seed summary (the edit is elsewhere); a QAGS sentence the
majority of its 3 raters found supported. A SUPPORTED clause of a text whose gold is not supported
counts as wrong even when the clause itself is right, so these precisions are lower bounds.

``--source aggrefact`` reads AggreFact instead (:mod:`validation.aggrefact`: which files, which rows
are left out and why, the split and the gold are fixed there): the claims of each summary against
its document, one row per origin dataset; ``--source faithbench`` reads FaithBench
(:mod:`validation.faithbench`), one row per summarizing LLM; ``--source dialogue`` reads
knowledge-grounded dialogue responses (:mod:`validation.dialogue`: BEGIN, Q² and the FaithDial
audit), one row per source and model, a response's one knowledge snippet as its context;
``--source summac`` reads Polytope, FactCC and SummEval as the SummaC benchmark stored them
(:mod:`validation.summac`), one row per set; ``--source lfqa`` reads long-form answers sentence by
sentence against their retrieved documents (:mod:`validation.lfqa`), one row per answering system,
claims extracted with the question. All five add a second reading restricted to the claims whose
gold is unambiguous (those of consistent texts), with the count of SUPPORTED claims of inconsistent texts
(``--errors FILE`` lists each beside its note: the annotators' error spans or labels), and a reading
restricted to texts of one claim.

Figures: SUPPORTED precision with a Wilson 95% interval; coverage (decided / all claims; offline
only SUPPORTED is decided); gold-supported claims marked CONTRADICTED; beside them the
majority-class baseline (its label and share) and the precision of always answering SUPPORTED
(the share of gold-supported claims).
"""
from __future__ import annotations

import argparse
import json
import math
import re
import time
from collections import Counter
from pathlib import Path

from rageval.claims.extract import answer_claims
from rageval.claims.offline import CHECKER
from rageval.claims.verdict import CONTRADICTED, SUPPORTED, UNVERIFIED, Verdict
from training import prepare_nli_data as P
from training.data import DATA
from validation import aggrefact, dialogue, faithbench, lfqa, summac
from validation.docs_section import replace_section

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "validation.md"
BEGIN, END = "<!-- offline-verdicts-train:begin -->", "<!-- offline-verdicts-train:end -->"
SECTIONS = {"aggrefact": ("<!-- offline-verdicts-aggrefact:begin -->", "<!-- offline-verdicts-aggrefact:end -->"),
            "faithbench": ("<!-- offline-verdicts-faithbench:begin -->", "<!-- offline-verdicts-faithbench:end -->"),
            "dialogue": ("<!-- offline-verdicts-dialogue:begin -->", "<!-- offline-verdicts-dialogue:end -->"),
            "summac": ("<!-- offline-verdicts-summac:begin -->", "<!-- offline-verdicts-summac:end -->"),
            "lfqa": ("<!-- offline-verdicts-lfqa:begin -->", "<!-- offline-verdicts-lfqa:end -->")}
SEED = 22


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of k successes in n trials."""
    if n == 0:
        return math.nan, math.nan
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return c - h, c + h


def pair_sets(r: P.Reader, portion: str) -> dict[str, list[dict]]:
    """name -> rows ``{premise, claim, label}`` of the pair sets in ``portion`` (the readers' rows
    of that portion; MNLI in train only, Climate-FEVER in report only)."""
    binary = P.docnli_binary(r, SEED)
    sets = {"SNLI": P.snli(r, SEED), "FEVER-NLI (binary)": [x for x in binary if x["source"] == "fever_nli"]}
    if portion == "train":
        sets["MNLI (binary)"] = [x for x in binary if x["source"] == "mnli"]
    sets.update({"e-RTE-3-it (Italian)": P.rte_it(r, SEED), "Citation-Integrity": P.citint(*P.citint_claims(r))})
    if portion == "report":
        sets["Climate-FEVER"] = P.climate_fever(r)
    return {name: [x for x in rows if x["portion"] == portion] for name, rows in sets.items()}


_SENT = re.compile(r"(?<=[.!?])\s+|\n+")


def text_sets(r: P.Reader, portion: str) -> dict[str, list[dict]]:
    """name -> texts ``{answer, contexts, gold(claim) -> bool, label}`` read through the product's path."""
    out: dict[str, list[dict]] = {"WiCE": []} if portion == "train" else {"WiCE": [], "SummEdits": []}
    level, split = {"dev": ("claim", "dev"), "report": ("claim", "test"), "train": ("subclaim", "train")}[portion]
    for d in r.shared("wice/claims.jsonl.gz"):
        if d["level"] == level and d["split"] == split:
            ok = d["label"] == "supported"
            out["WiCE"].append({"answer": d["claim"], "contexts": [" ".join(d["evidence"])],
                                "gold": lambda _c, ok=ok: ok, "label": d["label"]})
    for d in r.shared("summedits/items.jsonl.gz"):
        if portion != "train" and d["split"] == ("test" if portion == "report" else "evaluation"):
            seed = {" ".join(s.split()) for s in _SENT.split(d["original_summary"]) if s.strip()}
            sents = [" ".join(s.split()) for s in _SENT.split(d["summary"]) if s.strip()]
            out["SummEdits"].append({"answer": d["summary"], "contexts": [d["document"]], "sentences": sents,
                                     "gold": _summedits_gold(d["label"] == 1, sents, seed),
                                     "label": "consistent" if d["label"] == 1 else "inconsistent"})
    if portion == "report":
        out["QAGS"] = [{"answer": x["claim"], "contexts": [x["premise"]], "label": x["label"],
                        "gold": lambda _c, ok=x["label"] == "E": ok} for x in P.qags(r)]
    return out


def summary_sets(args: argparse.Namespace) -> tuple[dict[str, list[dict]], Counter]:
    """Group -> texts ``{answer, contexts, gold, label, note}`` of the summaries or responses of
    ``args.source`` (AggreFact by origin dataset, FaithBench by summarizer, the dialogue sets by source
    and model, SummaC by set, LFQA by system) in ``args.portion``, and the rows left out by reason
    (the loaders: :mod:`validation.aggrefact`, :mod:`validation.faithbench`, :mod:`validation.dialogue`,
    :mod:`validation.summac`, :mod:`validation.lfqa`)."""
    if args.source == "aggrefact":
        units, left_out = aggrefact.units(args.mirror, args.portion)
        rows = [(f"AggreFact {u['origin']}", u["doc"], u["summary"], u["consistent"],
                 f"{u['origin']} {u['id']} {u['model']}; annotated error spans: {u['spans']}", None) for u in units]
    elif args.source == "faithbench":
        units, left_out = faithbench.units(args.mirror, args.portion, read_before(args, faithbench_too=False))
        rows = [(f"FaithBench {u['summarizer'].split('/')[-1]}", u["source"], u["summary"], u["consistent"],
                 f"{u['batch']} {u['summarizer']}; annotated spans: {u['spans']}",
                 faithbench.span_gold(u["summary"], u["offsets"])) for u in units]
    elif args.source == "dialogue":
        units, left_out = dialogue.units(args.mirror, args.portion, read_before(args))
        rows = [(f"{u['origin']} {u['model']}", u["knowledge"], u["response"], u["supported"],
                 f"{u['origin']} {u['bench']} {u['model']} {u['label']!r}; message: {u['message'][:120]!r}", None)
                for u in units]
    elif args.source == "lfqa":
        units, left_out = lfqa.units(args.mirror, args.portion)
        rows = [(f"LFQA {u['system']}", u["docs"], u["sentence"], u["supported"],
                 f"q{u['question_id']} {u['system']} labels {u['labels']}; question: {u['question'][:100]!r}", None,
                 u["question"]) for u in units]
    else:
        units, left_out = summac.units(args.mirror, args.portion, read_before(args))
        rows = [(f"SummaC {u['set']}", u["document"], u["summary"], u["consistent"], u["note"], None) for u in units]
    out: dict[str, list[dict]] = {}
    for group, doc, summary, consistent, note, span_gold, *question in sorted(rows, key=lambda x: x[0]):
        out.setdefault(group, []).append({"answer": summary, "contexts": doc if isinstance(doc, list) else [doc],
                                          "question": question[0] if question else "", "note": note,
                                          "gold": lambda _c, ok=consistent: ok, "span_gold": span_gold,
                                          "label": "consistent" if consistent else "inconsistent"})
    return out, left_out


def read_before(args: argparse.Namespace, faithbench_too: bool = True) -> list[str]:
    """The documents of the sets read before a new source (QAGS, SummEdits and, after it, FaithBench):
    a new source leaves out the rows whose document is one of them."""
    r = P.Reader(args.mirror, None, args.data)
    docs = [x["premise"] for x in P.qags(r)] + [d["document"] for d in r.shared("summedits/items.jsonl.gz")]
    return docs + ([s["source"] for s in faithbench.samples(args.mirror)] if faithbench_too else [])


def _summedits_gold(consistent: bool, sentences: list[str], seed: set[str]):
    """A claim is right when its summary is consistent, or when the sentence it comes from (the one
    sharing most words with it) is a sentence of the seed summary."""
    def gold(claim: str) -> bool:
        if consistent:
            return True
        words = set(re.findall(r"\w+", claim.lower()))
        source = max(sentences, key=lambda s: len(words & set(re.findall(r"\w+", s.lower()))), default="")
        return source in seed
    return gold


def verdicts_of(jobs: list[tuple]) -> list[list[Verdict]]:
    """The offline verdicts of ``[(claims, contexts[, question, answer])]``: the registered checker's
    (:data:`rageval.claims.offline.CHECKER`), else UNVERIFIED (no evidence ranking)."""
    return [[v if v is not None else Verdict(UNVERIFIED) for v in CHECKER.decide(job[0], job[1], *job[2:4])]
            for job in jobs]


def measure_pairs(rows: list[dict]) -> dict:
    verdicts = [vs[0] for vs in verdicts_of([([x["claim"]], [x["premise"]]) for x in rows])]
    gold = [x["label"] == "E" for x in rows]
    labels = Counter(x["label"] for x in rows)
    return _figures(verdicts, gold, len(rows), labels, [x["claim"] for x in rows])


def measure_texts(rows: list[dict]) -> dict:
    claims = [answer_claims(x.get("question", ""), x["answer"]) for x in rows]
    verdicts = verdicts_of([(c, x["contexts"], x.get("question", ""), x["answer"]) for c, x in zip(claims, rows)])
    flat_v, flat_g, flat_c, flat_n = [], [], [], []
    for x, cs, vs in zip(rows, claims, verdicts):
        for c, v in zip(cs, vs):
            flat_v.append(v)
            flat_g.append(x["gold"](c))
            flat_c.append(c)
            flat_n.append(x.get("note"))
    labels = Counter(x["label"] for x in rows)
    out = _figures(flat_v, flat_g, len(rows), labels, flat_c, flat_n)
    span_right = [x["span_gold"](c) for x, cs, vs in zip(rows, claims, verdicts) if x.get("span_gold")
                  for c, v in zip(cs, vs) if v.label == SUPPORTED]
    out["span_right"], out["span_supported"] = sum(span_right), len(span_right)
    single = [
        x["gold"](cs[0]) for x, cs, vs in zip(rows, claims, verdicts) if len(vs) == 1 and vs[0].label == SUPPORTED
    ]
    out["single_right"], out["single_supported"] = sum(single), len(single)
    whole = [all(v.label == SUPPORTED for v in vs) and bool(vs) for vs in verdicts]
    out["texts_all_supported"] = sum(whole)
    out["texts_all_supported_right"] = sum(w and all(x["gold"](c) for c in cs)
                                           for w, x, cs in zip(whole, rows, claims))
    return out


def _figures(verdicts, gold, n_units: int, labels: Counter, claims: list[str], notes=None) -> dict:
    supported = [g for v, g in zip(verdicts, gold) if v.label == SUPPORTED]
    k, n = sum(supported), len(supported)
    lo, hi = wilson(k, n)
    majority, count = labels.most_common(1)[0]
    return {"units": n_units, "claims": len(verdicts), "supported": n, "right": k,
            "precision": k / n if n else math.nan, "ci": (lo, hi),
            "coverage": n / len(verdicts) if verdicts else math.nan,
            "gold_supported": sum(gold), "always_supported_precision": sum(gold) / len(gold) if gold else math.nan,
            "gold_supported_marked_contradicted": sum(g and v.label == CONTRADICTED for v, g in zip(verdicts, gold)),
            "verdicts": dict(Counter(v.label for v in verdicts)),
            "majority": f"{majority} {count / sum(labels.values()):.3f}",
            "wrong": [{"claim": c, "evidence": v.evidence, **({"note": n} if n else {})}
                      for c, v, g, n in zip(claims, verdicts, gold, notes or [None] * len(claims))
                      if v.label == SUPPORTED and not g]}


def table(results: dict[str, dict]) -> list[str]:
    lines = ["| set | units | claims | SUPPORTED (coverage) | SUPPORTED precision [Wilson 95%] | gold-supported "
             "marked CONTRADICTED | always SUPPORTED: precision | majority class (share) |",
             "|---|---|---|---|---|---|---|---|"]
    for name, f in results.items():
        prec = "-" if not f["supported"] else (f"**{f['precision']:.3f}** [{f['ci'][0]:.3f}, {f['ci'][1]:.3f}] "
                                               f"({f['right']}/{f['supported']})")
        lines.append(f"| {name} | {f['units']} | {f['claims']} | {f['supported']} ({f['coverage']:.3f}) | {prec} | "
                     f"{f['gold_supported_marked_contradicted']} | {f['always_supported_precision']:.3f} | "
                     f"{f['majority']} |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", choices=("nli", "aggrefact", "faithbench", "dialogue", "summac", "lfqa"), default="nli",
                    help="nli: the pair and text sets of training/prepare_nli_data.py; aggrefact, faithbench: "
                         "human-labelled summaries with their documents; dialogue: human-labelled dialogue "
                         "responses with their knowledge (BEGIN, Q2, FaithDial audit); summac: Polytope, FactCC "
                         "and SummEval summaries as the SummaC benchmark stored them; lfqa: long-form answer "
                         "sentences against retrieved documents (Chen et al. 2023)")
    ap.add_argument("--portion", choices=("dev", "report", "train"), default="dev")
    ap.add_argument("--mirror", type=Path, required=True,
                    help="folder of the fetched source snapshots (as for python -m training.prepare_nli_data)")
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--write-docs", action="store_true")
    ap.add_argument("--errors", type=Path, default=None, help="write the wrong SUPPORTED verdicts here (JSONL)")
    args = ap.parse_args()
    t0, wall0 = time.process_time(), time.perf_counter()
    left_out: Counter = Counter()
    if args.source != "nli":
        texts, left_out = summary_sets(args)
        results = {name: measure_texts(rows) for name, rows in texts.items()}
    else:
        r = P.Reader(args.mirror, None, args.data)
        results = {name: measure_pairs(rows) for name, rows in pair_sets(r, args.portion).items() if rows}
        texts = text_sets(r, args.portion)
        results.update({f"{name} (claims of each text)": measure_texts(rows) for name, rows in texts.items()})
    cpu = time.process_time() - t0
    k = sum(f["right"] for f in results.values())
    n = sum(f["supported"] for f in results.values())
    lo, hi = wilson(k, n)
    lines = table(results)
    pooled = f"**{k / n:.3f}** [{lo:.3f}, {hi:.3f}] ({k}/{n})" if n else "- (0 SUPPORTED)"
    lines += ["", f"All sets pooled: SUPPORTED precision {pooled}; "
              f"gold-supported claims marked CONTRADICTED: "
              f"{sum(f['gold_supported_marked_contradicted'] for f in results.values())}; verdicts written: "
              f"{dict(sum((Counter(f['verdicts']) for f in results.values()), Counter()))}.", ""]
    whole = [f"{name} {f['texts_all_supported']} / {f['texts_all_supported_right']}" for name, f in results.items()
             if "texts_all_supported" in f]
    if whole:
        lines.append("Texts with every claim SUPPORTED / of which gold supported throughout: " + "; ".join(whole) + ".")
    if args.source != "nli":
        lines += summary_reading(results, left_out)
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3]) if Path("/proc/loadavg").is_file() else "?"
    lines += ["", f"Rules `{CHECKER.version()}`, portion `{args.portion}`, {cpu:.0f} CPU-s, "
              f"{time.perf_counter() - wall0:.0f} s wall, load average at the end {load}."]
    print("\n".join(lines))
    if args.errors:
        with open(args.errors, "w", encoding="utf-8") as fh:
            for name, f in results.items():
                for w in f["wrong"]:
                    fh.write(json.dumps({"set": name, **w}, ensure_ascii=False) + "\n")
    if args.write_docs:
        if args.source in SECTIONS and args.portion == "report":
            replace_section(DOCS, *SECTIONS[args.source], [
                f"Command: `python -m validation.validate_offline_verdicts --mirror MIRROR --source {args.source} "
                "--portion report --write-docs` (run once; the rules in the last line).", "", *lines])
        elif args.source == "nli" and args.portion == "train":
            replace_section(DOCS, BEGIN, END, ["Command: `python -m validation.validate_offline_verdicts "
                                               "--mirror MIRROR --portion train --write-docs` (run once; the "
                                               "rules in the last line).", "", *lines])
        else:
            raise SystemExit("--write-docs writes the portions no rule was chosen on only: "
                             "--portion train, or --source aggrefact|faithbench|dialogue|summac|lfqa --portion report")


def summary_reading(results: dict[str, dict], left_out: Counter) -> list[str]:
    """The lines under a summary or dialogue source's table: the rows left out, the reading restricted
    to claims of consistent texts (the unambiguous gold), every SUPPORTED claim of an inconsistent
    text, the reading restricted to texts of one claim (where a text-level label is the claim's) and,
    where the annotations carry offsets, the span reading."""
    wrong = [w for f in results.values() for w in f["wrong"]]
    consistent_supported = sum(f["right"] for f in results.values())  # gold supported only where consistent
    lines = ["", "Rows left out: " + (", ".join(f"{why}: {n}" for why, n in sorted(left_out.items())) or "none") + ".",
             f"Unambiguous reading (claims of consistent texts only): {consistent_supported} SUPPORTED, all "
             f"right by construction, among {sum(f['gold_supported'] for f in results.values())} such claims; "
             f"SUPPORTED claims of inconsistent texts (counted wrong above): {len(wrong)} (listed by `--errors FILE`)."]
    k, n = sum(f["single_right"] for f in results.values()), sum(f["single_supported"] for f in results.values())
    if n:
        lo, hi = wilson(k, n)
        lines.append(f"Single-claim reading (a SUPPORTED claim that is its text's only claim, so the text's label "
                     f"is the claim's): SUPPORTED precision {k / n:.3f} [{lo:.3f}, {hi:.3f}] ({k}/{n}).")
    k, n = (
        sum(f.get("span_right", 0) for f in results.values()),
        sum(f.get("span_supported", 0) for f in results.values()),
    )
    if n:
        lo, hi = wilson(k, n)
        lines.append(f"Span reading (a claim is right when no annotated span of any label overlaps it in its "
                     f"summary): SUPPORTED precision {k / n:.3f} [{lo:.3f}, {hi:.3f}] ({k}/{n}).")
    return lines


if __name__ == "__main__":
    main()
