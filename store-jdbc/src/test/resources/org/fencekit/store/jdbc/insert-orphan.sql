INSERT INTO fencekit_orphans (fencekit_orphan_columns) VALUES (fencekit_orphan_values) ON CONFLICT DO NOTHING
