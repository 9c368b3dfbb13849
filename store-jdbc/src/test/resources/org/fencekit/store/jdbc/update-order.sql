UPDATE fencekit_orders SET fencekit_state_assignments WHERE session_id = ?
