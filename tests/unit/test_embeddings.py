"""Embedding providers: the test-only hash embedder, the persistent cache, the factory, and the
local all-MiniLM-L6-v2 ONNX model (built once into KP_MODEL_CACHE)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from knowledge_platform.embeddings import onnx_builder
from knowledge_platform.embeddings.cache import EmbeddingCache, embed_with_cache
from knowledge_platform.embeddings.deterministic import HashEmbedder
from knowledge_platform.embeddings.factory import make_embedder
from knowledge_platform.errors import ConfigError

REPO = Path(__file__).resolve().parents[2]


def cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


# -- hash embedder ---------------------------------------------------------------------------


def test_hash_embedder_is_deterministic_normalised_and_word_sensitive() -> None:
    emb = HashEmbedder()
    texts = ["the swatch test launches on monday", "launch the swatch test monday", "tax forms"]
    a = emb.embed_documents(texts)
    b = HashEmbedder().embed_documents(texts)
    assert a.shape == (3, 64) and a.dtype == np.float32
    assert np.array_equal(a, b)
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-6)
    assert cos(a[0], a[1]) > cos(a[0], a[2])
    assert np.allclose(emb.embed_query(texts[0]), a[0])
    assert emb.texts_embedded == 3  # embed_documents counts; queries are not counted


def test_hash_embedder_edge_cases() -> None:
    emb = HashEmbedder(dim=16)
    empty = emb.embed_query("")
    assert empty.shape == (16,) and float(np.linalg.norm(empty)) == pytest.approx(1.0)
    assert emb.embed_documents([]).shape == (0, 16)
    assert emb.count_tokens("three small words") == 3
    assert emb.model_id == "test-hash-bow-16"


# -- cache -----------------------------------------------------------------------------------


def test_cache_round_trip_and_model_isolation(tmp_path: Path) -> None:
    with EmbeddingCache(tmp_path / "c") as cache:
        vec = np.arange(4, dtype=np.float32)
        cache.put_many("m1", {"h1": vec})
        got = cache.get_many("m1", ["h1", "missing"])
        assert list(got) == ["h1"] and np.array_equal(got["h1"], vec)
        assert cache.get_many("m2", ["h1"]) == {}
        assert cache.count("m1") == 1
    with EmbeddingCache(tmp_path / "c") as reopened:  # persistent
        assert np.array_equal(reopened.get_many("m1", ["h1"])["h1"], vec)


def test_embed_with_cache_embeds_only_misses_once(tmp_path: Path) -> None:
    emb = HashEmbedder()
    cache = EmbeddingCache(tmp_path)
    items = [("h-a", "alpha text"), ("h-b", "beta text"), ("h-a", "alpha text"), ("h-c", "gamma")]
    first = embed_with_cache(emb, cache, items)
    assert (first.n_embedded, first.n_cached) == (3, 1)  # the duplicate hash is embedded once
    assert emb.texts_embedded == 3
    assert np.array_equal(first.vectors[0], first.vectors[2])
    assert np.allclose(first.vectors[1], emb.embed_query("beta text"))

    again = embed_with_cache(emb, cache, [*items, ("h-d", "delta")])
    assert (again.n_embedded, again.n_cached) == (1, 4)
    assert emb.texts_embedded == 4
    assert np.array_equal(again.vectors[:4], first.vectors)
    empty = embed_with_cache(emb, cache, [])
    assert empty.vectors.shape == (0, 64) and empty.n_embedded == 0


def test_cache_many_hashes_and_concurrent_processes(tmp_path: Path) -> None:
    script = (
        "import sys, numpy as np\n"
        "from pathlib import Path\n"
        "from knowledge_platform.embeddings.cache import EmbeddingCache\n"
        "c = EmbeddingCache(Path(sys.argv[1]))\n"
        "for r in range(20):\n"
        "    c.put_many('m', {f'{sys.argv[2]}-{r}-{i}': np.full(8, i, np.float32)"
        " for i in range(50)})\n"
        "    c.get_many('m', [f'x-{i}' for i in range(600)])\n"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", script, str(tmp_path), tag], cwd=REPO)
        for tag in ("p", "q", "r")
    ]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    cache = EmbeddingCache(tmp_path)
    assert cache.count("m") == 3 * 20 * 50
    keys = [f"q-{r}-{i}" for r in range(20) for i in range(50)]  # > one IN-query chunk
    assert len(cache.get_many("m", keys)) == 1000


# -- factory ---------------------------------------------------------------------------------


def test_factory_errors_and_hash(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown embedding provider 'cohere'"):
        make_embedder("cohere", model=None, cache_dir=tmp_path, api_key=None, base_url=None)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        make_embedder("openai", model=None, cache_dir=tmp_path, api_key=None, base_url=None)
    with pytest.raises(ConfigError, match="unknown OpenAI embedding model"):
        make_embedder("openai", model="nope", cache_dir=tmp_path, api_key="k", base_url=None)
    with pytest.raises(ConfigError, match="unknown local embedding model"):
        make_embedder("local", model="bge-small", cache_dir=tmp_path, api_key=None, base_url=None)
    emb = make_embedder("hash", model=None, cache_dir=tmp_path, api_key=None, base_url=None)
    assert isinstance(emb, HashEmbedder)


# -- ONNX build cache --------------------------------------------------------------------------


def fake_model_dir(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    (src / "model.safetensors").write_bytes(b"weights v1")
    return src


def test_build_runs_once_under_concurrency(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    builds: list[int] = []

    def fake_build(out: Path, src: Path, weights: Path) -> None:
        builds.append(1)
        time.sleep(0.2)
        for name in (onnx_builder.FP32_FILE, onnx_builder.INT8_FILE, "tokenizer.json"):
            (out / name).write_text("x")

    monkeypatch.setattr(onnx_builder, "_build_into", fake_build)
    src, cache = fake_model_dir(tmp_path), tmp_path / "cache"
    results: list[onnx_builder.ModelFiles] = []
    threads = [
        threading.Thread(target=lambda: results.append(onnx_builder.ensure_models(cache, src)))
        for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(builds) == 1
    assert len({r.int8 for r in results}) == 1 and results[0].int8.exists()
    assert [p.name for p in cache.iterdir() if not p.name.startswith(".build")] == [
        results[0].int8.parent.name
    ]
    (src / "model.safetensors").write_bytes(b"weights v2")  # new weights, new cache key
    assert onnx_builder.ensure_models(cache, src).int8 != results[0].int8
    assert len(builds) == 2


def test_failed_build_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken_build(out: Path, src: Path, weights: Path) -> None:
        (out / onnx_builder.FP32_FILE).write_text("half")
        raise RuntimeError("disk full")

    monkeypatch.setattr(onnx_builder, "_build_into", broken_build)
    cache = tmp_path / "cache"
    with pytest.raises(RuntimeError, match="disk full"):
        onnx_builder.ensure_models(cache, fake_model_dir(tmp_path))
    assert [p.name for p in cache.iterdir()] == [".build.lock"]


# -- local ONNX model ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    configured = os.environ.get("KP_MODEL_CACHE")
    return Path(configured) if configured else tmp_path_factory.mktemp("models")


@pytest.fixture(scope="module")
def local_int8(model_cache: Path):
    from knowledge_platform.embeddings.local import LocalOnnxEmbedder

    return LocalOnnxEmbedder(model_cache)


@pytest.fixture(scope="module")
def local_fp32(model_cache: Path):
    from knowledge_platform.embeddings.local import LocalOnnxEmbedder

    return LocalOnnxEmbedder(model_cache, quantized=False, batch_size=2)


SENTENCES = [
    "A man is eating food.",
    "A man is eating a piece of bread.",
    "The quarterly marketing report is due on Friday.",
    "How do I reset my password for the client portal?",
    "Restart the Qdrant container and check the collection count.",
]


def test_local_similar_sentences_score_higher(local_int8) -> None:
    v = local_int8.embed_documents(SENTENCES)
    assert v.shape == (5, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert cos(v[0], v[1]) > 0.6 > cos(v[0], v[2])
    q = local_int8.embed_query("I forgot my login password")
    assert int(np.argmax(v @ q)) == 3
    assert local_int8.model_id == "all-MiniLM-L6-v2-int8"
    assert (local_int8.dim, local_int8.window_tokens) == (384, 256)


def test_local_int8_matches_fp32(local_int8, local_fp32) -> None:
    q8 = local_int8.embed_documents(SENTENCES)
    f32 = local_fp32.embed_documents(SENTENCES)
    assert min(cos(a, b) for a, b in zip(q8, f32, strict=True)) > 0.98
    assert local_fp32.model_id == "all-MiniLM-L6-v2"


def test_local_batching_does_not_change_fp32_vectors(local_fp32) -> None:
    texts = [*SENTENCES, "short", "a much longer text " * 40]
    batched = local_fp32.embed_documents(texts)  # batch_size 2, sorted, padded per batch
    single = np.stack([local_fp32.embed_query(t) for t in texts])
    assert np.allclose(batched, single, atol=1e-5)


def test_local_count_tokens_and_truncation(local_fp32) -> None:
    # [CLS] hello world [SEP]: special tokens count, so count <= window means nothing is cut
    assert local_fp32.count_tokens("hello world") == 4
    assert local_fp32.count_tokens("word " * 1000) == 1002  # counting never truncates
    head = "word " * 254
    long_vec, head_vec = local_fp32.embed_documents(["word " * 1000 + "tail", head])
    assert cos(long_vec, head_vec) > 0.9999  # the model reads the first 256 pieces only


def test_factory_local_variants(model_cache: Path) -> None:
    emb = make_embedder(
        "local", model="all-MiniLM-L6-v2", cache_dir=model_cache, api_key=None, base_url=None
    )
    assert emb.model_id == "all-MiniLM-L6-v2" and emb.dim == 384


def test_quantizing_prints_no_preprocessing_advice(tmp_path: Path) -> None:
    """The first start quantizes the model; onnxruntime's "Please consider to run
    pre-processing before quantization" must not reach the terminal (a subprocess: the
    advice goes through the root logger, which pytest's own handlers would hide)."""
    code = """if True:
        import sys
        import numpy as np
        from onnx import TensorProto, helper, numpy_helper, save
        from knowledge_platform.embeddings.onnx_builder import quantize_int8
        w = numpy_helper.from_array(np.ones((8, 8), dtype=np.float32), "w")
        graph = helper.make_graph(
            [helper.make_node("MatMul", ["x", "w"], ["y"])], "g",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8])], [w])
        save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), sys.argv[1])
        quantize_int8(sys.argv[1], sys.argv[2])
    """
    src, dst = tmp_path / "m.onnx", tmp_path / "m.int8.onnx"
    done = subprocess.run(
        [sys.executable, "-c", code, str(src), str(dst)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert dst.stat().st_size > 0
    assert "pre-processing" not in done.stderr + done.stdout
