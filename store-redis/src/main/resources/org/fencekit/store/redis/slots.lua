#!lua flags=no-writes
-- slots: the Cluster's slot map as this node sees it (CLUSTER SLOTS), so that a listing can run
-- once per master. KEYS[1] only routes the call.
return redis.call('CLUSTER', 'SLOTS')
