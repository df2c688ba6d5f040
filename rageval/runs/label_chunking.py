"""Whether a QA set's relevance labels are chunk ids of the chunking a run retrieves.

A chunk id is a hash of (document, chunking, ordinal): a set whose ``relevant_ids`` are chunks of
one chunking, run with another, would score recall@k, MRR and nDCG 0 on every item without
saying why. :func:`chunking_note` says it before the run starts.
"""
from __future__ import annotations

from rageval.config import RunConfig
from rageval.project import Project
from rageval.store import corpus as corpus_store
from rageval.store import runs as run_store


def chunking_note(project: Project, config: RunConfig) -> str | None:
    """A sentence when some of the QA set's relevant ids are chunks of a chunking other than the
    run's (naming it and the flags that match it), else None. Ids naming documents are not chunks
    and match at any chunking."""
    ids = {rid for item in run_store.qa_items(project.db_path, config.qa_set) for rid in (item.get("relevant") or {})}
    other = {sig: n for sig, n in corpus_store.chunkings_of(project.db_path, ids).items()
             if sig != config.chunking.signature()}
    if not other:
        return None
    sig, count = max(other.items(), key=lambda kv: kv[1])
    method, size, overlap = sig.split("-")
    return (f"{sum(other.values())} relevant id(s) of QA set {config.qa_set!r} are chunks of chunking {sig}"
            f"{' (and others)' if len(other) > 1 else ''}, not this run's {config.chunking.signature()}: "
            f"recall@k, MRR and nDCG cannot match them and score 0 for those items; to score them, run with "
            f"--chunking {method} --chunk-size {size} --chunk-overlap {overlap}")
