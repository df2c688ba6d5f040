-- 004: the project's own id (isolation on a shared Chroma server), run owners and heartbeats,
-- and the original (escaped) name of a document whose display name was cleaned.
CREATE TABLE project_meta (
    key         VARCHAR PRIMARY KEY,
    value       VARCHAR NOT NULL
);
-- generated once, when the project's database is created (or first opened by this version)
INSERT INTO project_meta (key, value)
    VALUES ('project_id', replace(CAST(gen_random_uuid() AS VARCHAR), '-', ''));
ALTER TABLE runs ADD COLUMN owner_pid INTEGER;       -- process that executes the run
ALTER TABLE runs ADD COLUMN owner_host VARCHAR;      -- its host name
ALTER TABLE runs ADD COLUMN owner_start VARCHAR;     -- its start time (tells a reused pid apart)
ALTER TABLE runs ADD COLUMN heartbeat TIMESTAMP;     -- last sign of life of the owner (UTC)
ALTER TABLE documents ADD COLUMN original_name VARCHAR;  -- escaped upload name when it was cleaned
