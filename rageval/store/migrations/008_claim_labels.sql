-- 008: claim labels given by people. One row per (answer, claim text, rater): the rater's verdict
-- SUPPORTED / CONTRADICTED / NOT_MENTIONED, or SKIP (seen, not decided), the evidence sentence the
-- rater accepted or chose (its chunk and character span in that chunk) and when. The claim is named
-- by its text (what a verifier's claim is matched on) and, for reference, its index in the answer's
-- claim list when it was labelled.
CREATE TABLE claim_labels (
    run_id      VARCHAR NOT NULL,
    item_id     VARCHAR NOT NULL,
    claim       VARCHAR NOT NULL,
    ordinal     INTEGER,
    rater       VARCHAR NOT NULL,
    label       VARCHAR NOT NULL CHECK (label IN ('SUPPORTED', 'CONTRADICTED', 'NOT_MENTIONED', 'SKIP')),
    evidence    VARCHAR,
    evidence_chunk VARCHAR,
    span_start  INTEGER,
    span_end    INTEGER,
    created     TIMESTAMP DEFAULT current_timestamp,
    PRIMARY KEY (run_id, item_id, claim, rater)
);
