-- 009: the chunking a corpus was last ingested with (ChunkingConfig.signature()), so that what
-- reads the corpus without naming a chunking (QA-set generation) uses the ids its ingest indexed.
-- NULL for corpora ingested before this column: readers fall back to the one chunking stored.
ALTER TABLE corpora ADD COLUMN chunking VARCHAR;
