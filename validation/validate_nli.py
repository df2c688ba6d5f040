"""Calibrate the NLI cross-encoder verifier on development rows, then report it once on the report portions
(training/VALIDATION.md; the model is no part of the product).

    python -m training.prepare_nli_data                       # training/nli_data/{train,dev,report}.jsonl
    python -m validation.validate_nli calibrate [--dev-cap 120]  # into training/models/claim_xenc.json
    python -m validation.validate_nli compare --other-params OLD.npz --other-meta OLD.json [--c-bias 1.0]
    python -m validation.validate_nli report [--write-docs]      # the report portions, once

Both run the product's path: :class:`training.claim_verifiers.CrossEncoderVerifier` on
``([claim], [premise])`` (the premise split into sentences, the top candidates read by the
cross-encoder) and, beside it on the same rows, the MLP verifier it replaces
(:class:`~training.claim_verifiers.LearnedVerifier`). Labels: SUPPORTED = E, CONTRADICTED = C,
NOT_MENTIONED = N; a binary "not entailed" row (NOT) counts a verdict as right when it is not
SUPPORTED.

``calibrate`` (real-labelled development rows only, a seeded sample of at most ``--dev-cap`` rows
per source, by group): (1) temperature ``T`` minimising the log loss of the decisive candidate's logits
(grid 0.5-30); (2) the combiner ``c(x) = ((x - mean) / std) W + b`` over the feature vector,
fitted by gradient descent on the same log loss with L2 ``--l2``; it is kept only when, fitted
on half of the development groups and scored on the other half (both ways), it lowers the log
loss and does not lower the mean per-source accuracy; (3) ``low_confidence_below``: the smallest
confidence ``t`` (grid of 0.01) at which CONTRADICTED verdicts with confidence >= t have
precision >= ``--c-precision`` on the 3-way development rows (if none does, the ``t`` of best
precision that still keeps 10% of them). Writes all three into claim_xenc.json.

``compare`` (development only): the shipped parameters against another parameter file (for
example ``git show REV:training/models/claim_xenc.npz > old.npz``, and its JSON), argmax at T = 1
on the same development rows as ``calibrate``, plus the team's hand-written pairs and the derived
WiCE pairs: mean per-source accuracy, the share of supported or neutral claims read CONTRADICTED,
CONTRADICTED precision and recall, NOT_MENTIONED recall; each model also with ``--c-bias``
subtracted from its C logit.

``report``: pair sets (a seeded sample of at most ``--report-cap`` rows per source, by group):
SNLI test, FEVER-NLI test, Climate-FEVER, e-RTE-3-it TEST, Citation-Integrity test; claim sets
through the full path: QAGS sentences against their article, WiCE test claims against the whole
cited article, SummEdits test summaries (claims by :func:`rageval.claims.extract.extract_claims`)
against their document, scored by the smallest P(SUPPORTED). 95% CIs: percentile bootstrap over
rows (1000 resamples, seeded). ECE: 10 equal-width confidence bins, on 3-way rows.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import time
from pathlib import Path

import numpy as np

from training import claim_xenc as X
from rageval.claims.containment import contained
from rageval.claims.extract import extract_claims
from training.claim_verifiers import CrossEncoderVerifier, LearnedVerifier, decisive
from rageval.embed.cache import make_embedder
from training.data import DATA, read_jsonl
from validation.docs_section import replace_section
from training.stats import auroc
from validation.validate_claims import balanced_accuracy, boot, fmt

ROOT = Path(__file__).resolve().parents[1]

DATA_DIR = ROOT / "training" / "nli_data"  # written by python -m training.prepare_nli_data
DOCS = ROOT / "training" / "VALIDATION.md"
BEGIN, END = "<!-- nli:begin -->", "<!-- nli:end -->"
SEED = 22
TO_XENC = {"SUPPORTED": "E", "NOT_MENTIONED": "N", "CONTRADICTED": "C"}
THREE_WAY = {"snli", "climate_fever", "rte3_it", "citint", "summedits", "gen_numswap"}


def sample_by_group(rows: list[dict], cap: int, seed: int = SEED) -> list[dict]:
    """At most ``cap`` rows per source, whole groups drawn in a seeded order."""
    out = []
    for source in sorted({r["source"] for r in rows}):
        groups: dict[str, list[dict]] = {}
        for r in rows:
            if r["source"] == source:
                groups.setdefault(r["group"], []).append(r)
        keys = sorted(groups)
        random.Random(f"{seed}-{source}").shuffle(keys)
        picked: list[dict] = []
        for k in keys:
            if len(picked) >= cap:
                break
            picked += groups[k]
        out += picked[:cap]
    return out


def correct(pred: str, gold: str) -> bool:
    return pred != "E" if gold == "NOT" else pred == gold


def nll(z: np.ndarray, gold: list[str]) -> float:
    p = X.softmax(z)
    out = []
    for pi, g in zip(p, gold):
        out.append(-np.log(max(1e-12, pi[1] + pi[2] if g == "NOT" else pi[X.LABELS.index(g)])))
    return float(np.mean(out))


def per_source_accuracy(pred: list[str], rows: list[dict]) -> tuple[float, dict]:
    acc: dict[str, list[bool]] = {}
    for p, r in zip(pred, rows):
        acc.setdefault(r["source"], []).append(correct(p, r["label"]))
    by = {s: float(np.mean(v)) for s, v in sorted(acc.items())}
    return float(np.mean(list(by.values()))), by


def run_xenc(verifier: CrossEncoderVerifier, rows: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    """(decisive raw logits (n, 3), feature vectors (n, d)) with T = 1 and no combiner; a claim
    copied from its premise gets the logits (20, 0, 0), SUPPORTED as in the product."""
    raw = verifier.raw([([r["claim"]], [r["premise"]]) for r in rows])
    logits, feats = [], []
    for r, ((f, lg),) in zip(rows, raw):
        if contained(r["claim"], [r["premise"]]) is not None:
            logits.append(np.array([20.0, 0.0, 0.0]))
        elif len(lg) == 0:
            logits.append(np.array([0.0, 5.0, 0.0]))  # no sentence: NOT_MENTIONED
        else:
            d, _ = decisive(X.softmax(lg))
            logits.append(lg[d].astype(np.float64))
        feats.append(f.vector)
    return np.array(logits), np.array(feats)


def run_mlp(verifier: LearnedVerifier, rows: list[dict]) -> list[str]:
    return [TO_XENC[v[0].label] for v in verifier.verify_many([([r["claim"]], [r["premise"]]) for r in rows])]


def fit_temperature(logits: np.ndarray, gold: list[str]) -> float:
    grid = np.concatenate([np.round(np.arange(0.5, 5.0, 0.05), 2), np.arange(5.0, 30.01, 0.5)])
    return float(min(grid, key=lambda t: nll(logits / t, gold)))


def fit_combiner(z0: np.ndarray, x: np.ndarray, gold: list[str], l2: float, iters: int = 600) -> dict:
    """Minimise mean log loss of softmax(z0 + ((x - mean)/std) W + b) + l2 ||W||^2 (Adam)."""
    mean, std = x.mean(0), x.std(0) + 1e-6
    xs = (x - mean) / std
    d = xs.shape[1]
    W, b = np.zeros((d, 3)), np.zeros(3)
    mW, vW, mb, vb = np.zeros_like(W), np.zeros_like(W), np.zeros_like(b), np.zeros_like(b)
    onehot = np.zeros((len(gold), 3))
    is_not = np.array([g == "NOT" for g in gold])
    for i, g in enumerate(gold):
        if g != "NOT":
            onehot[i, X.LABELS.index(g)] = 1.0
    lr = 0.05
    for t in range(1, iters + 1):
        p = X.softmax(z0 + xs @ W + b)
        grad = p - onehot
        pe = np.clip(p[:, 0], 1e-9, 1 - 1e-9)
        grad[is_not] = (pe[is_not] / (1 - pe[is_not]))[:, None] * (np.eye(3)[0] - p[is_not])
        gW = xs.T @ grad / len(gold) + 2 * l2 * W
        gb = grad.mean(0)
        for P, G, M, V in ((W, gW, mW, vW), (b, gb, mb, vb)):
            M *= 0.9
            M += 0.1 * G
            V *= 0.999
            V += 0.001 * G * G
            P -= lr * (M / (1 - 0.9 ** t)) / (np.sqrt(V / (1 - 0.999 ** t)) + 1e-8)
    return {"mean": mean, "std": std, "W": W, "b": b}


def apply_combiner(z0: np.ndarray, x: np.ndarray, c: dict | None) -> np.ndarray:
    return z0 if c is None else z0 + ((x - c["mean"]) / c["std"]) @ c["W"] + c["b"]


def labels_of(z: np.ndarray) -> list[str]:
    return [X.LABELS[i] for i in z.argmax(1)]


def c_threshold(p: np.ndarray, gold: list[str], target: float) -> tuple[float, float, int]:
    """(t, precision, n kept) of CONTRADICTED verdicts with confidence >= t on 3-way rows."""
    pred = p.argmax(1)
    conf = p.max(1)
    is_c = pred == 2
    g = np.array(gold)
    best = None
    for t in np.round(np.arange(0.34, 1.0, 0.01), 2):
        keep = is_c & (conf >= t)
        if keep.sum() == 0:
            break
        prec = float(np.mean(g[keep] == "C"))
        if prec >= target:
            return float(t), prec, int(keep.sum())
        if keep.sum() >= 0.1 * is_c.sum() and (best is None or prec > best[1]):
            best = (float(t), prec, int(keep.sum()))
    return best or (0.5, float("nan"), 0)


def ece_table(conf: np.ndarray, ok: np.ndarray, bins: int = 10) -> tuple[float, list[str]]:
    edges = np.linspace(0, 1, bins + 1)
    lines = ["| confidence | n | mean confidence | accuracy |", "|---|---|---|---|"]
    e = 0.0
    for lo, hi in zip(edges[:-1], edges[1:]):
        m = (conf >= lo) & ((conf < hi) if hi < 1 else (conf <= hi))
        if m.sum():
            e += m.sum() / len(conf) * abs(conf[m].mean() - ok[m].mean())
            lines.append(f"| {lo:.1f}-{hi:.1f} | {int(m.sum())} | {conf[m].mean():.3f} | {ok[m].mean():.3f} |")
    return float(e), lines


def verifiers():
    emb = make_embedder("local")
    return CrossEncoderVerifier(emb, xenc=X.load()), LearnedVerifier(emb)


def real_dev_rows(cap: int) -> list[dict]:
    """The development sample that calibration and every choice are made on: real-labelled rows
    only (generated rows, ``gen_*``, and derived ones, ``derived_*``, may train a model but never
    select or calibrate one)."""
    return sample_by_group(
        [r for r in read_jsonl(DATA_DIR / "dev.jsonl") if not r["source"].startswith(("gen_", "derived_"))], cap
    )


def team_pairs() -> tuple[list[dict], list[str]]:
    """The team's 130 hand-written pairs (tests/data/claims_gold*.jsonl; development data) as
    ``{"claim", "premise"}`` rows, and their labels as E / N / C."""
    team = [json.loads(x) for name in ("claims_gold.jsonl", "claims_gold_holdout.jsonl")
            for x in (ROOT / "tests" / "data" / name).open(encoding="utf-8") if x.strip()]
    return [{"claim": r["claim"], "premise": r["context"]} for r in team], [TO_XENC[r["label"]] for r in team]


def calibrate(args) -> None:
    rows = real_dev_rows(args.dev_cap)
    gold = [r["label"] for r in rows]
    xv, mlp = verifiers()
    t0 = time.time()
    z, x = run_xenc(xv, rows)
    secs = time.time() - t0
    mlp_pred = run_mlp(mlp, rows)
    T = fit_temperature(z, gold)
    zt = z / T
    # the combiner, judged by 2-fold by group on development rows
    halves = np.array([int(hashlib.sha256(r["group"].encode()).hexdigest(), 16) % 2 for r in rows])
    folds = []
    for h in (0, 1):
        fit, test = halves != h, halves == h
        c = fit_combiner(zt[fit], x[fit], [g for g, m in zip(gold, fit) if m], args.l2)
        tg = [g for g, m in zip(gold, test) if m]
        trows = [r for r, m in zip(rows, test) if m]
        zc = apply_combiner(zt[test], x[test], c)
        folds.append((nll(zt[test], tg), nll(zc, tg), per_source_accuracy(labels_of(zt[test]), trows)[0],
                      per_source_accuracy(labels_of(zc), trows)[0]))
    f = np.mean(folds, axis=0)
    keep = f[1] < f[0] and f[3] >= f[2]
    comb = fit_combiner(zt, x, gold, args.l2) if keep else None
    zf = apply_combiner(zt, x, comb)
    p = X.softmax(zf)
    three = np.array([g != "NOT" for g in gold])
    t, prec, n_kept = c_threshold(p[three], [g for g, m in zip(gold, three) if m], args.c_precision)
    meta_path = X.META_PATH
    meta = json.loads(meta_path.read_text())
    meta["calibration"] = {
        "temperature": T,
        "fitted_on": f"{len(rows)} development rows (validation/validate_nli.py calibrate)",
    }
    meta["combiner"] = None if comb is None else {k: np.round(v, 6).tolist() for k, v in comb.items()} | {
        "features": list(__import__("rageval.claims.features", fromlist=["NAMES"]).NAMES)}
    meta["low_confidence_below"] = t
    s_raw, by_raw = per_source_accuracy(labels_of(z), rows)
    s_t, by_t = per_source_accuracy(labels_of(zf), rows)
    s_mlp, by_mlp = per_source_accuracy(mlp_pred, rows)
    conf = p.max(1)[three]
    ok = np.array([correct(lab, g) for lab, g in zip(labels_of(zf), gold)])[three]
    e, _ = ece_table(conf, ok)
    meta["development"] = {
        "rows": len(rows), "mean_per_source_accuracy": {"xenc": round(s_t, 4), "xenc_uncalibrated": round(s_raw, 4),
                                                        "mlp": round(s_mlp, 4)},
        "by_source": {s: {"xenc": round(by_t[s], 4), "mlp": round(by_mlp[s], 4)} for s in by_t},
        "combiner_2fold": {"nll_without": round(f[0], 4), "nll_with": round(f[1], 4),
                           "acc_without": round(f[2], 4), "acc_with": round(f[3], 4), "kept": bool(keep)},
        "c_precision_at_threshold": None if np.isnan(prec) else round(prec, 4), "c_kept": n_kept,
        "ece_3way": round(e, 4), "seconds": round(secs, 1),
    }
    # the team's hand-written pairs (development only: their writers read the failures), not fitted on
    team, tgold = team_pairs()
    tz, tx = run_xenc(xv, team)
    tpred = labels_of(apply_combiner(tz / T, tx, comb))
    tmlp = run_mlp(mlp, team)
    meta["development"]["team_sets_3way"] = {
        "n": len(team), "xenc": round(float(np.mean([p == g for p, g in zip(tpred, tgold)])), 4),
        "mlp": round(float(np.mean([p == g for p, g in zip(tmlp, tgold)])), 4)}
    meta_path.write_text(json.dumps(meta, indent=1) + "\n")
    print(json.dumps(meta["development"], indent=1))
    print(f"T = {T}, combiner kept: {keep}, low_confidence_below = {t}")


def compare(args) -> None:
    rows = real_dev_rows(args.dev_cap)
    gold = [r["label"] for r in rows]
    team_rows, team_gold = team_pairs()
    derived = [r for r in read_jsonl(DATA_DIR / "dev.jsonl") if r["source"] == "derived_wice_nonrat"]
    emb = make_embedder("local")
    models = {"shipped": X.load(), "other": X.load(args.other_params, args.other_meta)}
    print("| model | C bias | mean per-source acc. | E/N read C | C precision | C recall | N recall "
          "| team acc. | team N read N | derived WiCE read C |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, model in models.items():
        verifier = CrossEncoderVerifier(emb, xenc=model)
        z, _ = run_xenc(verifier, rows)
        tz, _ = run_xenc(verifier, team_rows)
        dz, _ = run_xenc(verifier, derived)
        for bias in sorted({0.0, args.c_bias}):
            shift = np.array([0.0, 0.0, bias])
            pred, tpred, dpred = (labels_of(a - shift) for a in (z, tz, dz))
            acc, _ = per_source_accuracy(pred, rows)
            pairs = list(zip(gold, pred))
            read_c = np.mean([p == "C" for g, p in pairs if g in ("E", "N")])
            c_prec = np.mean([g == "C" for g, p in pairs if p == "C" and g != "NOT"])
            c_rec = np.mean([p == "C" for g, p in pairs if g == "C"])
            n_rec = np.mean([p == "N" for g, p in pairs if g == "N"])
            team_acc = np.mean([p == g for p, g in zip(tpred, team_gold)])
            team_n = sum(p == g == "N" for p, g in zip(tpred, team_gold))
            print(f"| {name} ({model.version}) | {bias:g} | {acc:.3f} | {read_c:.3f} | {c_prec:.3f} | {c_rec:.3f} "
                  f"| {n_rec:.3f} | {team_acc:.3f} | {team_n} / {team_gold.count('N')} "
                  f"| {dpred.count('C')} / {len(derived)} |", flush=True)


def untouched(report_rows: list[dict]) -> list[dict]:
    """Report rows whose premise and claim appear in no train or dev row (the FEVER-NLI test file
    shares about 40% of its premises with the dev file, e-RTE-3-it TEST some with DEV)."""
    seen = set()
    for part in ("train", "dev"):
        for r in read_jsonl(DATA_DIR / f"{part}.jsonl"):
            seen.add(r["premise"])
            seen.add(r["claim"])
    return [r for r in report_rows if r["premise"] not in seen and r["claim"] not in seen]


PAIR_SETS = ("snli", "climate_fever", "rte3_it", "citint", "fever_nli")


def collect(args) -> dict:
    """Everything the report needs that does not depend on the calibration: per pair row the
    decisive raw logits, feature vector and MLP label; per claim-set answer its claims' candidate
    logits and vectors and the MLP's smallest P(SUPPORTED); the speed table."""
    xv, mlp = verifiers()
    report_rows = untouched(read_jsonl(DATA_DIR / "report.jsonl"))
    rows = sample_by_group([r for r in report_rows if r["source"] in PAIR_SETS], args.report_cap)
    raw: dict = {"model": xv.xenc.version.split("-")[0] + "-" + xv.xenc.meta["sha256"][:10], "pairs": {}, "claims": {}}
    for source in PAIR_SETS:
        part = [r for r in rows if r["source"] == source]
        z, x = run_xenc(xv, part)
        raw["pairs"][source] = {"gold": [r["label"] for r in part], "z": z, "x": x, "mlp": run_mlp(mlp, part)}
        print(source, len(part), flush=True)
    qags = sample_by_group([r for r in report_rows if r["source"].startswith("qags")], args.qags_cap)
    wice = [r for r in read_jsonl(DATA / "wice" / "claims.jsonl.gz")
            if r["split"] == "test" and r["level"] == "claim"][:args.wice_cap]
    se = [r for r in read_jsonl(DATA / "summedits" / "items.jsonl.gz")
          if r["split"] == "test"]
    se = [se[i] for i in sorted(np.random.default_rng(SEED).choice(len(se), min(args.summedits_cap, len(se)),
                                                                     replace=False))]
    sets = [
        ("QAGS (CNN/DM + XSum summary sentences vs article)", [([r["claim"]], [r["premise"]]) for r in qags],
         [r["label"] == "E" for r in qags]),
        ("WiCE test (claim vs whole cited article)", [([r["claim"]], ["\n".join(r["evidence"])]) for r in wice],
         [r["label"] == "supported" for r in wice]),
        ("SummEdits test (sample; summary vs document)", [(extract_claims(r["summary"]), [r["document"]]) for r in se],
         [r["label"] == 1 for r in se]),
    ]
    for name, jobs, gold in sets:
        xr = [[(f.vector, lg, contained(c, ctx) is not None) for c, (f, lg) in zip(claims, row)]
              for (claims, ctx), row in zip(jobs, xv.raw(jobs))]
        mp = []
        for vs in mlp.verify_many(jobs):
            ps = [(v.probabilities or {}).get("SUPPORTED", 0.0) for v in vs]
            mp.append(min(ps) if ps else float("nan"))
        raw["claims"][name] = {"gold": gold, "xenc": xr, "mlp": mp}
        print(name, len(jobs), flush=True)
    raw["speed"] = speed(xv, mlp, args.speed_n)
    return raw


def calibrate_mlp(args) -> None:
    """Temperature and low-confidence threshold of the shipped MLP verifier, fitted on the same
    development rows as the cross-encoder's (its labels (S, C, NM) read as (E, C, N)); written
    into training/models/claim_verifier.json (``temperature``, ``low_confidence_below``)."""
    from training import claim_mlp as M

    rows = real_dev_rows(args.dev_cap)
    gold = [r["label"] for r in rows]
    mlp = LearnedVerifier(make_embedder("local"), model=M.load())
    order = [mlp.model.labels.index(lab) for lab in ("SUPPORTED", "NOT_MENTIONED", "CONTRADICTED")]
    feats = mlp.features.many([([r["claim"]], [r["premise"]]) for r in rows])
    P = mlp.model.probabilities(np.stack([f[0].vector for f in feats]))[:, order]
    z = np.log(np.clip(P, 1e-12, 1.0)) * mlp.model.temperature  # the uncalibrated logits, up to a constant
    T = fit_temperature(z, gold)
    p = X.softmax(z / T)
    three = np.array([g != "NOT" for g in gold])
    t, prec, n_kept = c_threshold(p[three], [g for g, m in zip(gold, three) if m], args.c_precision)
    ok = np.array([correct(lab, g) for lab, g in zip(labels_of(z), gold)])[three]
    e0, _ = ece_table(X.softmax(z)[three].max(1), ok)
    e1, _ = ece_table(p[three].max(1), ok)
    data = json.loads(M.MODEL_PATH.read_text())
    data["temperature"] = T
    data["low_confidence_below"] = t
    data["calibration"] = {"fitted_on": f"{len(rows)} development rows (validation/validate_nli.py calibrate-mlp)",
                           "ece_3way_before": round(e0, 4), "ece_3way_after": round(e1, 4),
                           "c_precision_at_threshold": None if np.isnan(prec) else round(prec, 4), "c_kept": n_kept}
    M.MODEL_PATH.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    print(json.dumps({"temperature": T, "low_confidence_below": t, **data["calibration"]}, indent=1))


def pair_lines(xv, raw) -> list[str]:
    lines = ["| set | n | 3-way acc. (xenc) | 3-way acc. (MLP) | supported-vs-not acc. (xenc) | (MLP) | "
             "C recall (xenc) | C precision (xenc) | C recall (MLP) | C precision (MLP) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    allp, allg, allconf = [], [], []

    def a3(pp, gg):
        return float(np.mean(pp == gg))

    def ab(pp, gg):
        return float(np.mean((pp == "E") == gg))

    def crec(pp, gg):
        m = gg == "C"
        return float(np.mean(pp[m] == "C")) if m.any() else float("nan")

    def cprec(pp, gg):
        m = pp == "C"
        return float(np.mean(gg[m] == "C")) if m.any() else float("nan")

    for source, d in raw["pairs"].items():
        if not d["gold"]:
            continue
        zf = apply_combiner(d["z"] / xv.xenc.temperature, d["x"], xv.combiner)
        p = X.softmax(zf)
        px, pm, g = np.array(labels_of(zf)), np.array(d["mlp"]), np.array(d["gold"])
        three = source != "fever_nli"
        if three:
            allp += list(px)
            allg += list(g)
            allconf += list(p.max(1))
        bin_g = g == "E"
        cells = [fmt(boot(a3, px, g)) if three else "-", fmt(boot(a3, pm, g)) if three else "-",
                 fmt(boot(ab, px, bin_g)), fmt(boot(ab, pm, bin_g)),
                 fmt(boot(crec, px, g)) if three else "-", fmt(boot(cprec, px, g)) if three else "-",
                 fmt(boot(crec, pm, g)) if three else "-", fmt(boot(cprec, pm, g)) if three else "-"]
        lines.append(f"| {source} | {len(g)} | " + " | ".join(cells) + " |")
    px, g = np.array(allp), np.array(allg)
    conf = np.array(allconf)
    ok = px == g
    e, table = ece_table(conf, ok)
    low = conf < xv.low_below
    kept_c = (px == "C") & ~low
    lines += [
        "",
        f"All 3-way rows above together (n = {len(ok)}): 3-way accuracy {fmt(boot(a3, px, g))}, "
        f"contradiction recall {fmt(boot(crec, px, g))}, CONTRADICTED precision {fmt(boot(cprec, px, g))}; "
        f"expected calibration error **{e:.3f}**.",
        f"Marked low confidence (confidence < {xv.low_below}): {low.mean():.1%} of verdicts; the others are right "
        f"{ok[~low].mean():.3f} of the time; CONTRADICTED verdicts not marked: {int(kept_c.sum())}, precision "
        f"{(np.mean(g[kept_c] == 'C') if kept_c.any() else float('nan')):.3f}.",
        "",
        "Reliability (calibrated confidence of the verdict against its accuracy, same rows):",
        "",
    ] + table
    return lines


def claim_lines(xv, raw) -> list[str]:
    lines = [
        "| set | n | AUROC P(SUPPORTED) (xenc) | AUROC (MLP) | balanced acc., every claim P(SUPPORTED) >= 0.5 (xenc) | "
        "(MLP) |",
        "|---|---|---|---|---|---|",
    ]
    for name, d in raw["claims"].items():
        sx = []
        for row in d["xenc"]:
            ps = [1.0 if copied else float(X.softmax(xv.claim_logits(vec, lg)[1])[0])
                  for vec, lg, copied in row if copied or len(lg)]
            sx.append(min(ps) if ps else float("nan"))
        sx, sm, g = np.array(sx), np.array(d["mlp"]), np.array(d["gold"])
        m = ~np.isnan(sx) & ~np.isnan(sm)
        lines.append(
            f"| {name} | {int(m.sum())} | {fmt(boot(auroc, sx[m], g[m]))} | {fmt(boot(auroc, sm[m], g[m]))} | "
            f"{fmt(boot(balanced_accuracy, sx[m] >= 0.5, g[m]))} | {fmt(boot(balanced_accuracy, sm[m] >= 0.5, g[m]))} |"
        )
    return lines


def speed(xv, mlp, n: int) -> list[str]:
    se = [r for r in read_jsonl(DATA / "summedits" / "items.jsonl.gz")
          if r["split"] == "evaluation"][:n]
    jobs = [(extract_claims(r["summary"]), [r["document"]]) for r in se]
    claims = sum(len(c) for c, _ in jobs)
    out = []
    fresh = (("cross-encoder", lambda: CrossEncoderVerifier(make_embedder("local"), xenc=xv.xenc)),
             ("MLP", lambda: LearnedVerifier(make_embedder("local"))))
    for name, build in fresh:  # each with its own empty vector caches
        v = build()
        t0, cpu0, load0 = time.time(), time.process_time(), os.getloadavg()[0]
        v.verify_many(jobs)
        wall, cpu = time.time() - t0, time.process_time() - cpu0
        out.append(f"| {name} | {len(jobs)} | {claims} | {claims / wall:.1f} | {len(jobs) / wall:.2f} | {cpu:.1f} | "
                   f"{claims / cpu:.1f} | {load0:.1f} |")
    return [
        f"Speed on {len(jobs)} SummEdits `evaluation` summaries against their documents (cold vector cache, "
        "one process, OMP_NUM_THREADS=1), on the 2 shared cores while other jobs ran: wall-clock figures are "
        "slowed by them; claims per CPU second is the figure to compare:",
        "",
        "| verifier | answers | claims | claims/s (wall) | answers/s (wall) | CPU s | claims per CPU s "
        "| load average |",
        "|---|---|---|---|---|---|---|---|",
    ] + out


def report(args) -> None:
    import pickle

    cache = args.raw or (ROOT / "bench" / "nli_ckpt" / "report_raw.pkl")
    if args.collect_only or not cache.exists():
        t0 = time.time()
        raw = collect(args)
        raw["seconds"] = time.time() - t0
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_bytes(pickle.dumps(raw))
        if args.collect_only:
            return
    raw = pickle.loads(cache.read_bytes())
    xv = CrossEncoderVerifier(None, xenc=X.load())
    if raw["model"] != "xenc-" + xv.xenc.meta["sha256"][:10]:
        raise SystemExit(f"{cache} was collected with another parameter file; run with --collect-only again")
    meta = xv.xenc.meta
    lines = [
        f"Command: `python -m validation.validate_nli report --write-docs` ({time.strftime('%Y-%m-%d')}). Model "
        f"`{xv.xenc.version}` (parameters sha256 {meta['sha256'][:12]}): temperature {xv.xenc.temperature}, combiner "
        f"{'kept' if xv.combiner is not None else 'not kept (it did not help on development rows)'}, "
        f"low-confidence threshold {xv.low_below}. Report portions only (never trained, selected or "
        f"calibrated on); a seeded sample of at most {args.report_cap} rows per pair set, by group.",
        "",
        "#### Pairs (claim against its premise, through the verifier)",
        "",
    ]
    lines += pair_lines(xv, raw)
    lines += ["", "#### Claims through the full path (candidate sentences retrieved from the whole document)", ""]
    lines += claim_lines(xv, raw)
    lines += ["", *raw["speed"], "", f"Collection run time {raw['seconds']:.0f} s."]
    print("\n".join(lines))
    if args.write_docs:
        replace_section(DOCS, BEGIN, END, lines)


def main() -> None:
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("calibrate")
    c.add_argument("--dev-cap", type=int, default=120)
    c.add_argument("--l2", type=float, default=0.01)
    c.add_argument("--c-precision", type=float, default=0.9)
    cm = sub.add_parser("calibrate-mlp")
    cm.add_argument("--dev-cap", type=int, default=120)
    cm.add_argument("--c-precision", type=float, default=0.9)
    cp = sub.add_parser("compare")
    cp.add_argument("--other-params", type=Path, required=True)
    cp.add_argument("--other-meta", type=Path, required=True)
    cp.add_argument("--c-bias", type=float, default=1.0)
    cp.add_argument("--dev-cap", type=int, default=120)
    r = sub.add_parser("report")
    r.add_argument("--report-cap", type=int, default=300)
    r.add_argument("--qags-cap", type=int, default=400)
    r.add_argument("--summedits-cap", type=int, default=150)
    r.add_argument("--wice-cap", type=int, default=274)
    r.add_argument("--speed-n", type=int, default=20)
    r.add_argument("--write-docs", action="store_true", help=f"write the section into {DOCS.relative_to(ROOT)}")
    r.add_argument("--collect-only", action="store_true", help="only run the models and cache their raw outputs")
    r.add_argument("--raw", type=Path, default=None, help="the cache (default training/nli_ckpt/report_raw.pkl)")
    args = ap.parse_args()
    {"calibrate": calibrate, "calibrate-mlp": calibrate_mlp, "compare": compare, "report": report}[args.cmd](args)


if __name__ == "__main__":
    main()
