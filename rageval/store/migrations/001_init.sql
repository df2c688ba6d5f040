-- 001: the first schema. Every later change is a new numbered file; never edit an applied one.
CREATE TABLE corpora (
    name        VARCHAR PRIMARY KEY,
    created     TIMESTAMP DEFAULT current_timestamp
);
CREATE TABLE documents (
    id          VARCHAR PRIMARY KEY,          -- sha256 of the file bytes
    name        VARCHAR NOT NULL,
    kind        VARCHAR NOT NULL,             -- pdf | txt | md
    pages       INTEGER NOT NULL,
    size_bytes  BIGINT NOT NULL,
    text        VARCHAR NOT NULL,
    page_starts JSON NOT NULL,                -- char offset of each page in text
    created     TIMESTAMP DEFAULT current_timestamp
);
CREATE TABLE corpus_documents (
    corpus      VARCHAR NOT NULL,
    doc_id      VARCHAR NOT NULL,
    PRIMARY KEY (corpus, doc_id)
);
CREATE TABLE ingest_errors (
    corpus      VARCHAR NOT NULL,
    name        VARCHAR NOT NULL,
    reason      VARCHAR NOT NULL,
    created     TIMESTAMP DEFAULT current_timestamp,
    PRIMARY KEY (corpus, name)
);
CREATE TABLE chunks (
    id          VARCHAR PRIMARY KEY,          -- hash(doc id, chunking signature, ordinal)
    doc_id      VARCHAR NOT NULL,
    chunking    VARCHAR NOT NULL,             -- ChunkingConfig.signature()
    ordinal     INTEGER NOT NULL,
    text        VARCHAR NOT NULL,
    page        INTEGER NOT NULL,
    char_start  INTEGER NOT NULL,
    char_end    INTEGER NOT NULL
);
CREATE TABLE qa_sets (
    name        VARCHAR PRIMARY KEY,
    source      VARCHAR,
    created     TIMESTAMP DEFAULT current_timestamp
);
CREATE TABLE qa_items (
    qa_set      VARCHAR NOT NULL,
    id          VARCHAR NOT NULL,
    ordinal     INTEGER NOT NULL,
    question    VARCHAR NOT NULL,
    refs        JSON NOT NULL,                -- list of gold answers (may be empty)
    relevant    JSON NOT NULL,                -- {chunk or document id: grade}
    domain      VARCHAR,
    PRIMARY KEY (qa_set, id)
);
CREATE TABLE runs (
    id          VARCHAR PRIMARY KEY,
    kind        VARCHAR NOT NULL,             -- pipeline | import
    corpus      VARCHAR,
    qa_set      VARCHAR,
    config      JSON NOT NULL,
    config_hash VARCHAR NOT NULL,
    status      VARCHAR NOT NULL,             -- pending | running | finished | failed | interrupted
    n_items     INTEGER NOT NULL DEFAULT 0,
    error       VARCHAR,
    created     TIMESTAMP DEFAULT current_timestamp,
    started     TIMESTAMP,
    finished    TIMESTAMP
);
CREATE TABLE answers (
    run_id      VARCHAR NOT NULL,
    item_id     VARCHAR NOT NULL,
    ordinal     INTEGER NOT NULL,
    question    VARCHAR NOT NULL,
    answer      VARCHAR,
    refs        JSON NOT NULL,
    contexts    JSON NOT NULL,                -- list of context strings in rank order
    status      VARCHAR NOT NULL,             -- ok | failed
    reason      VARCHAR,
    latency_ms  DOUBLE,
    details     JSON,
    created     TIMESTAMP DEFAULT current_timestamp,
    PRIMARY KEY (run_id, item_id)
);
CREATE TABLE retrievals (
    run_id      VARCHAR NOT NULL,
    item_id     VARCHAR NOT NULL,
    rank        INTEGER NOT NULL,             -- 1-based
    chunk_id    VARCHAR NOT NULL,
    score       DOUBLE,
    PRIMARY KEY (run_id, item_id, rank)
);
CREATE TABLE metric_scores (
    run_id      VARCHAR NOT NULL,
    item_id     VARCHAR NOT NULL,
    metric      VARCHAR NOT NULL,
    signature   VARCHAR NOT NULL,
    value       DOUBLE,                       -- NULL unless status = 'ok'
    status      VARCHAR NOT NULL,             -- ok | unscored | failed
    reason      VARCHAR,
    details     JSON,
    created     TIMESTAMP DEFAULT current_timestamp,
    PRIMARY KEY (run_id, item_id, metric, signature)
);
CREATE TABLE claims (
    run_id      VARCHAR NOT NULL,
    item_id     VARCHAR NOT NULL,
    signature   VARCHAR NOT NULL,
    ordinal     INTEGER NOT NULL,
    text        VARCHAR NOT NULL,
    verdict     VARCHAR NOT NULL,             -- SUPPORTED | CONTRADICTED | NOT_MENTIONED
    evidence    VARCHAR,
    evidence_chunk VARCHAR,
    span_start  INTEGER,
    span_end    INTEGER,
    reason      VARCHAR,
    judge       VARCHAR NOT NULL,
    details     JSON,
    PRIMARY KEY (run_id, item_id, signature, ordinal)
);
CREATE TABLE human_ratings (
    run_id      VARCHAR NOT NULL,
    item_id     VARCHAR NOT NULL,
    annotator   VARCHAR NOT NULL,
    rating      INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5),
    created     TIMESTAMP DEFAULT current_timestamp,
    PRIMARY KEY (run_id, item_id, annotator)
);
CREATE TABLE correlations (
    id          VARCHAR NOT NULL,
    runs        JSON NOT NULL,
    grouping    VARCHAR NOT NULL,
    method      VARCHAR NOT NULL,
    metric_a    VARCHAR NOT NULL,
    metric_b    VARCHAR NOT NULL,
    rho         DOUBLE,
    p           DOUBLE,
    n           INTEGER,
    ci_low      DOUBLE,
    ci_high     DOUBLE,
    created     TIMESTAMP DEFAULT current_timestamp,
    PRIMARY KEY (id, metric_a, metric_b)
);
CREATE TABLE llm_cache (
    key         VARCHAR PRIMARY KEY,          -- sha256 of the canonical request
    model       VARCHAR NOT NULL,
    reply       JSON NOT NULL,
    created     TIMESTAMP DEFAULT current_timestamp
);
CREATE TABLE llm_calls (
    run_id      VARCHAR,
    key         VARCHAR NOT NULL,
    role        VARCHAR NOT NULL,             -- generator | judge | embedder
    model       VARCHAR NOT NULL,
    tokens_in   INTEGER,
    tokens_out  INTEGER,
    latency_ms  DOUBLE,
    cached      BOOLEAN NOT NULL,
    status      VARCHAR NOT NULL,             -- ok | failed
    error       VARCHAR,
    created     TIMESTAMP DEFAULT current_timestamp
);
CREATE TABLE embedding_cache (
    model       VARCHAR NOT NULL,
    key         VARCHAR NOT NULL,             -- sha256 of the text
    vector      FLOAT[] NOT NULL,
    PRIMARY KEY (model, key)
);
