"""rageval.models: one loader and one hash format for every shipped parameter file."""
from __future__ import annotations

import hashlib
import json
import re

import numpy as np
import pytest

from rageval import models
from rageval.errors import ConfigError

SHIPPED = sorted(p.stem for p in models.FOLDER.glob("*.json"))


def test_every_shipped_file_is_read_by_the_one_loader_and_named_in_rebuild():
    assert set(SHIPPED) == set(models.REBUILD)
    for name in SHIPPED:
        got = models.load(name)
        assert isinstance(got.meta, dict) and re.fullmatch(r"[0-9a-f]{10}", got.hash)
        npz = models.path(name, ".npz")
        if npz.is_file():
            assert got.arrays and all(a.dtype == np.float32 for a in got.arrays.values())
            assert got.hash == models.digest(npz.read_bytes(), got.raw)
        else:
            assert got.arrays == {} and got.hash == hashlib.sha256(got.raw).hexdigest()[:10]


def test_each_signature_names_the_loader_hash():
    from rageval.metrics.correctness import load_model
    from rageval.metrics.semantic import shipped_idf

    assert load_model()["hash"] == models.load("answer_correctness").hash
    assert shipped_idf()[1] == "table-" + models.load("wordpiece_idf").hash


def test_digest_joins_parts_with_a_nul():
    assert models.digest(b"a", "b") == hashlib.sha256(b"a\0b").hexdigest()[:10]
    assert models.digest(b"ab") != models.digest(b"a", b"b")


def test_bad_files_name_the_file_and_the_fix(tmp_path):
    with pytest.raises(ConfigError, match=r"missing\.json.*cannot be read.*train_correctness"):
        models.load("answer_correctness", meta_path=tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ConfigError, match="bad.json.*train_correctness"):
        models.load("answer_correctness", meta_path=tmp_path / "bad.json")
    npz, meta = tmp_path / "x.npz", tmp_path / "x.json"
    np.savez(npz, w=np.ones(3, dtype=np.float32))
    meta.write_text(json.dumps({"sha256": hashlib.sha256(npz.read_bytes()).hexdigest()}))
    assert models.load("x", arrays_path=npz, meta_path=meta).arrays["w"].shape == (3,)
    raw = npz.read_bytes()
    npz.write_bytes(raw[:-1] + bytes([raw[-1] ^ 1]))
    with pytest.raises(ConfigError, match="sha256|cannot be read"):
        models.load("x", arrays_path=npz, meta_path=meta)
