-- 005: embedding-cache vectors as raw little-endian float32 bytes with their width.
-- FLOAT[] lists were written value by value and lose the sign of -0.0; a BLOB moves in bulk
-- and round-trips bit for bit. The cache is recomputable, so old rows are dropped, not converted.
DROP TABLE embedding_cache;
CREATE TABLE embedding_cache (
    model       VARCHAR NOT NULL,
    key         VARCHAR NOT NULL,             -- sha256 of the text
    dim         INTEGER NOT NULL,             -- number of float32 values in vector
    vector      BLOB NOT NULL,                -- dim little-endian float32 values
    PRIMARY KEY (model, key)
);
