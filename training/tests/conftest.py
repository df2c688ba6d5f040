"""The learned verifiers' tests (training only, not part of the product or of the CI suite): run them
where the cross-encoder's parameters are restored, ``python -m pytest -n 0 training/tests``."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def xenc_verifier():
    """The learned NLI cross-encoder of ``training/`` (no part of the product) over the local MiniLM
    embedder (one per session); skipped where its parameters, which left the package, are not restored."""
    from rageval.embed.cache import make_embedder
    from training import claim_xenc
    from training.claim_verifiers import shipped_verifier

    if not claim_xenc.PARAMS_PATH.is_file():
        pytest.skip("restore with: git show def967a:rageval/models/claim_xenc.npz > training/models/claim_xenc.npz")

    return shipped_verifier(make_embedder("local"))
