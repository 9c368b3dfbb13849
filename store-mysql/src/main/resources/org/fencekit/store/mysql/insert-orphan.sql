-- Records an item bought by a superseded attempt, inside the write step that found the claim
-- superseded. A retried complete with the same claim and provider order id meets the primary key
-- (1062, which undoes this statement only): the first row is kept.
INSERT INTO fencekit_orphans (fencekit_orphan_columns)
VALUES (fencekit_orphan_values)
