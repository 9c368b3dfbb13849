package org.fencekit.server;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Scheduler;
import org.fencekit.store.OrderStore;
import org.fencekit.webhook.Answer;
import org.fencekit.webhook.HealthProbe;
import org.fencekit.webhook.SuccessPage;
import org.fencekit.webhook.Untrusted;
import org.fencekit.webhook.WebhookCore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's routes on Jetty: {@code POST /webhook}, {@code GET /checkout/success}, {@code GET
 * /health} and {@code GET /metrics}. Every answer is one line of JSON (Prometheus text for the
 * metrics). What the webhook and the success page answer is decided by the {@link WebhookCore};
 * this class reads requests (a delivery's body without holding a thread, so a slow client holds its
 * connection only) and writes answers. {@code /health} and {@code /metrics} never wait for a
 * delivery slot.
 */
final class WebhookEndpoint extends Handler.Abstract {

  private static final Logger LOG = LoggerFactory.getLogger(WebhookEndpoint.class);

  private final WebhookCore core;
  private final PrometheusMeterRegistry registry;
  private final int maxBodyBytes;
  private final HealthProbe health;

  WebhookEndpoint(WebhookCore core, OrderStore store, PrometheusMeterRegistry registry) {
    this.core = core;
    this.registry = registry;
    this.maxBodyBytes = core.limits().maxBodyBytes();
    this.health = new HealthProbe(store, HealthProbe.DEFAULT_TIMEOUT);
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    String path = Request.getPathInContext(request);
    String allowed =
        switch (path) {
          case "/webhook" -> "POST";
          case "/health", "/metrics", SuccessPage.PATH -> "GET";
          default -> null;
        };
    if (allowed == null) {
      return write(
          response,
          callback,
          Answer.error(
              404, "not_found", "no route " + Untrusted.id(path) + "; Stripe posts to /webhook"));
    }
    if (!request.getMethod().equals(allowed)) {
      return write(response, callback, core.methodNotAllowed(allowed, path.equals("/webhook")));
    }
    switch (path) {
      case "/webhook" -> {
        new BodyReader(request, response, callback).start(core.beforeBody(request.getLength()));
      }
      case "/health" -> {
        if (core.draining()) {
          return write(response, callback, core.shuttingDown(false));
        }
        health
            .check()
            .whenComplete(
                (result, failure) ->
                    write(
                        response,
                        callback,
                        result == null
                            ? Answer.error(503, "store_unavailable", "no answer")
                            : result.answer()));
      }
      case SuccessPage.PATH -> {
        String sessionId = Request.extractQueryParameters(request).getValue("session_id");
        core.successPage(sessionId)
            .whenComplete((answer, failure) -> write(response, callback, answer, failure));
      }
      case "/metrics" -> {
        response.setStatus(200);
        response
            .getHeaders()
            .put(HttpHeader.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8");
        response.write(
            true, ByteBuffer.wrap(registry.scrape().getBytes(StandardCharsets.UTF_8)), callback);
      }
      default ->
          // a path with a method above and no handler here would otherwise never be answered
          throw new IllegalStateException(
              "route " + path + " allows " + allowed + " but has no handler in WebhookEndpoint");
    }
    return true;
  }

  /**
   * Reads a delivery's body without holding a thread: chunks as they arrive, at most {@code
   * maxBodyBytes}, all of it within {@code bodyTimeout}; then hands the delivery on. A delivery
   * refused before its body is whole (a declared or sent length over the limit, shutting down) is
   * answered at once; what it still sends is then read and discarded, up to {@link
   * WebhookCore#DRAIN_FACTOR} times the limit and within the body timeout, before the connection
   * closes: closing on a client still sending resets the connection, and the reset can destroy the
   * answer before the client reads it.
   */
  private final class BodyReader implements Runnable {
    private final Request request;
    private final Response response;
    private final Callback callback;
    private final AtomicBoolean answered = new AtomicBoolean();
    private final AtomicBoolean finished = new AtomicBoolean();
    private final AtomicBoolean discardEnded = new AtomicBoolean();
    // the refusal's two parts, its answer written and the rest of the body discarded
    private final AtomicInteger refusalParts = new AtomicInteger(2);
    private volatile boolean discarding;
    private byte[] body = new byte[4096];
    private int size;
    private long discarded;
    private Scheduler.Task deadline;

    BodyReader(Request request, Response response, Callback callback) {
      this.request = request;
      this.response = response;
      this.callback = callback;
    }

    /** Reads the body, or answers {@code early} at once and discards the body if not null. */
    void start(Answer early) {
      deadline =
          request
              .getComponents()
              .getScheduler()
              .schedule(
                  this::timedOut, core.limits().bodyTimeout().toMillis(), TimeUnit.MILLISECONDS);
      if (early != null) {
        refuseAndDiscard(early);
      }
      run();
    }

    @Override
    public void run() {
      while (!finished.get()) {
        var chunk = request.read();
        if (chunk == null) {
          request.demand(this);
          return;
        }
        if (chunk.getFailure() != null) {
          boolean idle = chunk.getFailure() instanceof TimeoutException;
          chunk.release();
          if (discarding) {
            endDiscard();
          } else {
            refuse(idle ? core.bodyStalled() : core.unreadableBody());
          }
          return;
        }
        ByteBuffer bytes = chunk.getByteBuffer();
        int n = bytes.remaining();
        boolean last = chunk.isLast();
        if (!discarding && (long) size + n > maxBodyBytes) {
          refuseAndDiscard(core.tooLarge("more than " + maxBodyBytes + " bytes sent"));
        }
        if (discarding) {
          discarded += n;
          chunk.release();
          if (last || discarded > WebhookCore.DRAIN_FACTOR * maxBodyBytes) {
            endDiscard();
            return;
          }
          continue;
        }
        if (size + n > body.length) {
          body = Arrays.copyOf(body, Math.min(maxBodyBytes, Math.max(2 * body.length, size + n)));
        }
        bytes.get(body, size, n);
        size += n;
        chunk.release();
        if (last) {
          if (answered.compareAndSet(false, true)) {
            deadline.cancel();
            core.webhook(request.getHeaders().get("Stripe-Signature"), Arrays.copyOf(body, size))
                .whenComplete((answer, failure) -> write(response, callback, answer, failure));
          }
          return;
        }
      }
    }

    private void timedOut() {
      if (discarding) {
        endDiscard();
      } else {
        refuse(core.bodyTimedOut());
      }
    }

    /** Answers now, with nothing more to read. */
    private void refuse(Answer answer) {
      if (answered.compareAndSet(false, true)) {
        deadline.cancel();
        finished.set(true);
        write(response, callback, answer);
      }
    }

    /** Answers now; the request ends once the answer is written and the body discarded. */
    private void refuseAndDiscard(Answer answer) {
      if (answered.compareAndSet(false, true)) {
        discarding = true;
        write(response, Callback.from(this::refusalPartDone, this::fail), answer);
      }
    }

    private void endDiscard() {
      if (discardEnded.compareAndSet(false, true)) {
        refusalPartDone();
      }
    }

    private void refusalPartDone() {
      if (refusalParts.decrementAndGet() == 0 && finished.compareAndSet(false, true)) {
        deadline.cancel();
        callback.succeeded();
      }
    }

    private void fail(Throwable failure) {
      if (finished.compareAndSet(false, true)) {
        deadline.cancel();
        callback.failed(failure);
      }
    }
  }

  /** Stops the delivery pool and the health thread (after draining). */
  void release() {
    core.close();
    health.close();
  }

  /** Writes the core's answer, or a 500 if it failed to make one. */
  private static void write(
      Response response, Callback callback, Answer answer, Throwable failure) {
    if (answer == null) {
      LOG.error("the answer could not be made", failure);
      answer = Answer.failed();
    }
    write(response, callback, answer);
  }

  private static boolean write(Response response, Callback callback, Answer answer) {
    for (Map.Entry<String, String> header : answer.headers().entrySet()) {
      response.getHeaders().put(header.getKey(), header.getValue());
    }
    response.setStatus(answer.status());
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.write(
        true, ByteBuffer.wrap((answer.body() + "\n").getBytes(StandardCharsets.UTF_8)), callback);
    return true;
  }
}
