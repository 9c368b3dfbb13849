SELECT fencekit_orphan_columns FROM fencekit_orphans WHERE session_id = ? ORDER BY seq
