"""Write the demo corpus's one PDF: a two-page travel policy with a per-diem table.

    python -m training.make_demo_pdf            # writes rageval/demo/corpus/travel_expense_policy.pdf
    python -m training.make_demo_pdf --check    # exit 1 if the committed PDF differs from a fresh one

The output is byte-for-byte reproducible (fixed creation date), so the document's id (the
SHA-256 of its bytes) stays the same when the file is regenerated. Needs fpdf2 (a test
dependency), not needed at run time.
"""
from __future__ import annotations

import argparse
import sys
from datetime import datetime, timezone
from pathlib import Path

from fpdf import FPDF
from fpdf.enums import XPos, YPos

NEXT_LINE = {"new_x": XPos.LMARGIN, "new_y": YPos.NEXT}
OUT = Path(__file__).resolve().parent.parent / "rageval" / "demo" / "corpus" / "travel_expense_policy.pdf"

TITLE = "Northwind Outfitters - Travel and Expense Policy"
SUBTITLE = "Version 4.2, effective 1 March 2025. Owner: Finance Department."

PAGE_ONE = [
    ("Booking travel",
     "All business trips are booked through the TravelDesk portal at least 14 days before "
     "departure. Trips booked later need written approval from the traveller's manager. "
     "Flights shorter than 6 hours are booked in economy class; premium economy is allowed "
     "for flights of 6 hours or longer. Rail is preferred over flying when the train journey "
     "takes less than 4 hours."),
    ("Lodging and meals",
     "Hotels are reimbursed up to the lodging cap for the destination city, per night, "
     "including taxes. Meals are covered by a daily per diem; no meal receipts are needed. "
     "On the day of departure and the day of return the traveller receives 75% of the meal "
     "per diem. The rates below apply from 1 March 2025."),
]

RATES = [
    ("City", "Lodging cap per night", "Meals per diem"),
    ("Oslo", "190 EUR", "70 EUR"),
    ("Hamburg", "150 EUR", "55 EUR"),
    ("Lyon", "135 EUR", "50 EUR"),
    ("Toronto", "175 EUR", "60 EUR"),
    ("Singapore", "200 EUR", "65 EUR"),
]

RATES_NOTE = ("For cities not listed, the Finance Department sets the rates before the trip "
              "on request.")

PAGE_TWO = [
    ("Claims and reimbursement",
     "Expense claims are submitted in the expense app within 30 days of returning from the "
     "trip. A receipt is required for every expense above 25 EUR. A lost-receipt declaration "
     "may be used at most twice per calendar year."),
    ("Private cars",
     "Business use of a private car is reimbursed at 0.42 EUR per kilometre. Parking and "
     "tolls are reimbursed at cost with receipts."),
    ("Approval and payment",
     "The traveller's manager approves claims below 2,500 EUR. Claims of 2,500 EUR or more "
     "also need approval from the Finance Director, Tomas Lindqvist. Claims approved by the "
     "20th of a month are paid with that month's payroll."),
    ("Not reimbursed",
     "Alcohol, fines for traffic or parking offences, and upgrades paid for personal comfort "
     "are not reimbursed."),
]


def build() -> bytes:
    """The PDF's bytes: page one with booking rules and the rates table, page two with claims."""
    pdf = FPDF(format="A4")
    pdf.set_creation_date(datetime(2025, 3, 1, tzinfo=timezone.utc))
    pdf.set_title(TITLE)
    pdf.set_author("Northwind Outfitters")
    pdf.set_auto_page_break(auto=True, margin=15)
    pdf.set_margins(20, 20, 20)

    pdf.add_page()
    pdf.set_font("Helvetica", "B", 15)
    pdf.multi_cell(0, 8, TITLE, **NEXT_LINE)
    pdf.set_font("Helvetica", "I", 10)
    pdf.multi_cell(0, 6, SUBTITLE, **NEXT_LINE)
    pdf.ln(4)
    _sections(pdf, PAGE_ONE)
    pdf.set_font("Helvetica", size=10)
    with pdf.table(col_widths=(40, 60, 60), text_align=("LEFT", "RIGHT", "RIGHT")) as table:
        for cells in RATES:
            row = table.row()
            for cell in cells:
                row.cell(cell)
    pdf.ln(4)
    pdf.set_font("Helvetica", "I", 10)
    pdf.multi_cell(0, 6, RATES_NOTE, **NEXT_LINE)

    pdf.add_page()
    _sections(pdf, PAGE_TWO)
    return bytes(pdf.output())


def _sections(pdf: FPDF, sections: list[tuple[str, str]]) -> None:
    for heading, body in sections:
        pdf.set_font("Helvetica", "B", 12)
        pdf.multi_cell(0, 7, heading, **NEXT_LINE)
        pdf.set_font("Helvetica", size=10)
        pdf.multi_cell(0, 5.5, body, **NEXT_LINE)
        pdf.ln(4)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed PDF")
    args = parser.parse_args(argv)
    data = build()
    if args.check:
        same = OUT.exists() and OUT.read_bytes() == data
        print(f"{OUT.name}: {'up to date' if same else 'differs from a fresh build'}")
        return 0 if same else 1
    OUT.write_bytes(data)
    print(f"wrote {OUT} ({len(data)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
