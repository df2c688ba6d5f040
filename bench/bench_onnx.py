"""MiniLM on onnxruntime over the project's own NumPy weights, against the NumPy forward pass:
equality (within 1e-5) and speed per CPU-second, one thread each, on the same texts.

Not shipped in rageval: measured here it was not faster than the NumPy pass (see
docs/benchmarks.md), and its vectors, equal only within float rounding, would need their own
embedder name, split every signature and the embedding cache, and re-run every validation.
This script keeps the graph and the comparison so the question can be asked again on another
machine. onnxruntime comes with chromadb; building the graph needs the ``onnx`` package, which
rageval does not depend on: install it OUTSIDE the project venv and put it on PYTHONPATH::

    pip install --target ONNX_PKGS --no-deps onnx==1.23.2 ml_dtypes==0.5.4
    OPENBLAS_NUM_THREADS=1 PYTHONPATH=ONNX_PKGS python -m bench.bench_onnx [--n 512] [--repeats 5]

The graph mirrors :func:`rageval.embed.forward.encode_packed` node for node (the arrays of
:func:`rageval.embed.minilm.build_minilm`: scale folded into q, ``ffn_w`` halved, the same
tanh-form GELU). One call encodes one width group of a pack
(:class:`rageval.embed.forward.WidthGroup`)::

    inputs   ids (N,) int64, pos (N,) int64       the group's word-pieces, packed, and their positions
             index (B, W) int64                   packed row of each padded position (N on padding)
             bias (B, 1, 1, W) float32            0 on real keys, -1e9 on padding
             real (N,) int64                      flat positions in B x W of the real word-pieces
    output   hidden (N, H) float32                last-layer states of the real word-pieces

Row-wise steps run on the N real rows; attention gathers them into ``(B, W)`` as NumPy does.
The NumPy pass and the onnxruntime session alternate run by run (best CPU-seconds of
``--repeats``), so both see the same machine load.
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np

from bench.bench_common import announce, run_facts
from rageval.embed.forward import _GELU_CLIP, _GELU_P, WidthGroup, _key_bias, _MiniLM, pack_layout
from rageval.embed.minilm import MiniLMEmbedder, _load_minilm

OPSET = 17  # LayerNormalization is in opset 17


def build_graph(model: _MiniLM) -> bytes:
    """The serialised ONNX model of ``model`` (the format of the module docstring)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    h, heads = model.dim, model.heads
    dh = h // heads
    nodes: list = []
    inits: list = []
    count = [0]

    def const(name: str, value) -> str:
        inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def op(kind: str, inputs: list[str], **attrs) -> str:
        count[0] += 1
        out = f"{kind.lower()}_{count[0]}"
        nodes.append(helper.make_node(kind, inputs, [out], **attrs))
        return out

    def layer_norm(x: str, gamma: str, beta: str) -> str:
        return op("LayerNormalization", [x, gamma, beta], axis=-1, epsilon=model.eps)

    emb = model.embeddings
    x = op("Add", [op("Gather", [const("word", emb["word"]), "ids"]),
                   op("Gather", [const("position", emb["position"]), "pos"])])
    x = op("Add", [x, const("type0", emb["type0"])])
    x = layer_norm(x, const("emb_ln_g", emb["ln_g"]), const("emb_ln_b", emb["ln_b"]))
    zero_row = const("zero_row", np.zeros((1, 3 * h), dtype=np.float32))
    split_shape = const("split_shape", np.array([0, 0, 3, heads, dh], dtype=np.int64))
    flat_shape = const("flat_shape", np.array([-1, h], dtype=np.int64))
    for i, layer in enumerate(model.layers):
        w = {k: const(f"l{i}_{k}", v) for k, v in layer.items()}
        qkv = op("Add", [op("MatMul", [x, w["qkv_w"]]), w["qkv_b"]])
        padded = op("Gather", [op("Concat", [qkv, zero_row], axis=0), "index"])  # (B, W, 3H)
        heads5 = op("Transpose", [op("Reshape", [padded, split_shape])], perm=[2, 0, 3, 1, 4])
        q, k, v = (op("Gather", [heads5, const(f"l{i}_pick{j}", np.array(j, dtype=np.int64))], axis=0)
                   for j in range(3))
        scores = op("Add", [op("MatMul", [q, op("Transpose", [k], perm=[0, 1, 3, 2])]), "bias"])
        ctx = op("MatMul", [op("Softmax", [scores], axis=-1), v])  # (B, heads, W, dh)
        ctx = op("Gather", [op("Reshape", [op("Transpose", [ctx], perm=[0, 2, 1, 3]), flat_shape]), "real"], axis=0)
        attn = op("Add", [op("Add", [op("MatMul", [ctx, w["out_w"]]), w["out_b"]]), x])
        x = layer_norm(attn, w["ln1_g"], w["ln1_b"])
        inner = op("Add", [op("MatMul", [x, w["in_w"]]), w["in_b"]])
        gelu2 = _twice_gelu(op, const, inner, f"l{i}")
        ffn = op("Add", [op("Add", [op("MatMul", [gelu2, w["ffn_w"]]), w["ffn_b"]]), x])
        x = layer_norm(ffn, w["ln2_g"], w["ln2_b"])
    nodes.append(helper.make_node("Identity", [x], ["hidden"]))
    graph = helper.make_graph(
        nodes, "minilm_packed",
        [helper.make_tensor_value_info("ids", TensorProto.INT64, ["N"]),
         helper.make_tensor_value_info("pos", TensorProto.INT64, ["N"]),
         helper.make_tensor_value_info("index", TensorProto.INT64, ["B", "W"]),
         helper.make_tensor_value_info("bias", TensorProto.FLOAT, ["B", 1, 1, "W"]),
         helper.make_tensor_value_info("real", TensorProto.INT64, ["N"])],
        [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, ["N", h])],
        initializer=inits,
    )
    onnx_model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                                   producer_name="rageval")
    onnx_model.ir_version = 8  # readable by onnxruntime >= 1.14
    onnx.checker.check_model(onnx_model)
    return onnx_model.SerializeToString()


def _twice_gelu(op, const, x: str, tag: str) -> str:
    """``2 gelu(x)`` in the tanh form of :func:`rageval.embed.forward._gelu`, node for node."""
    c = op("Clip", [x, const(tag + "_lo", -_GELU_CLIP), const(tag + "_hi", _GELU_CLIP)])
    u = op("Mul", [c, c])
    t = op("Add", [op("Mul", [u, const(tag + "_p2", _GELU_P[2])]), const(tag + "_p1", _GELU_P[1])])
    t = op("Add", [op("Mul", [t, u]), const(tag + "_p0", _GELU_P[0])])
    t = op("Tanh", [op("Mul", [t, c])])
    return op("Mul", [x, op("Add", [t, const(tag + "_one", np.float32(1.0))])])


def _group_feed(id_lists: list[list[int]], group: WidthGroup) -> dict[str, np.ndarray]:
    """The graph's inputs for one width group, its texts packed in group order."""
    lengths = [len(id_lists[t]) for t in group.texts]
    starts = np.zeros(len(lengths), dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    width = group.index.shape[1]
    pos = np.arange(width)
    real = group.mask > 0
    return {
        "ids": np.concatenate([id_lists[t] for t in group.texts]).astype(np.int64),
        "pos": np.concatenate([np.arange(n) for n in lengths]).astype(np.int64),
        "index": np.where(real, starts[:, None] + pos[None, :], sum(lengths)).astype(np.int64),
        "bias": _key_bias(group.mask),
        "real": group.real.astype(np.int64),
    }


def session(model: _MiniLM):
    """An onnxruntime session over the graph of ``model``, one intra-op and one inter-op thread."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(build_graph(model), options, providers=["CPUExecutionProvider"])


class OnnxMiniLMEmbedder(MiniLMEmbedder):
    """The project's embedder with its packed forward pass on onnxruntime, one call per width group."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.session = session(_load_minilm(self._folder))

    def _encode(self, model: _MiniLM, id_lists: list[list[int]], width, scratch=None):
        offsets, groups = pack_layout([len(x) for x in id_lists], width)
        hidden = np.empty((int(offsets[-1]), model.dim), dtype=np.float32)
        for group in groups:
            (out,) = self.session.run(["hidden"], _group_feed(id_lists, group))
            hidden[group.rows] = out
        return hidden, offsets, groups


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=512)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    announce()
    from bench.bench_embed import make_sentences
    import onnxruntime

    reference = MiniLMEmbedder()
    reference.embed(["warm"])
    wall0 = time.perf_counter()
    ort_embedder = OnnxMiniLMEmbedder()
    build_s = time.perf_counter() - wall0
    check = make_sentences(200, 20) + make_sentences(40, 100) + ["", "x"]
    vec_diff = float(np.abs(reference.embed(check) - ort_embedder.embed(check)).max())
    tok_diff = max(float(np.abs(a.vectors - b.vectors).max()) for a, b in
                   zip(reference.embed_tokens(check), ort_embedder.embed_tokens(check)) if a.vectors.size)
    result = {"onnxruntime": onnxruntime.__version__, "graph_build_and_load_s": round(build_s, 2),
              "max_abs_diff_sentence_vectors": vec_diff, "max_abs_diff_token_states": tok_diff}
    for label, words, n in (("sentences", 20, args.n), ("chunks", 100, max(1, args.n // 4))):
        texts = make_sentences(n, words)
        best = {"numpy": float("inf"), "onnx": float("inf")}
        for _ in range(args.repeats):
            for name, embedder in (("numpy", reference), ("onnx", ort_embedder)):
                cpu0 = time.process_time()
                embedder.embed(texts)
                best[name] = min(best[name], time.process_time() - cpu0)
        result[label] = {"texts": n, "words": words, "numpy_cpu_s": round(best["numpy"], 3),
                         "onnx_cpu_s": round(best["onnx"], 3),
                         "onnx_speed_per_cpu_s_vs_numpy": round(best["numpy"] / best["onnx"], 3)}
    print(json.dumps({**result, **run_facts()}))


if __name__ == "__main__":
    main()
