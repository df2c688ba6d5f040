-- 047: the history of claim labels. When a rater's label of a claim is replaced by a different one
-- (a re-import, another click in the app) or deleted, the earlier row is kept here with when it was
-- replaced and by what (the file of the import, "app"), so agreement can be recomputed as of a time.
CREATE TABLE claim_label_history (
    run_id      VARCHAR NOT NULL,
    item_id     VARCHAR NOT NULL,
    claim       VARCHAR NOT NULL,
    ordinal     INTEGER,
    rater       VARCHAR NOT NULL,
    label       VARCHAR NOT NULL,
    evidence    VARCHAR,
    evidence_chunk VARCHAR,
    span_start  INTEGER,
    span_end    INTEGER,
    created     TIMESTAMP,
    replaced    TIMESTAMP NOT NULL,
    replaced_by VARCHAR
);
