/**
 * What a store is built from, so that a new store writes its backend and nothing else: {@link
 * Storage} (or {@link AdminStorage}, with the operator's {@link AdminQueries}) under {@link
 * FencedOrderStore} (or {@link FencedAdminOrderStore}), which validate and decide with {@link
 * OrderStateMachine}; {@link FencedAdmin} validates, pages and decides the admin calls.
 *
 * <p>Which of fencekit's own stores uses what (the one list of them in this module): the memory,
 * SQLite, PostgreSQL, MySQL and etcd stores extend {@link FencedAdminOrderStore} over an {@link
 * AdminStorage}; the Redis store decides in its scripts, which mirror {@link OrderStateMachine},
 * and answers the admin calls through {@link FencedAdmin} over {@link AdminQueries} of its own.
 */
package org.fencekit.store.spi;
