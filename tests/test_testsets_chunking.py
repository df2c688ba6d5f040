"""A generated set's relevant ids are chunks of the chunking its corpus was ingested with, so a run
with that chunking scores recall@k and MRR on matching ids, and a run with another says so."""
import json

import pytest

from rageval.cli import main
from rageval.config import ChunkingConfig
from rageval.store import corpus as corpus_store
from rageval.store import runs as store
from devtools.projects import small_project

CHUNKING = ["--chunking", "chars", "--chunk-size", "300", "--chunk-overlap", "40"]


@pytest.fixture()
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    return small_project(tmp_path, "gen")


def test_signature_round_trip():
    config = ChunkingConfig(method="chars", size=300, overlap=40)
    assert ChunkingConfig.from_signature(config.signature()) == config


def test_ingested_chunking_gives_the_ids_and_a_run_with_it_scores_them(project, tmp_path, capsys):
    assert main(["ingest", str(tmp_path / "docs"), "--project", "gen", "--corpus", "k", *CHUNKING, "--json"]) == 0
    assert corpus_store.corpus_chunking(project.db_path, "k") == "chars-300-40"
    ingested = {c["id"] for c in corpus_store.chunks(project.db_path, "k", "chars-300-40")}
    capsys.readouterr()
    assert main(["qa", "generate", "--project", "gen", "--corpus", "k", "--n", "4", "--name", "g", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert "|chunking:chars-300-40|" in out["signature"]
    items = store.qa_items(project.db_path, "g")
    assert len(items) == 4 and all(it["relevant"] and set(it["relevant"]) <= ingested for it in items)
    assert out["chunking"] == "chars-300-40"
    # a flag replaces that field of the corpus's chunking only
    assert main(["qa", "generate", "--project", "gen", "--corpus", "k", "--n", "2", "--name", "g6", "--chunk-size",
                 "600", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["chunking"] == "chars-600-40"

    assert main(["run", "--project", "gen", "--corpus", "k", "--qa", "g", "--metrics", "recall@5,mrr", "--top-k", "5",
                 *CHUNKING, "--json"]) == 0
    captured = capsys.readouterr()
    run = json.loads(captured.out)
    assert run["notes"] == [] and "NOTE" not in captured.err
    scores = {(s["item_id"], s["metric"]): s["value"] for s in store.scores(project.db_path, run["run_id"])}
    relevant = {it["id"]: set(it["relevant"]) for it in items}
    hits = 0
    for answer in store.answers(project.db_path, run["run_id"]):
        ids = [cid for cid, _ in answer["retrieved"]]
        assert set(ids) <= ingested  # the run retrieved chunks of the same chunking
        found = set(ids[:5]) & relevant[answer["item_id"]]
        hits += bool(found)
        assert scores[(answer["item_id"], "recall@5")] == pytest.approx(len(found) / len(relevant[answer["item_id"]]))
    assert hits > 0  # the ids match: template questions echo their sentence, so some are found

    # a run with another chunking cannot match the labels: it says so, naming the flags that would
    assert main(["run", "--project", "gen", "--corpus", "k", "--qa", "g", "--metrics", "recall@5,mrr", "--json"]) == 0
    captured = capsys.readouterr()
    note = json.loads(captured.out)["notes"][0]
    assert (
        f"{len(set().union(*relevant.values()))} relevant id(s)" in note
        and "chunking chars-300-40" in note
        and "recursive-1024-128" in note
    )
    assert "--chunking chars --chunk-size 300 --chunk-overlap 40" in note and note in captured.err


def test_explicit_flags_still_choose_the_chunking(project, capsys):
    assert main(["qa", "generate", "--project", "gen", "--corpus", "c", "--n", "2", "--name", "g", "--chunk-size",
                 "500", "--json"]) == 0
    assert "|chunking:recursive-500-128|" in json.loads(capsys.readouterr().out)["signature"]
    ids = {c["id"] for c in corpus_store.chunks(project.db_path, "c", "recursive-500-128")}
    assert all(set(it["relevant"]) <= ids for it in store.qa_items(project.db_path, "g"))


ITALIAN = """Regolamento del negozio

Il negozio è stato aperto nel 1998 nel centro di Milano da una famiglia di artigiani.
Il rimborso è previsto entro 14 giorni dalla data di acquisto per tutti i clienti registrati.
La garanzia è un servizio offerto dal negozio a chi conserva lo scontrino originale.
Il corso di ceramica dura tre settimane e costa 120 euro per ogni partecipante adulto.
La consegna a domicilio è gratuita per gli ordini superiori a 50 euro in tutta la provincia.
Giuseppe Rossi dirige il laboratorio di restauro e segue personalmente ogni lavoro dei clienti.
Circa il 30% delle vendite annuali avviene nel mese di dicembre, prima delle feste di Natale.
"""


def test_an_italian_corpus_gets_italian_questions_end_to_end(project, tmp_path, capsys):
    from rageval.testsets.template import options
    from rageval.text.lang import guess_language

    folder = tmp_path / "it"
    folder.mkdir()
    (folder / "regolamento.txt").write_text(ITALIAN, encoding="utf-8")
    assert main(["ingest", str(folder), "--project", "gen", "--corpus", "negozio", "--json"]) == 0
    capsys.readouterr()
    assert main(["qa", "generate", "--project", "gen", "--corpus", "negozio", "--n", "5", "--name", "it",
                 "--json"]) == 0  # no --language: read from the chunks
    assert json.loads(capsys.readouterr().out)["kept"] == 5
    items = store.qa_items(project.db_path, "it")
    sentences = {s.strip() for s in ITALIAN.splitlines() if s.strip()}
    for it in items:
        assert it["references"][0] in sentences and guess_language(it["question"]) == "it"
        assert it["kind"] in ("template:number", "template:date", "template:definition")  # names: English only
        assert any(w in it["question"] for w in ("quant", "quando", "Che cos'è", "quale percentuale")), it["question"]
    questions = {it["question"] for it in items}
    assert "Il negozio è stato aperto quando nel centro di Milano da una famiglia di artigiani?" in questions
    assert (
        "Il rimborso è previsto entro quanti giorni dalla data di acquisto per tutti i clienti registrati?" in questions
    )
    # names are English only: the sentence naming Giuseppe Rossi offers no question in Italian
    assert options("Giuseppe Rossi dirige il laboratorio di restauro e segue personalmente ogni lavoro dei clienti.",
                   "it") == []
    assert not any(q.lower().startswith("chi ") for q in questions)

    assert main(["run", "--project", "gen", "--corpus", "negozio", "--qa", "it", "--metrics", "recall@5,mrr",
                 "--json"]) == 0
    scores = {s["metric"]: s for s in json.loads(capsys.readouterr().out)["scores"]}
    assert scores["recall@5"]["scored"] == 5 and scores["recall@5"]["mean"] == 1.0  # one chunk: always found


def test_a_corpus_ingested_before_the_chunking_was_recorded_reads_its_one_stored_chunking(project):
    from rageval.ingest.corpus import corpus_chunking, ensure_chunks
    from rageval.store.db import connect

    with connect(project.db_path) as con:
        con.execute("UPDATE corpora SET chunking = NULL WHERE name = 'c'")
    assert corpus_store.corpus_chunking(project.db_path, "c") == "recursive-1024-128"  # the one stored
    ensure_chunks(project, "c", ChunkingConfig(method="chars", size=300, overlap=40))  # a run's other chunking
    assert corpus_store.corpus_chunking(project.db_path, "c") is None  # two stored: nothing says which
    assert corpus_chunking(project, "c") == ChunkingConfig()  # the default then
