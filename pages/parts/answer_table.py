"""A run's metric cards and its filterable answers table, for the Answers page (a helper module, not a page)."""
from __future__ import annotations

from typing import Sequence

import streamlit as st

from pages.parts import common, nav
from rageval.views import answers as view


#: a card's title wraps instead of ending in "…" ("Answer correctness (offline) ↑" in a quarter of 1280 px)
CARD_TITLES_WRAP = ('<style>[data-testid="stMetricLabel"], [data-testid="stMetricLabel"] * {white-space: normal '
                    '!important; overflow: visible !important; text-overflow: clip !important}</style>')


def metric_cards(items: Sequence[view.MetricSummary], *, per_row: int = 4, notes: dict[str, str] | None = None,
                 agreement: dict | None = None) -> None:
    """One bordered card per metric: mean over scored items, direction, and the unscored count below
    (with ``notes[metric]`` after it, such as the claim metrics' low-confidence count); the tooltip says
    what the metric measures and, with ``agreement`` (rageval.human.trust), how far it agrees with the raters."""
    agreement, notes = agreement or {}, notes or {}
    st.html(CARD_TITLES_WRAP)
    for start in range(0, len(items), per_row):
        for col, s in zip(st.columns(per_row), items[start:start + per_row]):
            judge = " Judged by the offline heuristic judge." if s.heuristic else ""
            agree = agreement.get(s.metric)
            col.metric(common.heading(s.metric), view.shown(s.mean), border=True, help=common.metric_help(
                s.metric, s.n_unscored + s.n_failed, judge + (" " + agree.sentence() if agree else "")))
            col.caption(view.card_note(s) + (" · heuristic" if s.heuristic else "")
                        + (f" · {common.md(notes[s.metric])}" if notes.get(s.metric) else "")
                        + (f" · agrees with {agree.words()}" if agree else ""))


def filters(full, summaries: list[view.MetricSummary]):
    """Filters by verdicts, unscored metrics and a metric threshold, over the answers table."""
    nav.url_state({"contradicted": ("ans_contradicted", False), "unscored": ("ans_unscored", False),
                      "metric": ("ans_metric", "(any)"), "threshold": ("ans_direction", "off")})
    c1, c2, c3, c4, c5 = st.columns([1.3, 1, 1.2, 0.9, 1.4])
    contradicted = c1.toggle("With contradicted claims", key="ans_contradicted")
    unscored = c2.toggle("Unscored", key="ans_unscored", help="with a metric selected: unscored by that metric")
    if st.session_state.get("ans_metric") not in ["(any)"] + [s.metric for s in summaries]:
        st.session_state.pop("ans_metric", None)
    metric = c3.selectbox("Metric", ["(any)"] + [s.metric for s in summaries], key="ans_metric",
                          format_func=lambda m: m if m == "(any)" else common.label(m))
    metric = None if metric == "(any)" else metric
    direction = c4.selectbox("Threshold", ["off", "below", "at least"], key="ans_direction", disabled=metric is None)
    low, high = view.bounds(full, metric) if metric else (0.0, 1.0)
    key = f"ans_value_{metric}"
    if metric and direction != "off":  # the value is part of the view only while a threshold is on
        nav.url_state({"value": (key, 0.0)})
    if not low <= st.session_state.get(key, low) <= high:
        st.session_state.pop(key)
    st.session_state.setdefault(key, (low + high) / 2)
    value = c5.slider("Value", low, high, key=key, disabled=metric is None or direction == "off")
    return view.filter_scores(full, contradicted=contradicted, unscored=unscored, metric=metric,
                              below=value if metric and direction == "below" else None,
                              at_least=value if metric and direction == "at least" else None)


_NUMBER = st.column_config.NumberColumn
_CONFIG = {"#": _NUMBER(width=40), "id": None,  # the id: in the CSV, not on screen
           "question": st.column_config.TextColumn(width="medium"),
           "answer": st.column_config.TextColumn(width="medium"),
           "supported": _NUMBER("✓", help="supported claims", width=40),
           "contradicted": _NUMBER("✗", help="contradicted claims", width=40),
           "not_mentioned": _NUMBER("?", help="claims the context does not mention", width=40),
           "unverified": _NUMBER("○", width=40, help="claims no check decided (offline only a claim copied from a "
                                                   "context is decided): a judge or a person decides them"),
           "low_confidence": _NUMBER("low conf.", width=60,
                                     help="claims whose verdict the verifier gave with low confidence"),
           "diagnosis": st.column_config.TextColumn(width="small"),
           "hedging_flag": st.column_config.CheckboxColumn("hedges", width=60),
           "domain": st.column_config.TextColumn(width="small")}
_BASE = ["#", "id", "question", "answer", "supported", "contradicted", "not_mentioned", "unverified",
         "low_confidence", "diagnosis", "hedging_flag", "domain"]


def table(run, full, shown):
    """The filtered answers as a sortable table; a selected row opens that answer below."""
    nav.url_state({"search": ("ans_search", ""), "diagnosis": ("ans_diag", ""), "domain": ("ans_domain", ""),
                      "hedges": ("ans_hedged", False)})
    c1, c2, c3, c4, c5 = st.columns([2, 1.2, 1.2, 0.8, 0.8], vertical_alignment="bottom")
    text = c1.text_input("Search question or answer", key="ans_search")
    diagnosis = c2.selectbox("Diagnosis", [""] + sorted(d for d in full["diagnosis"].unique() if d), key="ans_diag",
                             format_func=lambda d: d or "(any)", help="likely cause of unsupported claims")
    domain = c3.selectbox("Domain", [""] + sorted(d for d in full["domain"].dropna().unique()), key="ans_domain",
                          format_func=lambda d: common.plain(d) or "(any)")
    hedged = c4.toggle("Hedges", key="ans_hedged", help="answers flagged by the hedging metric")
    rows = view.filter_table(shown, text=text, diagnosis=diagnosis, domain=domain, hedged=hedged)
    every = view.metric_columns(full)
    if st.session_state.get("ans_cols_of") != every:  # another run, other metrics: its own default columns
        st.session_state.pop("ans_cols", None)
        st.session_state["ans_cols_of"] = every
    with c5.popover("Columns", help="metric columns shown (the CSV has them all)"):
        metrics = st.multiselect("Metric columns", every, default=view.default_metric_columns(every),
                                 key="ans_cols", format_func=common.label)
    config = {m: _NUMBER(common.heading(m), help=common.metric_help(m), format="%.3f", width="small") for m in metrics}
    # low confidence is a judge's (or the opt-in cross-encoder's) probability: no column of zeros for a run without one
    base = [c for c in _BASE if c != "low_confidence" or full["low_confidence"].any()]
    event = common.dataframe(rows[[*base, *metrics]], hide_index=True, width="stretch",
                             height=min(38 + 35 * len(rows), 360), column_config=config | _CONFIG, key="ans_table",
                             on_select="rerun", selection_mode="single-row")
    c1, c2 = st.columns([4, 1])
    c1.caption("Click a column to sort, a row to open it below · a grey None in a metric column: not "
               "scored (a missing input), never counted as 0")
    c2.download_button("Table as CSV", lambda: view.table_csv(rows[[*_BASE, *every]]), f"answers-{run.id}.csv",
                       "text/csv", key="ans_csv")  # made when clicked, not on every rerun
    picked = getattr(getattr(event, "selection", None), "rows", None) or []
    if picked:
        st.session_state["ans_item"] = rows.iloc[picked[0]]["id"]
    return rows
