"""The comparison that chose usearch for memoir's nearest-neighbour graph (see
docs/dependencies.md#approximate-nearest-neighbours): the same clustered 384-d vectors
(2,000 centres, a 48-d spread around each, noise) in usearch (HNSW, int8), faiss-cpu
(HNSW over 8-bit scalar quantization) or hnswlib (HNSW, float32), 16 links a node,
breadth 64 when adding and searching.  Not part of ``python -m bench``: faiss-cpu and
hnswlib are not memoir's dependencies.  Run it in a virtualenv that has the library:

    python bench/ann_libraries.py usearch 200000   # builds the index file, then
    python bench/ann_libraries.py usearch 200000   # maps it and measures 200 queries

The second run prints load time, p50/p95 of a 10-nearest query, recall@10 against
exact search and the process's RSS.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

import numpy as np

DIM = 384


def _rss_mb() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) // 1024
    return 0


_RNG = np.random.default_rng(7)
_CENTRES = _RNG.standard_normal((2000, DIM)).astype(np.float32)
_BASIS = _RNG.standard_normal((48, DIM)).astype(np.float32)


def vectors(count: int, seed: int) -> Any:
    rng = np.random.default_rng(seed)
    out = _CENTRES[rng.integers(0, len(_CENTRES), count)] \
        + 0.5 * (rng.standard_normal((count, 48)).astype(np.float32) @ _BASIS) \
        + 0.15 * rng.standard_normal((count, DIM)).astype(np.float32)
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    return out


def _chunks(total: int) -> Any:
    for start in range(0, total, 50_000):
        yield start, vectors(min(50_000, total - start), start)


def build(library: str, total: int, path: str) -> None:
    started = time.perf_counter()
    if library == "usearch":
        from usearch.index import Index
        index = Index(ndim=DIM, metric="cos", dtype="i8", connectivity=16,
                      expansion_add=64, expansion_search=64)
        for start, part in _chunks(total):
            index.add(np.arange(start, start + len(part)), part, threads=2)
        index.save(path)
    elif library == "hnswlib":
        import hnswlib
        index = hnswlib.Index(space="ip", dim=DIM)
        index.init_index(max_elements=total, ef_construction=64, M=16)
        index.set_num_threads(2)
        for start, part in _chunks(total):
            index.add_items(part, np.arange(start, start + len(part)))
        index.save_index(path)
    else:
        import faiss
        faiss.omp_set_num_threads(2)
        index = faiss.IndexHNSWSQ(DIM, faiss.ScalarQuantizer.QT_8bit, 16,
                                  faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = 64
        index.train(vectors(20_000, 999))
        for _start, part in _chunks(total):
            index.add(part)
        faiss.write_index(index, path)
    print(library, total, "build/s", round(total / (time.perf_counter() - started)),
          "MB", os.path.getsize(path) // 2**20)


def measure(library: str, total: int, path: str) -> None:
    started = time.perf_counter()
    if library == "usearch":
        from usearch.index import Index
        index = Index.restore(path, view=True)
        index.expansion_search = 64

        def query(v: Any) -> Any:
            return index.search(v, 10).keys
    elif library == "hnswlib":
        import hnswlib
        index = hnswlib.Index(space="ip", dim=DIM)
        index.load_index(path)
        index.set_ef(64)
        index.set_num_threads(1)

        def query(v: Any) -> Any:
            return index.knn_query(v, 10)[0][0]
    else:
        import faiss
        faiss.omp_set_num_threads(1)
        index = faiss.read_index(path, faiss.IO_FLAG_MMAP)
        index.hnsw.efSearch = 64

        def query(v: Any) -> Any:
            return index.search(v[None], 10)[1][0]
    load = time.perf_counter() - started
    rng = np.random.default_rng(123)
    picked = rng.integers(0, total, 200)
    queries = []
    for i in picked:
        start = (i // 50_000) * 50_000
        base = vectors(min(50_000, total - start), start)[i - start]
        queries.append(base + 0.1 * rng.standard_normal(DIM).astype(np.float32))
    qs = np.array(queries, dtype=np.float32)
    qs /= np.linalg.norm(qs, axis=1, keepdims=True)
    best = np.full((len(qs), 10), -9.0)
    ids = np.zeros((len(qs), 10), dtype=np.int64)
    for start, part in _chunks(total):
        both = np.concatenate([best, qs @ part.T], 1)
        both_ids = np.concatenate(
            [ids, np.arange(start, start + len(part))[None].repeat(len(qs), 0)], 1)
        order = np.argsort(-both, 1)[:, :10]
        best, ids = np.take_along_axis(both, order, 1), np.take_along_axis(both_ids, order, 1)
    rss = _rss_mb()
    times, hit = [], 0
    for k, v in enumerate(qs):
        t0 = time.perf_counter()
        got = query(v)
        times.append(time.perf_counter() - t0)
        hit += len(set(map(int, got)) & set(map(int, ids[k])))
    times.sort()
    print(library, total, "load s", round(load, 3), "p50 ms", round(times[100] * 1000, 2),
          "p95 ms", round(times[189] * 1000, 2), "recall@10", hit / (10 * len(qs)),
          "RSS MB", max(rss, _rss_mb()))


if __name__ == "__main__":
    lib, n = sys.argv[1], int(sys.argv[2])
    file = f"{lib}-{n}.index"
    (measure if os.path.exists(file) else build)(lib, n, file)
