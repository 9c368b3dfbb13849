package org.fencekit.store.etcd;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientStreamTracer;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;

/**
 * Marks a call that failed before any member could have received it: gRPC never created a stream
 * for it on a connected transport (every member refused the connection or none was reachable, so
 * the call waited for one until its deadline). Its failure then carries {@link Marker} as its
 * cause, and a transaction so marked surely changed nothing. Any call that got a stream is left as
 * it is: once a request may be on the wire, only the cluster knows whether it landed.
 */
final class Unsent implements ClientInterceptor {

  /** The cause of a call's failure when no member can have received the call. */
  static final class Marker extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Marker(Throwable cause) {
      super("the call was never sent: no stream to any member was opened", cause, false, false);
    }
  }

  @Override
  public <Q, A> ClientCall<Q, A> interceptCall(
      MethodDescriptor<Q, A> method, CallOptions options, Channel next) {
    Streams streams = new Streams();
    ClientCall<Q, A> call = next.newCall(method, options.withStreamTracerFactory(streams));
    return new ForwardingClientCall.SimpleForwardingClientCall<>(call) {
      @Override
      public void start(Listener<A> listener, Metadata headers) {
        super.start(
            new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
              @Override
              public void onClose(Status status, Metadata trailers) {
                super.onClose(
                    status.isOk() || streams.created
                        ? status
                        : status.withCause(new Marker(status.getCause())),
                    trailers);
              }
            },
            headers);
      }
    };
  }

  /** Whether a stream for the call was created on a connected transport. */
  private static final class Streams extends ClientStreamTracer.Factory {
    volatile boolean created;

    @Override
    public ClientStreamTracer newClientStreamTracer(
        ClientStreamTracer.StreamInfo info, Metadata headers) {
      return new ClientStreamTracer() {
        @Override
        public void streamCreated(io.grpc.Attributes transportAttrs, Metadata headers) {
          created = true;
        }
      };
    }
  }
}
