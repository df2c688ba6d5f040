-- 006: rubric metrics a user writes without code (rageval.prompts.rubric). One row per rubric name:
-- its canonical JSON (what the judge is shown), the hash that goes into the metric's signature,
-- and the TOML text it came from, when it came from a file.
CREATE TABLE rubrics (
    name        VARCHAR PRIMARY KEY,
    body        VARCHAR NOT NULL,
    digest      VARCHAR NOT NULL,
    source      VARCHAR,
    created     TIMESTAMP DEFAULT current_timestamp
);
