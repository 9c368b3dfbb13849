package org.fencekit.store.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.common.exception.EtcdException;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.grpc.ClientInterceptor;
import io.grpc.Status;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.fencekit.store.spi.Validate;

/**
 * The store's jetcd client: reads (linearizable) and transactions, each with a deadline, their
 * failures turned into {@link Failure}. A transaction is sent once: never with {@code
 * TxnOption.withAutoRetry()}, since a retried compare-and-put that had landed fails its own
 * compare.
 */
final class EtcdClient implements AutoCloseable {

  /**
   * A call that failed; {@link #changedNothing} says whether a transaction surely changed nothing,
   * {@link #refused} whether trying again is useless.
   */
  static final class Failure extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final boolean refused;
    private final boolean unsent;

    Failure(String detail, boolean refused, boolean unsent, Throwable cause) {
      super(detail, cause);
      this.refused = refused;
      this.unsent = unsent;
    }

    /**
     * Whether the server refused the request before applying it (a bad or unauthorised one): no
     * retry will do better.
     */
    boolean refused() {
      return refused;
    }

    /**
     * Whether the request surely changed nothing: refused, or received by no member ({@link
     * Unsent}), which is worth trying again.
     */
    boolean changedNothing() {
      return refused || unsent;
    }
  }

  private final Client client;
  private final KV kv;
  private final Duration timeout;
  private final AtomicBoolean closed = new AtomicBoolean();

  /**
   * @param endpoints the members, {@code http://host:port}
   * @param timeout each call's deadline
   * @param interceptors more of the client's interceptors, after the deadline's (tests)
   */
  EtcdClient(List<URI> endpoints, Duration timeout, List<ClientInterceptor> interceptors) {
    this.timeout = timeout;
    this.client =
        Client.builder()
            .endpoints(endpoints.toArray(URI[]::new))
            // the last one added sees each call first: Unsent watches every other one's effect
            .interceptor(new CallDeadline(timeout), withUnsent(interceptors))
            .connectTimeout(timeout)
            .retryDelay(50)
            .retryMaxDelay(500)
            .retryMaxDuration(timeout)
            .build();
    this.kv = client.getKVClient();
    // jetcd connects and loads gRPC on its first call, seconds on a loaded host: start that now,
    // in the background, so the first claim does not pay it (a cluster that is down fails nothing
    // here; the first real call says so)
    kv.get(ByteSequence.from(new byte[] {0})).exceptionally(failure -> null);
  }

  private static ClientInterceptor[] withUnsent(List<ClientInterceptor> interceptors) {
    List<ClientInterceptor> all = new ArrayList<>(interceptors);
    all.add(new Unsent());
    return all.toArray(ClientInterceptor[]::new);
  }

  /** The key's current value, read linearizably (through the leader's read index). */
  GetResponse get(ByteSequence key) {
    return await(kv.get(key));
  }

  /** A range or an old revision, read linearizably. */
  GetResponse get(ByteSequence key, GetOption option) {
    return await(kv.get(key, option));
  }

  /** One transaction, sent once. */
  TxnResponse txn(Cmp[] compares, Op[] then, Op[] otherwise) {
    return await(kv.txn().If(compares).Then(then).Else(otherwise).commit());
  }

  /** Whether {@link #close()} was called. */
  boolean closed() {
    return closed.get();
  }

  private <T> T await(CompletableFuture<T> call) {
    try {
      // the interceptor's deadline ends the call; this bounds a client that never calls back
      return call.get(timeout.toMillis() * 2 + 1000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      call.cancel(true);
      throw new Failure("interrupted while waiting for etcd", false, false, e);
    } catch (TimeoutException e) {
      call.cancel(true);
      throw new Failure("etcd did not answer within " + timeout.multipliedBy(2), false, false, e);
    } catch (ExecutionException e) {
      throw failure(e.getCause());
    }
  }

  /** The failure of a call, with the gRPC status and whether the request surely did nothing. */
  private static Failure failure(Throwable cause) {
    Status.Code code = Status.fromThrowable(cause).getCode();
    for (Throwable t = cause; t != null && code == Status.Code.UNKNOWN; t = t.getCause()) {
      if (t instanceof EtcdException etcd) {
        code = Status.Code.valueOf(etcd.getErrorCode().name());
      }
    }
    boolean refused =
        code == Status.Code.INVALID_ARGUMENT
            || code == Status.Code.PERMISSION_DENIED
            || code == Status.Code.UNAUTHENTICATED;
    boolean unsent = false;
    for (Throwable t = cause; t != null && !unsent; t = t.getCause()) {
      unsent = t instanceof Unsent.Marker;
    }
    return new Failure(
        code + ": " + Validate.quote(String.valueOf(cause.getMessage())), refused, unsent, cause);
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      client.close();
    }
  }
}
