"""Loaders: PDFs made here with fpdf2, text in several encodings, and every kind of bad file."""
from __future__ import annotations

import codecs
import hashlib
from pathlib import Path

import pytest
from fpdf import FPDF
from hypothesis import given, settings
from hypothesis import strategies as st

from rageval.ingest.loaders import (
    REASON_BINARY,
    REASON_EMPTY,
    REASON_ENCRYPTED,
    REASON_NO_TEXT,
    REASON_UNPRINTABLE,
    Document,
    IngestProblem,
    load_file,
    load_path,
    load_paths,
    normalize_text,
)
from rageval.ingest.pdf_layout import reading_regions

RATES = [("City", "Lodging", "Meals"), ("Oslo", "180 EUR", "65 EUR"), ("Lyon", "140 EUR", "50 EUR")]


def new_pdf() -> FPDF:
    pdf = FPDF()
    pdf.set_font("Helvetica", size=11)
    return pdf


def table_pdf() -> bytes:
    """Two pages: an intro paragraph, a 3x3 ruled table and a closing line; then page two."""
    pdf = new_pdf()
    pdf.add_page()
    pdf.multi_cell(0, 6, "Travel rates apply to every trip booked after March 2025.")
    pdf.ln(4)
    with pdf.table() as table:
        for cells in RATES:
            row = table.row()
            for cell in cells:
                row.cell(cell)
    pdf.ln(4)
    pdf.multi_cell(0, 6, "Rates are reviewed every January.")
    pdf.add_page()
    pdf.multi_cell(0, 6, "Claims must be filed within thirty days.")
    return bytes(pdf.output())


def two_column_pdf() -> bytes:
    pdf = new_pdf()
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 14)
    pdf.cell(0, 10, "Field Notes From The Northern Coast Survey", align="C")
    pdf.ln(14)
    pdf.set_font("Helvetica", size=10)
    left = " ".join(f"Left{i} rivers run from the hills to the bay." for i in range(8))
    right = " ".join(f"Right{i} winds push the dunes slowly inland." for i in range(8))
    y = pdf.get_y()
    pdf.set_xy(10, y)
    pdf.multi_cell(90, 5, left)
    pdf.set_xy(110, y)
    pdf.multi_cell(90, 5, right)
    return bytes(pdf.output())


def one_page_pdf(text: str, **encryption) -> bytes:
    pdf = new_pdf()
    if encryption:
        pdf.set_encryption(**encryption)
    pdf.add_page()
    pdf.multi_cell(0, 6, text)
    return bytes(pdf.output())


def image_only_pdf() -> bytes:
    from PIL import Image

    pdf = new_pdf()
    pdf.add_page()
    pdf.rect(20, 20, 60, 40, style="F")
    pdf.image(Image.new("RGB", (32, 32), "navy"), x=100, y=20, w=40)
    return bytes(pdf.output())


def loaded(result) -> Document:
    assert isinstance(result, Document), result
    return result


def failed(result) -> IngestProblem:
    assert isinstance(result, IngestProblem), result
    return result


# --- PDFs ------------------------------------------------------------------------------------

def test_pdf_pages_and_table_rows():
    data = table_pdf()
    doc = loaded(load_file("rates.pdf", data))
    assert doc.kind == "pdf" and doc.name == "rates.pdf" and doc.size_bytes == len(data)
    assert [p.number for p in doc.pages] == [1, 2]
    first, second = doc.pages[0].text, doc.pages[1].text
    lines = first.splitlines()
    assert "City | Lodging | Meals" in lines
    assert "Oslo | 180 EUR | 65 EUR" in lines
    assert "Lyon | 140 EUR | 50 EUR" in lines
    assert doc.text.count("Oslo") == 1 and doc.text.count("180 EUR") == 1  # not duplicated
    assert first.index("Travel rates") < first.index("City |") < first.index("reviewed every")
    assert second == "Claims must be filed within thirty days."
    offset = doc.text.index("Claims")
    assert doc.page_offsets == (0, len(first) + 2)
    assert doc.page_at(offset) == 2 and doc.page_at(doc.text.index("Lyon")) == 1


def test_two_column_pdf_reads_left_column_first():
    doc = loaded(load_file("survey.pdf", two_column_pdf()))
    text = doc.text
    assert text.startswith("Field Notes From The Northern Coast Survey")
    left = [text.index(f"Left{i}") for i in range(8)]
    right = [text.index(f"Right{i}") for i in range(8)]
    assert left == sorted(left) and right == sorted(right)
    assert max(left) < min(right)


def test_single_column_pdf_keeps_line_order_and_paragraphs():
    pdf = new_pdf()
    pdf.add_page()
    pdf.multi_cell(0, 6, " ".join(f"word{i}" for i in range(120)))
    pdf.ln(8)
    pdf.multi_cell(0, 6, "A second paragraph.")
    doc = loaded(load_file("plain.pdf", bytes(pdf.output())))
    words = doc.text.split()
    assert words[:120] == [f"word{i}" for i in range(120)]
    assert doc.text.endswith("\n\nA second paragraph.")


def test_a_frame_around_the_text_is_not_a_table():
    pdf = new_pdf()
    pdf.add_page()
    pdf.rect(10, 10, 190, 120)
    pdf.set_xy(15, 15)
    pdf.multi_cell(180, 6, "First framed line of running text that wraps onto a second line "
                           "because it is long enough to need one.")
    pdf.ln(8)
    pdf.set_x(15)
    pdf.multi_cell(180, 6, "A second framed paragraph.")
    doc = loaded(load_file("framed.pdf", bytes(pdf.output())))
    assert " | " not in doc.text
    assert doc.text.endswith("\n\nA second framed paragraph.")


def test_form_layout_is_not_mistaken_for_two_columns():
    # short labels at the left margin, values from the middle: one region, read row by row
    words = []
    for row in range(10):
        top = 50 + 15 * row
        words.append({"x0": 30, "x1": 70, "top": top, "bottom": top + 10})
        words.append({"x0": 330, "x1": 360, "top": top, "bottom": top + 10})
    assert reading_regions(words, (0, 0, 595, 842)) == [(0, 0, 595, 842)]


def test_line_end_hyphens_are_joined():
    pdf = new_pdf()
    pdf.add_page()
    pdf.multi_cell(0, 6, "The regional infor-\nmation office opens at nine.")
    doc = loaded(load_file("hyphen.pdf", bytes(pdf.output())))
    assert "regional information office" in doc.text


def test_text_drawn_twice_in_place_is_read_once():
    pdf = new_pdf()
    pdf.add_page()
    for _ in range(2):  # how some generators fake bold type
        pdf.text(20, 30, "Heavy heading")
    pdf.text(20, 36, "Body line")
    doc = loaded(load_file("bold.pdf", bytes(pdf.output())))
    assert doc.text == "Heavy heading\nBody line"


def test_encrypted_pdf_is_reported():
    data = one_page_pdf("secret figures", owner_password="owner", user_password="reader")
    error = failed(load_file("locked.pdf", data))
    assert error.reason == REASON_ENCRYPTED
    assert error.name == "locked.pdf" and error.doc_id == hashlib.sha256(data).hexdigest()


def test_pdf_with_only_an_owner_password_still_loads():
    doc = loaded(load_file("owner.pdf", one_page_pdf("open to read", owner_password="owner")))
    assert doc.text == "open to read"


def test_image_only_pdf_is_reported():
    assert failed(load_file("scan.pdf", image_only_pdf())).reason == REASON_NO_TEXT


@pytest.mark.parametrize(
    ("data", "detail"),
    [
        (table_pdf()[:400], "unexpected end of file"),
        (table_pdf()[:-300], "not a readable PDF"),
        (b"%PDF-1.7\n" + bytes(range(256)) * 4, "not a readable PDF"),
        (b"PK\x03\x04 this is really a zip file", "does not start with a PDF header"),
    ],
)
def test_corrupt_pdf_is_reported(data, detail):
    error = failed(load_file("broken.pdf", data))
    assert error.reason.startswith("not a readable PDF: ")
    assert detail in error.reason


# --- text ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["empty.txt", "empty.pdf", "empty.md"])
def test_empty_file(name):
    assert failed(load_file(name, b"")).reason == REASON_EMPTY


def test_whitespace_only_text_is_empty():
    assert failed(load_file("blank.txt", b" \r\n\t\n  \n")).reason == REASON_EMPTY


def test_binary_txt_is_rejected():
    png_like = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))
    assert failed(load_file("image.txt", png_like)).reason == REASON_BINARY
    controls = bytes([1, 2, 3, 4, 5, 6, 7, 8, 14, 15, 16, 17]) * 20 + b"ok"
    assert failed(load_file("noise.txt", controls)).reason == REASON_UNPRINTABLE


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ("Caf\u00e9 cr\u00e8me \u00e0 Z\u00fcrich".encode("latin-1"), "Caf\u00e9 cr\u00e8me \u00e0 Z\u00fcrich"),
        ("\u201cquoted\u201d \u20ac5".encode("cp1252"), "\u201cquoted\u201d \u20ac5"),
        ("na\u00efve \u65e5\u672c".encode("utf-8"), "na\u00efve \u65e5\u672c"),
        (codecs.BOM_UTF8 + "bom \u00e9".encode("utf-8"), "bom \u00e9"),
        ("utf16 \u00e9 \u65e5".encode("utf-16"), "utf16 \u00e9 \u65e5"),
        (codecs.BOM_UTF16_BE + "big end \u00e9".encode("utf-16-be"), "big end \u00e9"),
        ("no bom here".encode("utf-16-le"), "no bom here"),
    ],
    ids=["latin-1", "cp1252", "utf-8", "utf-8-bom", "utf-16", "utf-16-be", "utf-16-no-bom"],
)
def test_text_encodings(data, expected):
    doc = loaded(load_file("note.txt", data))
    assert doc.text == expected
    assert doc.kind == "txt" and [p.number for p in doc.pages] == [1]


def test_markdown_kinds():
    body = b"# Title\n\nSome *emphasis* here.\n"
    assert loaded(load_file("notes.md", body)).kind == "md"
    doc = loaded(load_file("NOTES.MARKDOWN", body))
    assert doc.kind == "md" and doc.text == "# Title\n\nSome *emphasis* here."


def test_normalisation():
    raw = "Cafe\u0301  \r\nline two\t \r\n\r\n\r\n\r\nnew paragraph   \n"
    assert normalize_text(raw) == "Caf\u00e9\nline two\n\nnew paragraph"
    doc = loaded(load_file("n.txt", raw.encode("utf-8")))
    assert doc.text == "Caf\u00e9\nline two\n\nnew paragraph"


def test_form_feeds_split_text_into_pages():
    doc = loaded(load_file("report.txt", b"page one\fpage two\f"))
    assert [(p.number, p.text) for p in doc.pages] == [(1, "page one"), (2, "page two")]
    assert doc.page_at(doc.text.index("two")) == 2


def test_unsupported_extension():
    error = failed(load_file("report.docx", b"PK\x03\x04"))
    assert error.reason == "unsupported file type .docx; use PDF, TXT or MD"
    assert failed(load_file("README", b"hi")).reason == "file has no extension; use PDF, TXT or MD"


def test_same_bytes_same_id():
    data = "identical content".encode()
    a, b = loaded(load_file("a.txt", data)), loaded(load_file("b.txt", data))
    assert a.id == b.id == hashlib.sha256(data).hexdigest()
    assert loaded(load_file("c.txt", data + b"!")).id != a.id
    pdf_bytes = table_pdf()
    assert loaded(load_file("x.pdf", pdf_bytes)).id == loaded(load_file("y.pdf", pdf_bytes)).id


# --- paths -----------------------------------------------------------------------------------

def write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_load_paths_expands_folders(tmp_path):
    folder = tmp_path / "docs"
    write(folder / "b_rates.pdf", table_pdf())
    write(folder / "a_notes.txt", b"plain notes")
    write(folder / "sub" / "guide.md", b"# Guide")
    write(folder / "broken.pdf", b"%PDF-1.4\n garbage")
    write(folder / "slides.docx", b"PK")          # skipped silently inside a folder
    write(folder / ".hidden.txt", b"secret")      # hidden: skipped
    write(folder / ".git" / "x.txt", b"object")   # hidden folder: skipped
    explicit = write(tmp_path / "memo.docx", b"PK")
    results = load_paths([folder, explicit, folder / "a_notes.txt"])
    assert [r.name for r in results] == ["a_notes.txt", "b_rates.pdf", "broken.pdf", "guide.md",
                                         "memo.docx"]
    docs = [r for r in results if isinstance(r, Document)]
    errors = [r for r in results if isinstance(r, IngestProblem)]
    assert [d.name for d in docs] == ["a_notes.txt", "b_rates.pdf", "guide.md"]
    assert [(e.name, e.reason.split(":")[0]) for e in errors] == [
        ("broken.pdf", "not a readable PDF"),
        ("memo.docx", "unsupported file type .docx; use PDF, TXT or MD"),
    ]


def test_load_path_errors(tmp_path):
    missing = failed(load_path(tmp_path / "nowhere.txt"))
    assert missing.reason.startswith("file not found") and missing.doc_id is None
    missing_folder = failed(load_paths([tmp_path / "no_such_folder"])[0])
    assert missing_folder.reason.startswith("file not found")
    folder = tmp_path / "looks_like.txt"
    folder.mkdir()
    assert "is a folder" in failed(load_path(folder)).reason
    good = write(tmp_path / "ok.md", b"fine")
    assert loaded(load_path(str(good))).text == "fine"


@settings(max_examples=60, deadline=None)
@given(data=st.binary(max_size=300), name=st.sampled_from(["x.pdf", "x.txt", "x.md"]),
       header=st.booleans())
def test_loaders_never_raise(data, name, header):
    if header and name.endswith(".pdf"):
        data = b"%PDF-1.4\n" + data
    result = load_file(name, data)
    assert isinstance(result, (Document, IngestProblem))
    if isinstance(result, IngestProblem):
        assert result.reason and result.name == name


# --- the demo corpus -------------------------------------------------------------------------

DEMO = Path(__file__).resolve().parent.parent / "rageval" / "demo"


def _squash(text: str) -> str:
    return " ".join(text.replace("**", "").split()).lower()


def test_demo_corpus_loads_and_every_answer_is_in_it():
    import json

    results = load_paths([DEMO / "corpus"])
    docs = [loaded(r) for r in results]
    assert sorted(d.kind for d in docs).count("pdf") == 1 and len(docs) >= 5
    assert 6_000 <= sum(len(d.text) for d in docs) <= 12_500
    pdf = next(d for d in docs if d.kind == "pdf")
    assert len(pdf.pages) == 2
    table_lines = [line for line in pdf.pages[0].text.splitlines() if " | " in line]
    assert len(table_lines) >= 4  # header and rows

    corpus = _squash("\n".join(d.text for d in docs))
    items = [json.loads(line) for line in (DEMO / "qa.jsonl").read_text().splitlines()]
    assert len({item["id"] for item in items}) == len(items)
    absent = [item for item in items if item["reference"] == "not in the documents"]
    answerable = [item for item in items if item not in absent]
    assert len(absent) == 3 and len(answerable) >= 32
    from_table = from_page_two = 0
    for item in answerable:
        refs = item["reference"] if isinstance(item["reference"], list) else [item["reference"]]
        assert item["question"] and item["domain"]
        assert any(_squash(ref) in corpus for ref in refs), item  # quoted from the corpus
        from_table += any(refs[0] in line for line in table_lines)
        from_page_two += refs[0] in pdf.pages[1].text and refs[0] not in pdf.pages[0].text
    assert from_table >= 3 and from_page_two >= 2


def test_demo_pdf_is_reproducible():
    from training import make_demo_pdf

    assert make_demo_pdf.build() == make_demo_pdf.OUT.read_bytes()
