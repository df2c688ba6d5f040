-- 050: people and access. Numbered apart from the content migrations so that tables added
-- beside it elsewhere keep their own numbers; migrations apply in version order, each once.
-- Members of the project by e-mail (lower case): owner / annotator / viewer. ``subject`` is the
-- identity provider's subject, bound at the member's first sign-in; a later sign-in with the same
-- e-mail and another subject is refused.
CREATE TABLE members (
    email       VARCHAR PRIMARY KEY,
    role        VARCHAR NOT NULL CHECK (role IN ('owner', 'annotator', 'viewer')),
    subject     VARCHAR,
    added_by    VARCHAR NOT NULL,
    added       TIMESTAMP DEFAULT current_timestamp
);
-- Who did what, when: one row per action that changes the project (rate, label, import, upload,
-- run, member and setting changes, demo links). ``detail`` is a JSON object.
CREATE TABLE audit_log (
    created     TIMESTAMP DEFAULT current_timestamp,
    subject     VARCHAR NOT NULL,
    email       VARCHAR NOT NULL,
    action      VARCHAR NOT NULL,
    target      VARCHAR,
    detail      JSON
);
-- Read-only links for one project: only the token's sha256 is kept.
CREATE TABLE demo_links (
    id          VARCHAR PRIMARY KEY,
    token_sha256 VARCHAR NOT NULL UNIQUE,
    created_by  VARCHAR NOT NULL,
    created     TIMESTAMP DEFAULT current_timestamp,
    expires     TIMESTAMP NOT NULL,
    revoked     TIMESTAMP
);
-- A ratings file's rows keep who imported them and the file's own rater column.
ALTER TABLE human_ratings ADD COLUMN imported_by VARCHAR;
ALTER TABLE human_ratings ADD COLUMN file_rater VARCHAR;
