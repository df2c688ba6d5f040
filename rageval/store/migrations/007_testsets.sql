-- 007: QA sets generated from a corpus (rageval.testsets). A set records what made it; an item
-- its kind, the sentences it came from, and a reviewer's decision. Imported sets leave them NULL
-- (an imported item with no status is used by runs like an accepted one).
ALTER TABLE qa_sets ADD COLUMN generator VARCHAR;    -- template | openai:MODEL; NULL when imported
ALTER TABLE qa_sets ADD COLUMN generation JSON;      -- corpus, chunking, kinds, seed, judge, prompt signature, counts, drops
ALTER TABLE qa_items ADD COLUMN kind VARCHAR;        -- single_fact | multi_hop | numeric | unanswerable | paraphrase | template:<what>
ALTER TABLE qa_items ADD COLUMN sources JSON;        -- the source sentences (list of text)
ALTER TABLE qa_items ADD COLUMN status VARCHAR;      -- new | accepted | dropped (by a reviewer); NULL when imported
