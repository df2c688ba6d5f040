-- 010: per document, the characters ftfy repaired in its extracted text and the share of it still
-- garbled after repair (rageval/text/repair.py); NULL for documents ingested before.
ALTER TABLE documents ADD COLUMN repaired INTEGER;
ALTER TABLE documents ADD COLUMN garbled DOUBLE;
