"""Click latency on a big project: rating, switching question, switching page.

Drives the real app (app.py through Streamlit's AppTest, in this process) on a project of
10,000 answers x 20 metrics built by bench/bench_pages.py's builder, and times each click from
the widget change to the end of the rerun (what a user waits for, less the browser's drawing):

- Human review "Save and next" (a rating stored, the next answer shown);
- Human review's claim queue: one label button (a claim label stored, the next claim shown; a key
  press clicks the same button), and one click on another sentence of the evidence picker;
- Answers: the label button of the claim in the box (what its key presses: the label stored, the box
  moved to the next claim; AppTest reruns the whole page, the browser only the box's fragment);
- Answers: choosing another question in the question picker;
- switching page in the sidebar (each page once more after its first visit, caches warm, as
  a user switching back and forth sees it), and the first visit of each page (cold caches).

Prints a Markdown table of median / max wall seconds and median CPU seconds (every thread of this
process: the script runs here) over ``--repeat`` clicks; figures go to docs/benchmarks.md with the
command and the load average. AppTest measures the server's side of a click (the script run and
its messages), not the browser's drawing.

    python -m bench.bench_clicks [--answers 10000] [--metrics 20] [--repeat 5] [--profile FILE] [--only claims]
                                 [--sentences 1]

``--sentences`` is the number of sentences of each of an answer's three contexts (the evidence picker
lists every one as a button); 1 builds the project the earlier figures were taken on.
"""
from __future__ import annotations

import argparse
import cProfile
import os
import resource
import statistics
import tempfile
import time
from pathlib import Path

from bench.bench_pages import PAGES, build

ROOT = Path(__file__).resolve().parents[1]

def app(project: str):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.session_state["project"] = project
    return at


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)  # every thread of this process: AppTest runs the script here
    return r.ru_utime + r.ru_stime


def clock(fn) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of ``fn()``."""
    c0, t0 = cpu(), time.perf_counter()
    fn()
    return time.perf_counter() - t0, cpu() - c0


def check(at) -> None:
    assert not at.exception, [e.value for e in at.exception]


def rating_clicks(project: str, repeat: int) -> list[tuple[float, float]]:
    at = app(project)
    at.run()
    at.switch_page("pages/human_review.py").run()
    at.text_input(key="hr_annotator").set_value("bench").run()
    out = []
    for n in range(repeat):
        radio = next(r for r in at.radio if r.key.startswith("hr_rating_"))
        radio.set_value(1 + n % 5)
        button = next(b for b in at.button if b.label == "Save and next")
        out.append(clock(lambda: button.click().run()))
        check(at)
    return out


def claim_queue(project: str, rater: str):
    """Human review opened on its claim queue for ``rater`` (an AppTest, checked)."""
    at = app(project)
    at.run()
    at.switch_page("pages/human_review.py").run()
    at.text_input(key="hr_annotator").set_value(rater).run()
    at.segmented_control(key="hr_mode").set_value("Claims").run()
    check(at)
    return at


def claim_clicks(project: str, repeat: int) -> list[tuple[float, float]]:
    """Human review's claim queue: one click labels the claim and shows the next."""
    at = claim_queue(project, "bench")
    out = []
    for n in range(repeat):
        label = ("SUPPORTED", "CONTRADICTED", "NOT_MENTIONED", "SKIP")[n % 4]
        out.append(clock(lambda: at.button(key=f"hr_claim_{label}").click().run()))
        check(at)
    return out


def sentence_clicks(project: str, repeat: int) -> list[tuple[float, float]]:
    """Human review's claim queue: one click on another sentence of the evidence picker (it is filled; no
    label is stored until a label button or key)."""
    at = claim_queue(project, "bench-evidence")
    picker = next(b.key for b in at.button if b.key.startswith("hr_ev_")).rsplit("_", 1)[0]
    n = sum(b.key.startswith(picker + "_") for b in at.button)
    out = []
    for k in range(repeat):
        out.append(clock(lambda: at.button(key=f"{picker}_{(k + 1) % n}").click().run()))
        check(at)
    return out


def answers_claim_clicks(project: str, repeat: int) -> list[tuple[float, float]]:
    """Answers: the label button of the claim in the box (the one its key 1-4 presses), on a new question
    each time its three claims are labelled."""
    at = app(project)
    at.run()
    at.switch_page("pages/answers.py").run()
    at.text_input(key="ans_rater").set_value("bench-answers").run()
    check(at)
    out = []
    for n in range(repeat):
        if n % 3 == 0:
            at.selectbox(key="ans_item").set_value(f"q{3 + 11 * n:05d}").run()
        box = next(b for b in at.button if b.proto.shortcut == "1" and b.key.startswith("ans_lab_"))
        out.append(clock(lambda: box.click().run()))
        check(at)
    return out


def claim_library(project: str, repeat: int) -> dict[str, list[tuple[float, float]]]:
    """The library part of a claim-label click, called directly: the queue query, the next claim with its
    answer, saving a label (rater ``direct``, so the app's queue is untouched), one answer's claim cards
    (what the Answers box re-reads after a label) and every verifier's agreement with the labels (what
    the Answers page shows above the box, re-read when the answer's view reruns)."""
    from rageval.project import open_project
    from rageval.store import claim_labels as cstore
    from rageval.views import claim_review, trust

    p = open_project(project)
    run_id = claim_review.rstore.runs(p.db_path)[0].id
    out: dict[str, list[tuple[float, float]]] = {}
    for _ in range(repeat):
        out.setdefault("library: queue query", []).append(
            clock(lambda: cstore.queue(p.db_path, run_id, "direct", limit=1)))
        found = []
        out.setdefault("library: next claim with its answer", []).append(
            clock(lambda: found.append(claim_review.next_claim(p, run_id, "direct"))))
        item = found[0]
        out.setdefault("library: save a label", []).append(clock(lambda: claim_review.save(
            p, run_id, item.card, "direct", "SUPPORTED", item.options[0] if item.options else None)))
        out.setdefault("library: one answer's claim cards (the Answers box)", []).append(
            clock(lambda: claim_review.cards(p, run_id, item.card.item_id, "direct")))
        out.setdefault("library: every verifier's agreement, 500 resamples", []).append(
            clock(lambda: trust.claim_agreement(p, None, n_boot=500)))
    return out


def question_clicks(project: str, repeat: int) -> list[tuple[float, float]]:
    at = app(project)
    at.run()
    at.switch_page("pages/answers.py").run()
    check(at)
    out = []
    for n in range(repeat):
        picker = at.selectbox(key="ans_item")  # item ids of bench_pages.build: q00000, q00001, ...
        out.append(clock(lambda: picker.set_value(f"q{1 + 7 * n:05d}").run()))
        check(at)
    return out


def page_clicks(project: str, repeat: int) -> tuple[dict[str, tuple], dict[str, list[tuple]]]:
    at = app(project)
    at.run()
    first, warm = {}, {}
    for page in PAGES:
        first[page] = clock(lambda: at.switch_page(f"pages/{page}.py").run())
        check(at)
    for _ in range(repeat):
        for page in PAGES:
            warm.setdefault(page, []).append(clock(lambda: at.switch_page(f"pages/{page}.py").run()))
            check(at)
    return first, warm


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--answers", type=int, default=10_000)
    ap.add_argument("--metrics", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--profile", default="", help="write a cProfile of the clicks to this file")
    ap.add_argument("--only", choices=("claims",), help="time only these clicks (claim labels)")
    ap.add_argument("--sentences", type=int, default=1, help="sentences in each of an answer's 3 contexts")
    args = ap.parse_args()
    os.environ["RAGEVAL_HOME"] = tempfile.mkdtemp(prefix="rageval-clicks-")
    os.environ["RAGEVAL_NO_AUTODEMO"] = "1"
    from rageval.project import open_project

    project = open_project("bench")
    t0 = time.perf_counter()
    build(project, args.answers, args.metrics, sentences=args.sentences)
    print(f"built {args.answers} answers x {args.metrics} metrics, {3 * args.sentences} context sentences each, "
          f"in {time.perf_counter() - t0:.1f} s; "
          f"load average {os.getloadavg()[0]:.2f}\n")
    prof = cProfile.Profile() if args.profile else None
    if prof:
        prof.enable()
    rows = {"Human review, claim queue: label and next": claim_clicks("bench", args.repeat),
            "Human review, claim queue: click another sentence": sentence_clicks("bench", args.repeat),
            "Answers: label the claim in the box, box to the next": answers_claim_clicks("bench", args.repeat),
            **claim_library("bench", args.repeat)}
    first, warm = {}, {}
    if not args.only:
        rows.update({"Human review: save and next": rating_clicks("bench", args.repeat),
                     "Answers: switch question": question_clicks("bench", args.repeat)})
        first, warm = page_clicks("bench", args.repeat)
    if prof:
        prof.disable()
        prof.dump_stats(args.profile)
    print("| click | median wall s | max wall s | median CPU s | clicks |")
    print("|---|---|---|---|---|")

    def row(name: str, times: list[tuple[float, float]]) -> None:
        walls, cpus = [w for w, _ in times], [c for _, c in times]
        print(f"| {name} | {statistics.median(walls):.2f} | {max(walls):.2f} | {statistics.median(cpus):.2f} | "
              f"{len(times)} |")

    for name, times in rows.items():
        row(name, times)
    for page, times in warm.items():
        row(f"switch to {page} (visited before)", times)
    for page, t in first.items():
        row(f"switch to {page} (first visit)", [t])
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    from bench.bench_common import framed

    framed(main)
