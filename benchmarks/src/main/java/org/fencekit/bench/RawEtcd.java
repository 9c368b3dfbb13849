package org.fencekit.bench;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.ExecutionException;

/**
 * The etcd store's round trips through bare jetcd, on a client of its own with jetcd's defaults:
 * its common case, one transaction per operation. To claim, one transaction creating the order
 * ({@code create_revision == 0}) with its claims index key, else reading the order; to complete,
 * one transaction comparing the {@code mod_revision} the claim wrote that puts the settled order
 * and deletes the index key, else reading the order. The values are fixed bytes of a record's size;
 * nothing is decoded.
 */
final class RawEtcd implements RawDriver {

  /** About the size of a claimed order's value in the store's encoding. */
  private static final ByteSequence CLAIMED = filler(230);

  /** About the size of a settled one. */
  private static final ByteSequence SETTLED = filler(260);

  private final Client client;
  private final KV kv;
  private final String prefix;

  RawEtcd(String endpoints, Namespace namespace) {
    this.client = client(endpoints);
    this.kv = client.getKVClient();
    this.prefix = namespace.keyPrefix();
  }

  /** A jetcd client of the members {@code http://host:port,...}, at jetcd's defaults. */
  static Client client(String endpoints) {
    return Client.builder()
        .endpoints(Arrays.stream(endpoints.split(",")).map(String::trim).toArray(String[]::new))
        .build();
  }

  /** Deletes every key starting with {@code prefix} on the cluster. */
  static void deletePrefix(String endpoints, String prefix) {
    try (Client client = client(endpoints)) {
      ByteSequence key = bytes(prefix);
      client.getKVClient().delete(key, DeleteOption.builder().isPrefix(true).build()).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted deleting " + prefix + "* from etcd", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "could not delete " + prefix + "* from etcd: " + e.getCause(), e.getCause());
    }
  }

  @Override
  public Session session() {
    return new Session() {
      @Override
      public void claimComplete(String sessionId, long nowMillis) {
        ByteSequence order = bytes(prefix + "order/" + sessionId);
        ByteSequence claim =
            bytes(
                prefix
                    + "claims/"
                    + String.format(
                        "%016x",
                        (nowMillis + ClaimCompleteBenchmark.LEASE.toMillis()) ^ Long.MIN_VALUE)
                    + "/"
                    + sessionId);
        try {
          TxnResponse claimed =
              kv.txn()
                  .If(new Cmp(order, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                  .Then(
                      Op.put(order, CLAIMED, PutOption.DEFAULT),
                      Op.put(claim, CLAIMED, PutOption.DEFAULT))
                  .Else(Op.get(order, GetOption.DEFAULT))
                  .commit()
                  .get();
          if (!claimed.isSucceeded()) {
            throw new IllegalStateException("the claim of " + sessionId + " was refused");
          }
          // the claim's revision is the order's: the complete compares it without reading again
          boolean completed =
              kv.txn()
                  .If(
                      new Cmp(
                          order,
                          Cmp.Op.EQUAL,
                          CmpTarget.modRevision(claimed.getHeader().getRevision())))
                  .Then(
                      Op.put(order, SETTLED, PutOption.DEFAULT),
                      Op.delete(claim, DeleteOption.DEFAULT))
                  .Else(Op.get(order, GetOption.DEFAULT))
                  .commit()
                  .get()
                  .isSucceeded();
          if (!completed) {
            throw new IllegalStateException("the complete of " + sessionId + " was refused");
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
          throw new IllegalStateException(String.valueOf(e.getCause()), e.getCause());
        }
      }

      @Override
      public void close() {}
    };
  }

  @Override
  public void close() {
    client.close();
  }

  static ByteSequence bytes(String text) {
    return ByteSequence.from(text, StandardCharsets.UTF_8);
  }

  private static ByteSequence filler(int size) {
    byte[] bytes = new byte[size];
    Arrays.fill(bytes, (byte) 'x');
    return ByteSequence.from(bytes);
  }
}
