package org.fencekit.store.etcd;

import io.etcd.jetcd.api.RangeRequest;
import io.etcd.jetcd.api.TxnRequest;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.MethodDescriptor;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test's count of the round trips a store makes to etcd about the keys under one prefix: its
 * transactions and its reads (jetcd's own calls, such as the store's warm-up read of another key,
 * are not counted).
 */
final class CountCalls implements ClientInterceptor {

  private final String prefix;
  private final AtomicInteger txns = new AtomicInteger();
  private final AtomicInteger reads = new AtomicInteger();

  CountCalls(String prefix) {
    this.prefix = prefix;
  }

  /** Transactions sent since the last {@link #reset()}. */
  int txns() {
    return txns.get();
  }

  /** Reads (Range calls) of the prefix's keys since the last {@link #reset()}. */
  int reads() {
    return reads.get();
  }

  void reset() {
    txns.set(0);
    reads.set(0);
  }

  @Override
  public <Q, A> ClientCall<Q, A> interceptCall(
      MethodDescriptor<Q, A> method, CallOptions options, Channel next) {
    return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
      @Override
      public void sendMessage(Q message) {
        if (message instanceof TxnRequest) {
          txns.incrementAndGet();
        } else if (message instanceof RangeRequest range
            && range.getKey().toString(StandardCharsets.UTF_8).startsWith(prefix)) {
          reads.incrementAndGet();
        }
        super.sendMessage(message);
      }
    };
  }
}
