package org.fencekit.store.etcd;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test's hand on the store's gRPC calls: it loses the answer of the next transactions, after etcd
 * applied them or before they are sent, and can refuse every call for a while.
 */
final class LoseAnswers implements ClientInterceptor {

  private static final String TXN = "etcdserverpb.KV/Txn";

  private final AtomicInteger afterCommit = new AtomicInteger();
  private final AtomicInteger beforeSending = new AtomicInteger();
  private volatile Runnable onLoss = () -> {};
  private volatile boolean down;

  /**
   * The next transaction reaches etcd; its answer is replaced by UNAVAILABLE after {@code then}.
   */
  void loseAfterCommit(Runnable then) {
    onLoss = then;
    afterCommit.set(1);
  }

  /** The next transaction is never sent: it fails UNAVAILABLE after {@code then} runs. */
  void loseBeforeSending(Runnable then) {
    onLoss = then;
    beforeSending.set(1);
  }

  /** While true, every call fails UNAVAILABLE without being sent. */
  void down(boolean down) {
    this.down = down;
  }

  @Override
  public <Q, A> ClientCall<Q, A> interceptCall(
      MethodDescriptor<Q, A> method, CallOptions options, Channel next) {
    boolean txn = method.getFullMethodName().equals(TXN);
    if (down || (txn && take(beforeSending))) {
      Runnable then = down ? () -> {} : onLoss;
      return new Refused<>(then);
    }
    if (!txn || !take(afterCommit)) {
      return next.newCall(method, options);
    }
    Runnable then = onLoss;
    return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
      @Override
      public void start(Listener<A> listener, Metadata headers) {
        super.start(
            new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
              @Override
              public void onMessage(A message) {
                // the answer is lost
              }

              @Override
              public void onClose(Status status, Metadata trailers) {
                then.run();
                super.onClose(
                    Status.UNAVAILABLE.withDescription(
                        "the test lost the answer (was " + status + ")"),
                    new Metadata());
              }
            },
            headers);
      }
    };
  }

  private static boolean take(AtomicInteger count) {
    return count.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
  }

  /** A call that is never sent and fails at once. */
  private static final class Refused<Q, A> extends ClientCall<Q, A> {
    private final Runnable then;

    Refused(Runnable then) {
      this.then = then;
    }

    @Override
    public void start(Listener<A> listener, Metadata headers) {
      then.run();
      listener.onClose(
          Status.UNAVAILABLE.withDescription("the test refused the call"), new Metadata());
    }

    @Override
    public void request(int n) {}

    @Override
    public void cancel(String message, Throwable cause) {}

    @Override
    public void halfClose() {}

    @Override
    public void sendMessage(Q message) {}
  }
}
