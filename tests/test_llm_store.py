"""The buffered LLM cache store: layers, coalesced reads, flushing, and the SQL helpers."""
from __future__ import annotations

import threading

import pytest

import rageval.store.llm_cache as llm_cache
from rageval.store.db import connect
from rageval.store.llm_cache import LLMStore, call_rows, load_index


def cache_size(path) -> int:
    with connect(path) as con:
        return con.execute("SELECT count(*) FROM llm_cache").fetchone()[0]


def _row(i, **extra):
    return {"run_id": "r", "key": f"k{i}", "role": "judge", "model": "m", "tokens_in": 1, "tokens_out": 2,
            "latency_ms": 3.0, "cached": False, "status": "ok", "error": None, "kind": "chat", "attempts": 1,
            **extra}


def test_entries_and_calls_reach_the_database_and_come_back(tmp_path):
    path = tmp_path / "p.duckdb"
    store = LLMStore(path, ["m"])
    for i in range(120):
        store.put(f"k{i}", "m", {"text": f"reply {i}"})
        store.log_call(_row(i))
    store.put("k0", "m", {"text": "second writer loses"})
    store.close()
    assert cache_size(path) == 120 and len(call_rows(path, "r")) == 120
    replies, keys = load_index(path, ["m"], max_bytes=10**9)
    assert replies["k7"] == {"text": "reply 7"} and len(keys) == 120
    assert load_index(path, ["m"], max_bytes=10) == (None, keys)
    assert load_index(path, ["other"], max_bytes=10**9) == ({}, set())

    again = LLMStore(path, ["m"])
    assert again.get("k5") == {"text": "reply 5"} and again.get("nope") is None
    again.close()


def test_large_caches_use_coalesced_point_reads_and_skip_known_misses(tmp_path, monkeypatch):
    path = tmp_path / "p.duckdb"
    seed = LLMStore(path, ["m"])
    for i in range(64):
        seed.put(f"k{i}", "m", {"text": str(i)})
    seed.close()

    batches = []
    real = llm_cache.get_replies

    def counting(p, keys):
        batches.append(len(keys))
        return real(p, keys)

    monkeypatch.setattr(llm_cache, "get_replies", counting)
    store = LLMStore(path, ["m"], preload_bytes=0)  # too big to preload: keys only
    got = {}
    barrier = threading.Barrier(16)

    def lookup(worker):
        barrier.wait()
        for i in range(worker, 64, 16):
            got[i] = store.get(f"k{i}")

    threads = [threading.Thread(target=lookup, args=(w,)) for w in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(got[i] == {"text": str(i)} for i in range(64))
    assert sum(batches) == 64 and len(batches) < 64  # reads were shared
    reads = len(batches)
    assert store.get("never-stored") is None and len(batches) == reads  # a known miss costs no read
    store.close()


def test_memory_only_and_switched_off_layers(tmp_path):
    mem = LLMStore(None, ["m"])
    mem.put("a", "m", {"text": "x"})
    mem.log_call(_row(1))
    assert mem.get("a") == {"text": "x"} and len(mem.log) == 1
    mem.close()
    off = LLMStore(tmp_path / "p.duckdb", ["m"], read=False, write=False)
    off.put("a", "m", {"text": "x"})
    off.log_call(_row(1))
    assert off.get("a") is None
    off.close()
    assert cache_size(tmp_path / "p.duckdb") == 0 and len(call_rows(tmp_path / "p.duckdb")) == 1


def test_a_failed_flush_keeps_the_rows_for_the_next_one(tmp_path, monkeypatch):
    path = tmp_path / "p.duckdb"
    store = LLMStore(path, ["m"], flush_interval=60)
    store.put("a", "m", {"text": "x"})
    real = llm_cache.write_batch

    def broken(*args):
        raise OSError("disk full")

    monkeypatch.setattr(llm_cache, "write_batch", broken)
    with pytest.raises(OSError):
        store.flush()
    monkeypatch.setattr(llm_cache, "write_batch", real)
    store.close()
    assert cache_size(path) == 1
