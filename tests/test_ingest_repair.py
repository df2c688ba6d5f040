"""Clean text at ingest: mojibake in a PDF made here is repaired by ftfy and counted per document,
a document whose text still looks garbled is flagged (stored, with the flag shown), and good text
is left alone (curly quotes, HTML entities)."""
import json

import pytest
from fpdf import FPDF

from rageval.ingest.corpus import ingest, repair_note
from rageval.ingest.loaders import load_file
from rageval.project import open_project
from rageval.store.corpus import documents
from rageval.text.repair import GARBLED_SHARE, garbled_share, repair_text

# UTF-8 text decoded as Windows-1252 / Latin-1: what a PDF with a bad font encoding gives back
MOJIBAKE = ("The caf\u00c3\u00a9 on the corner serves cr\u00c3\u00a8me br\u00c3\u00bbl\u00c3\u00a9e every day. "
            "Its owner, Jos\u00c3\u00a9, opened it in 1998 and still bakes the bread himself.")
CLEAN = "The café on the corner serves crème brûlée every day. Its owner, José, opened it in 1998"


def _pdf(*paragraphs: str) -> bytes:
    pdf = FPDF()
    pdf.set_font("Helvetica", size=11)
    pdf.add_page()
    for text in paragraphs:
        pdf.multi_cell(0, 6, text)
        pdf.ln(3)
    return bytes(pdf.output())


def test_a_pdf_with_mojibake_is_repaired_and_the_count_is_stored(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    doc = load_file("menu.pdf", _pdf(MOJIBAKE))
    assert CLEAN in " ".join(doc.text.split()) and "\u00c3" not in doc.text
    assert doc.repaired >= 5 and doc.garbled < GARBLED_SHARE
    project = open_project("repair")
    report = ingest(project, "c", files=[("menu.pdf", _pdf(MOJIBAKE))])
    (row,) = report.documents
    assert row["repaired"] == doc.repaired and not row["looks_garbled"]
    (stored,) = documents(project.db_path, "c")
    assert stored["repaired"] == doc.repaired
    assert repair_note(stored).startswith(f"{doc.repaired} character(s) of mojibake or broken Unicode repaired")


def test_a_document_that_stays_garbled_is_flagged_on_the_documents_view(tmp_path, monkeypatch, capsys):
    from rageval.cli import main
    from rageval.views.documents import text_repairs

    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    # mojibake ftfy cannot undo (a lost byte: "lÃaers"), as the shared-mime-info PDF gives
    garbled = " ".join(["verskille tussen l\u00c3aers en l\u00c3aergidse"] * 30)
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "af.pdf").write_bytes(_pdf(garbled))
    (folder / "menu.pdf").write_bytes(_pdf(MOJIBAKE))
    assert main(["ingest", str(folder), "--project", "flag", "--corpus", "c", "--json"]) == 0
    report = {d["name"]: d for d in json.loads(capsys.readouterr().out)["documents"]}
    assert report["af.pdf"]["looks_garbled"] and not report["menu.pdf"]["looks_garbled"]
    rows = {r["name"]: r for r in text_repairs(open_project("flag"), "c")}
    assert rows["af.pdf"]["garbled"] == "yes" and "still looks garbled" in rows["af.pdf"]["note"]
    assert rows["menu.pdf"]["garbled"] == "no" and "repaired" in rows["menu.pdf"]["note"]
    assert main(["ingest", str(folder / "af.pdf"), "--project", "flag2", "--corpus", "c"]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("af.pdf"))
    assert "text still looks garbled" in line


@pytest.mark.parametrize("text", [
    "She said \u201cyes\u201d and left \u2014 it\u2019s fine.",   # curly quotes and dashes are no damage
    "Write &lt;tag&gt; to escape a tag in HTML.",                 # entities stay as written
    "Plain ASCII text with numbers 1, 2 and 3.",
    "Perch\u00e9 il caff\u00e8 \u00e8 buono.",                     # real accents
])
def test_good_text_is_left_alone(text):
    fixed = repair_text(text)
    assert fixed.text == text and fixed.repaired == 0 and fixed.garbled == garbled_share(text) == 0.0


def test_the_documents_page_shows_the_repair_count_and_the_garbled_flag(tmp_path, monkeypatch):
    from tests.test_app import app, no_failure, texts, unescape

    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RAGEVAL_NO_AUTODEMO", "1")
    garbled = " ".join(["verskille tussen l\u00c3aers en l\u00c3aergidse"] * 30)
    ingest(open_project("page"), "c", files=[("menu.pdf", _pdf(MOJIBAKE)), ("af.pdf", _pdf(garbled))])
    repaired = load_file("menu.pdf", _pdf(MOJIBAKE)).repaired
    at = app("page", "pages/documents.py")
    no_failure(at)
    shown = unescape(texts(at))
    assert f"menu.pdf: {repaired} character(s) of mojibake or broken Unicode repaired" in shown
    assert any("af.pdf: text still looks garbled" in unescape(w.value) for w in at.warning)
