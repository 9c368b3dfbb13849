package org.fencekit.store.etcd;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Gives every unary gRPC call that has no deadline one ({@code timeout} from its start): jetcd sets
 * none, so a call to a member that stopped answering (SIGSTOP, a cut link) would wait forever.
 */
final class CallDeadline implements ClientInterceptor {

  private final long nanos;

  CallDeadline(Duration timeout) {
    this.nanos = timeout.toNanos();
  }

  @Override
  public <Q, A> ClientCall<Q, A> interceptCall(
      MethodDescriptor<Q, A> method, CallOptions options, Channel next) {
    boolean unary = method.getType() == MethodDescriptor.MethodType.UNARY;
    return next.newCall(
        method,
        unary && options.getDeadline() == null
            ? options.withDeadlineAfter(nanos, TimeUnit.NANOSECONDS)
            : options);
  }
}
