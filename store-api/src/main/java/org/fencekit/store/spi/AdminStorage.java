package org.fencekit.store.spi;

/**
 * The storage-facing piece of a store with an operator's side: {@link Storage} for the orders and
 * {@link AdminQueries} for the listings. {@link FencedAdminOrderStore} decides both, so a backend
 * implements only this ({@linkplain org.fencekit.store.spi which of fencekit's stores do}).
 */
public interface AdminStorage extends Storage, AdminQueries {}
