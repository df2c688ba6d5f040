"""Read models for the app: one module per page (home, documents, qa_sets, run, answers, human_review,
correlations, compare) and frame.py for what surrounds every page; the parts they are built from
(answer_view, answer_table, claim_review, highlight, regressions, trust) and every figure (charts). No streamlit
here."""
