"""Generated QA sets, offline: template questions, the critic, storage, export and re-import, and a
run on a generated set whose retrieval metrics come from the stored relevant chunk ids."""
import json

import numpy as np
import pytest

from rageval.config import TESTSET_KINDS, RunConfig, TestsetConfig
from rageval.errors import ConfigError, InputError
from rageval.ingest.qa import import_qa
from rageval.prompts.schemas import REPLIES
from rageval.runs.pipeline import execute, start_run
from rageval.store import runs as store
from rageval.testsets import critic, export
from rageval.testsets.generate import generate_set
from rageval.testsets.items import Candidate
from rageval.testsets.template import options, template_candidates
from tests.fakes import BowEmbedder
from devtools.projects import DOCS, small_project


@pytest.mark.parametrize(
    "sentence, expected",
    [
        (
            "Il rimborso è previsto entro 7 giorni per tutti i clienti del negozio.",
            ("number", "Il rimborso è previsto entro quanti giorni per tutti i clienti del negozio?"),
        ),
        (
            "La sede è stata aperta nel 1998 nel centro di Milano.",
            ("date", "La sede è stata aperta quando nel centro di Milano?"),
        ),
        ("La garanzia è un servizio offerto dal negozio ai clienti.", ("definition", "Che cos'è la garanzia?")),
        (
            "Il corso dura tre settimane e costa poco per gli studenti.",
            ("number", "Il corso dura quante settimane e costa poco per gli studenti?"),
        ),
    ],
)
def test_italian_template_question_of_a_sentence(sentence, expected):
    assert expected in options(sentence, "it")


def test_template_candidates_are_seeded_and_carry_their_sentence_and_chunk():
    chunks = [{"id": name, "text": text} for name, text in DOCS.items()]
    first = template_candidates(chunks, want=5, seed=3)
    assert [c.question for c in first] == [c.question for c in template_candidates(chunks, want=5, seed=3)]
    for c in first:
        chunk = next(ch for ch in chunks if ch["id"] == c.chunk_ids[0])
        assert c.reference == c.sentences[0] and c.reference in chunk["text"]
        assert c.kind.startswith("template:")


@pytest.mark.parametrize("question, sentence, stands_alone", [
    ("When did the Tokaido Shinkansen open?", None, True),
    ("According to the passage, when did the line open?", None, False),
    ("What does the text say about the fee?", None, False),
    ("Who is the author of the report?", None, False),
    ("Secondo il testo, quanto costa il canone?", None, False),
    ("Quanto costa il canone nel documento?", None, False),
    ("Stands about how many metres high?", "It stands about 3,357 metres high.", False),
    ("Open?", None, False),
])
def test_standalone_check(question, sentence, stands_alone):
    assert (critic.standalone_problem(question, source_sentence=sentence) is None) == stands_alone


def test_near_duplicate_uses_the_stated_cosine_threshold():
    v = np.array([[1.0, 0.0], [0.95, np.sqrt(1 - 0.95 ** 2)], [0.8, 0.6]], dtype=np.float32)
    assert critic.near_duplicate(v, [0], 1) == (0, pytest.approx(0.95))
    assert critic.near_duplicate(v, [0], 2) is None  # cosine 0.8 < 0.90


def test_review_drops_with_reasons_in_plan_order():
    text = {"a": "The fee is 20 EUR per night for every guest. Breakfast is served until ten."}
    def mk(i, q, ref):
        return Candidate(id=i, question=q, reference=ref, kind="single_fact", chunk_ids=("a",), source_chunks=("a",))

    cands = [mk("1", "How much is the fee per night?", "The fee is 20 EUR per night for every guest."),
             mk("2", "How much is the fee per night?", "The fee is 20 EUR per night for every guest."),
             mk("3", "According to the text, when is breakfast served?", "Breakfast is served until ten."),
             mk("4", "How much is the nightly fee?", "The fee is 30 EUR per night for every guest."),
             mk("5", "Until when is breakfast served?", "Breakfast is served until ten.")]
    out = critic.review(cands, text, BowEmbedder(), want=5)
    assert [(c.id, c.dropped) for c in out] == [
        ("1", None), ("2", "near_duplicate"), ("3", "not_standalone"), ("4", "unsupported"), ("5", None)]
    # it stops once `want` are kept
    assert [c.id for c in critic.review(cands, text, BowEmbedder(), want=1)] == ["1"]


def test_prompt_schemas_cover_every_kind():
    assert {f"testset_{k}" for k in TESTSET_KINDS} <= set(REPLIES)


def test_config_rejects_bad_values():
    with pytest.raises(ConfigError, match="unknown question kind"):
        TestsetConfig(corpus="c", name="g", kinds=("riddles",))
    with pytest.raises(ConfigError, match="n=0"):
        TestsetConfig(corpus="c", name="g", n=0)
    with pytest.raises(ConfigError, match="language"):
        TestsetConfig(corpus="c", name="g", language="fr")


@pytest.fixture()
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    return small_project(tmp_path, "gen")


def test_offline_generation_stores_a_set_a_run_scores_by_its_chunk_ids(project):
    result = generate_set(project, TestsetConfig(corpus="c", name="gen", n=4, seed=1))
    assert len(result.kept) == 4 and result.asked == 4 + sum(result.drops.values())
    items = store.qa_items(project.db_path, "gen")
    chunk_ids = {c["id"] for c in store_chunks(project)}
    assert len(items) == 4
    for it in items:
        assert it["references"] and it["references"][0] in it["sources"]["sentences"]
        assert it["relevant"] and set(it["relevant"]) <= chunk_ids
        assert it["kind"].startswith("template:") and it["status"] == "new"
    generator, record = store.qa_set_generation(project.db_path, "gen")
    assert generator == "template" and record["kept"] == 4 and record["judge"] == "heuristic"
    assert record["signature"].startswith("testset|gen:template|judge:heuristic|dup:0.9|seed:1|")

    run_id = start_run(project, RunConfig(corpus="c", qa_set="gen", metrics=("recall@2", "mrr"), top_k=2))
    assert execute(project, run_id).done == 4
    retrieved = {a["item_id"]: [cid for cid, _ in a["retrieved"]] for a in store.answers(project.db_path, run_id)}
    relevant = {it["id"]: set(it["relevant"]) for it in items}
    scores = {(s["item_id"], s["metric"]): s for s in store.scores(project.db_path, run_id)}
    for item_id, ids in retrieved.items():
        rank = next((r for r, cid in enumerate(ids, 1) if cid in relevant[item_id]), None)
        assert scores[(item_id, "mrr")]["value"] == pytest.approx(1 / rank if rank else 0.0)
        assert scores[(item_id, "recall@2")]["value"] == pytest.approx(len(set(ids[:2]) & relevant[item_id])
                                                                        / len(relevant[item_id]))


def store_chunks(project):
    from rageval.config import ChunkingConfig
    from rageval.store.corpus import chunks

    return chunks(project.db_path, "c", ChunkingConfig().signature())


def test_unknown_corpus_is_an_input_error(project):
    with pytest.raises(InputError, match="no documents"):
        generate_set(project, TestsetConfig(corpus="nope", name="g", n=2))


def test_export_and_reimport_round_trip_and_dropped_rows_leave_runs(project):
    generate_set(project, TestsetConfig(corpus="c", name="gen", n=3, seed=2))
    items = store.qa_items(project.db_path, "gen")
    items[0] = {**items[0], "status": "dropped"}
    items[1] = {**items[1], "status": "accepted", "question": "An edited question about the documents?"}
    store.save_qa_set(project.db_path, "gen", "reviewed", items)
    assert [it["id"] for it in store.qa_items(project.db_path, "gen")] == [items[1]["id"], items[2]["id"]]
    everything = store.qa_items(project.db_path, "gen", include_dropped=True)
    assert len(everything) == 3
    for fmt, data in (("csv", export.to_csv(everything)), ("jsonl", export.to_jsonl(everything))):
        result = import_qa(project, f"back.{fmt}", data.encode(), name=f"back_{fmt}")
        assert not result.errors and not result.notes, (result.errors, result.notes)
        back = store.qa_items(project.db_path, f"back_{fmt}", include_dropped=True)
        def strip(rows):
            keys = ("id", "question", "references", "relevant", "kind", "status", "sources")
            return [{k: r[k] for k in keys} for r in rows]

        assert strip(back) == strip(everything)


def test_a_bad_status_rejects_its_row_with_a_reason(project):
    rows = [{"question": "Q one here?", "status": "maybe"}, {"question": "Q two here?", "status": "accepted"}]
    result = import_qa(project, "s.jsonl", "".join(json.dumps(r) + "\n" for r in rows).encode(), name="s")
    assert [e.row for e in result.errors] == [1] and "status 'maybe'" in result.errors[0].reason
    assert [it["status"] for it in result.items] == ["accepted"]


def test_cli_generate_then_run_reports_retrieval_from_the_generated_ids(project, capsys):
    from rageval.cli import main

    assert main(["qa", "generate", "--project", "gen", "--corpus", "c", "--n", "3", "--name", "g", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["kept"] == 3 and out["asked"] >= 3 and out["signature"].startswith("testset|gen:template")
    assert main(["qa", "generate", "--project", "gen", "--corpus", "c", "--name", "g2", "--generator",
                 "openai:gpt-4o-mini", "--dry-run", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["calls"] > 0  # an estimate; nothing generated
    assert "g2" not in {s["name"] for s in store.qa_sets(project.db_path)}
    assert main(["qa", "generate", "--project", "gen", "--corpus", "nope", "--name", "g3"]) == 1
    assert main(["qa", "generate", "--project", "gen", "--corpus", "c", "--name", "g3", "--kinds", "riddles"]) == 2
    capsys.readouterr()
    assert main(["run", "--project", "gen", "--corpus", "c", "--qa", "g", "--metrics", "recall@5,mrr", "--json"]) == 0
    run = json.loads(capsys.readouterr().out)
    scores = {s["metric"]: s for s in run["scores"]}
    assert scores["recall@5"]["scored"] == scores["mrr"]["scored"] == 3  # every item has relevant ids
    assert 0 < scores["mrr"]["mean"] <= scores["recall@5"]["mean"] <= 1


def test_review_edits_and_drops_are_stored_and_only_accepted_rows_are_run(project):
    from rageval.views import qa_sets as view

    config = view.generation_config("c", "reviewed", 3)
    result = view.generate(project, config)
    assert store.qa_items(project.db_path, "reviewed") == []  # nothing stored before the review
    assert "Relevant ids are chunks of chunking recursive-1024-128" in view.generation_summary(result)
    rows = view.review_rows(project, result)
    assert all(r["keep"] and r["source"].split(": ", 1)[1] for r in rows)  # the source chunk beside each row
    rows[0]["question"] = "Which city did the 1669 eruption partly destroy?"
    rows[1]["keep"] = False
    rows[2]["reference"] = "  "  # an emptied reference cannot be used: the row is dropped
    assert view.save_reviewed(project, config, result, rows) == 1
    kept = store.qa_items(project.db_path, "reviewed")
    assert [(it["question"], it["status"]) for it in kept] == [(rows[0]["question"], "accepted")]
    every = store.qa_items(project.db_path, "reviewed", include_dropped=True)
    assert [it["status"] for it in every] == ["accepted", "dropped", "dropped"]
    assert "dropped" in view.export_csv(project, "reviewed") and view.export_jsonl(project, "reviewed").count("\n") == 3


def test_nothing_kept_says_why_exits_non_zero_and_stores_nothing(project, capsys):
    from rageval.cli import main
    from rageval.ingest.corpus import ingest

    ingest(project, "one", files=[("one.txt", b"Hello")])
    code = main(["qa", "generate", "--project", "gen", "--corpus", "one", "--n", "3", "--name", "none"])
    out = capsys.readouterr()
    assert code == 1, out
    assert "no question could be kept" in (out.out + out.err).lower()
    assert "sentence" in (out.out + out.err)  # why: how many sentences were read and offered nothing
    assert "none" not in {s["name"] for s in store.qa_sets(project.db_path)}
    assert main(["qa", "generate", "--project", "gen", "--corpus", "one", "--n", "3", "--name", "none", "--json"]) == 1
    payload = json.loads(capsys.readouterr().out)
    assert payload["kept"] == 0 and "no question could be kept" in payload["message"].lower()
