-- 003: human evaluation. An agreed score per rated answer (it overrides the automatic consensus),
-- and correlations stored as analyses: one row per (analysis, group, metric pair), each row
-- carrying its analysis' runs, grouping, method, filters and time. 001's correlations table had
-- no group column in its key and nothing wrote to it; it is rebuilt here with its rows kept.
CREATE TABLE agreed_scores (
    run_id      VARCHAR NOT NULL,
    item_id     VARCHAR NOT NULL,
    score       DOUBLE NOT NULL CHECK (score BETWEEN 1 AND 5),
    note        VARCHAR,
    created     TIMESTAMP DEFAULT current_timestamp,
    PRIMARY KEY (run_id, item_id)
);
CREATE TABLE correlations_003 (
    id          VARCHAR NOT NULL,
    group_value VARCHAR NOT NULL DEFAULT 'all',   -- the value of the grouping ('all' when ungrouped)
    runs        JSON NOT NULL,
    grouping    VARCHAR NOT NULL,                 -- none | dataset | domain | model | run
    method      VARCHAR NOT NULL,                 -- spearman | kendall | pearson
    metric_a    VARCHAR NOT NULL,
    metric_b    VARCHAR NOT NULL,                 -- 'human' for a metric against the human score
    rho         DOUBLE,
    p           DOUBLE,
    n           INTEGER,
    ci_low      DOUBLE,
    ci_high     DOUBLE,
    ci_method   VARCHAR,                          -- bootstrap | fisher_z
    reason      VARCHAR,                          -- why rho is NULL (too_few_pairs, constant_input)
    filters     JSON NOT NULL DEFAULT '{}',
    settings    JSON NOT NULL DEFAULT '{}',       -- consensus, n_boot, seed, confidence, label
    created     TIMESTAMP DEFAULT current_timestamp,
    PRIMARY KEY (id, group_value, metric_a, metric_b)
);
INSERT INTO correlations_003 (id, runs, grouping, method, metric_a, metric_b, rho, p, n, ci_low, ci_high, created)
    SELECT id, runs, grouping, method, metric_a, metric_b, rho, p, n, ci_low, ci_high, created FROM correlations;
DROP TABLE correlations;
ALTER TABLE correlations_003 RENAME TO correlations;
