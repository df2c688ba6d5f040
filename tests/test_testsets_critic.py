"""The critic as a reviewer: content-free questions, questions that answer themselves, empty,
boilerplate or garbled references and unsupported answers are dropped with their reason; against
the scripted OpenAI-compatible server every bad candidate is caught, the good ones are kept, and a
shortfall (or a generation that keeps nothing) names the real causes."""
import json

import pytest

from rageval.config import TESTSET_KINDS, ChunkingConfig, TestsetConfig
from rageval.demo import DEMO_CORPUS
from rageval.ingest.corpus import ensure_chunks
from rageval.project import open_project
from rageval.store import runs as store
from rageval.testsets.content import question_problem, reference_problem
from rageval.testsets.generate import generate_set, outcome
from rageval.testsets.llm import Planner
from devtools import testset_responder
from devtools.projects import demo_project

#: the reason the critic must give for each scripted fault
CAUGHT_AS = {"pointer": "not_standalone", "unsupported": "unsupported", "content_free": "content_free",
             "self_answering": "self_answering", "garbled": "garbled_reference", "same": "near_duplicate"}


@pytest.mark.parametrize("question, answer, reason", [
    ("What can you tell me about no content?", "No content.", "content_free"),
    ("What is it?", "A volcano.", "content_free"),
    ("When did the Bayline canning factory open (1932)?", "1932", "self_answering"),
    ("Which harbour does A Short History of Kestrel Harbor describe?", "Kestrel Harbor", "self_answering"),
    ("When did the Bayline canning factory open?", "1932", None),
    ("How high is Mount Etna?", "About 3,357 metres.", None),
])
def test_question_checks(question, answer, reason):
    found = question_problem(question, answer)
    assert (found[0] if found else None) == reason


@pytest.mark.parametrize("reference, reason", [
    ("No content.", "empty_reference"),
    ("N/A", "empty_reference"),
    ("", "empty_reference"),
    ("This program is distributed WITHOUT ANY WARRANTY; see the GNU General Public License.", "boilerplate_reference"),
    ("51 Franklin Street, Fifth Floor, Boston, MA 02110-1301, USA", "boilerplate_reference"),
    ("verskille tussen l\u00c3aers", "garbled_reference"),
    ("The caf\u00c3\u00a9 opens at nine.", "garbled_reference"),
    ("The \ufffd\ufffd tent weighs 2 kg.", "garbled_reference"),
    ("The café opens at nine and its tent carries a 5-year warranty.", None),
    ("She said \u201cyes\u201d \u2014 it\u2019s fine.", None),
])
def test_reference_checks(reference, reason):
    found = reference_problem(reference)
    assert (found[0] if found else None) == reason


@pytest.fixture(scope="module")
def _home(tmp_path_factory):
    home = tmp_path_factory.mktemp("testsets-critic") / "home"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RAGEVAL_HOME", str(home))
        for name in ("mixed", "short", "hostile"):
            demo_project(name)
    return home


@pytest.fixture()
def project_of(_home, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(_home))
    return open_project


def _config(**kw):
    return TestsetConfig(**{"corpus": DEMO_CORPUS, "name": "gen", "n": 10, "generator": "openai:test-model",
                            "concurrency": 4, **kw})


def _plan(project, n):
    chunks = ensure_chunks(project, DEMO_CORPUS, ChunkingConfig())
    return chunks, Planner(chunks, TESTSET_KINDS, seed=0).slots(0, n)


def _key(chunk):
    return " ".join(chunk["text"].split()[:3])


def test_the_critic_catches_every_bad_scripted_candidate_and_keeps_the_good(project_of, llm_env):
    project = project_of("mixed")
    chunks, plan = _plan(project, 20)
    # one fault per answerable slot among the first ten, on distinct chunks; the rest are good
    faults, order = {}, ["content_free", "self_answering", "garbled", "unsupported", "pointer"]
    for slot in plan[:10]:
        key = _key(chunks[slot.chunks[0]])
        if slot.kind != "unanswerable" and key not in faults and order:
            faults[key] = order.pop(0)
    assert not order  # every fault was placed
    llm_env.script(responder=testset_responder.make(faults))
    result = generate_set(project, _config())
    faulted = {_key(chunks[s.chunks[0]]) for s in plan}
    by_fault = {}
    for c in result.kept + result.dropped:
        slot = int(c.id[1:])
        fault = faults.get(_key(chunks[plan[slot].chunks[0]])) if slot < len(plan) else None
        if c.kind == "unanswerable" and fault not in ("pointer", "content_free"):
            fault = None  # its reference is fixed ("The documents do not say."): an answer's fault does not reach it
        if fault:
            by_fault.setdefault(fault, []).append(c)
    assert set(by_fault) == set(faults.values()) and faulted
    for fault, cands in by_fault.items():
        for c in cands:  # every bad candidate is dropped, for the reason its fault calls for
            assert c.dropped == CAUGHT_AS[fault], (fault, c.question, c.reference, c.dropped, c.detail)
    assert len(result.kept) == 10
    for c in result.kept:
        assert c.question != "What can you tell me about no content?" and "\u00c3" not in c.reference


def test_a_shortfall_names_the_real_causes(project_of, llm_env):
    project = project_of("short")
    chunks, plan = _plan(project, 20)
    good = {_key(chunks[plan[0].chunks[0]])}  # one good chunk; every other answer is unsupported
    llm_env.script(responder=testset_responder.make({k: None for k in good}, default="unsupported"))
    result = generate_set(project, _config())
    message = outcome(result)
    assert 0 < len(result.kept) < 10 and result.asked == 20
    assert f"fewer than the 10 wanted: {result.drops['unsupported']} dropped as unsupported" in message
    assert "the 2 x n = 20 slots allowed were all asked" in message and "offered no more" not in message


def test_every_hostile_reply_keeps_nothing_exits_1_and_stores_nothing(project_of, llm_env, capsys):
    from rageval.cli import main

    project_of("hostile")
    llm_env.script(responder=testset_responder.make(default="content_free"))
    code = main(["qa", "generate", "--project", "hostile", "--corpus", DEMO_CORPUS, "--n", "4", "--name", "bad",
                 "--generator", "openai:test-model", "--json"])
    payload = json.loads(capsys.readouterr().out)
    assert code == 1 and payload["kept"] == 0
    assert payload["drops"] == {"content_free": 8}
    assert payload["message"].startswith("No question could be kept of 8 asked: 8 dropped as content-free")
    assert "bad" not in {s["name"] for s in store.qa_sets(open_project("hostile").db_path)}
