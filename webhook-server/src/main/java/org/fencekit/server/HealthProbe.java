package org.fencekit.server;

import com.google.gson.JsonObject;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.fencekit.store.ClaimId;
import org.fencekit.store.OrderStore;
import org.fencekit.store.UnknownOrderException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the store can be written, for {@code GET /health}: a heartbeat ({@code extend}) for an
 * order that never exists, which every store decides on its write path (SQLite's write lock,
 * PostgreSQL's row lock, Redis's write script) and answers "unknown order" without writing
 * anything. One probe runs at a time on a thread of its own; health checks that arrive meanwhile
 * share its answer, and none waits longer than the timeout.
 */
public final class HealthProbe implements AutoCloseable {

  /** The order the probe asks about; never a Checkout session id ({@code cs_...}). */
  static final String PROBE_ORDER = "fencekit-health-probe";

  private static final Logger LOG = LoggerFactory.getLogger(HealthProbe.class);

  /**
   * The probe's outcome.
   *
   * @param ok whether the store takes writes
   * @param json one line of JSON saying so ({@code status}, {@code reason}; {@code error} if not)
   */
  public record Result(boolean ok, String json) {}

  private final OrderStore store;
  private final Duration timeout;
  private final ExecutorService thread =
      Executors.newSingleThreadExecutor(
          runnable -> WebhookCore.daemon(runnable, "fencekit-health"));
  private final AtomicReference<CompletableFuture<Result>> running = new AtomicReference<>();

  /**
   * A probe of {@code store}; {@link #close()} stops its thread.
   *
   * @param store the store to ask
   * @param timeout how long a check waits for the store
   */
  public HealthProbe(OrderStore store, Duration timeout) {
    this.store = store;
    this.timeout = timeout;
  }

  /** The current probe's result, or a new probe's if none is running; at most the timeout. */
  public CompletableFuture<Result> check() {
    CompletableFuture<Result> probe = running.get();
    if (probe == null || probe.isDone()) {
      CompletableFuture<Result> fresh = new CompletableFuture<>();
      if (running.compareAndSet(probe, fresh)) {
        try {
          thread.execute(() -> fresh.complete(probe()));
        } catch (RuntimeException e) {
          fresh.complete(unavailable("the health probe could not start (shutting down)"));
        }
      }
      probe = running.get();
    }
    return probe
        .copy()
        .completeOnTimeout(
            unavailable("the store did not answer a write within " + timeout.toMillis() + " ms"),
            timeout.toMillis(),
            TimeUnit.MILLISECONDS);
  }

  /** The probe, run once: the same answer as {@code /health}'s. */
  public Result probe() {
    try {
      store.extend(PROBE_ORDER, new ClaimId(1, ClaimId.newNonce()), Duration.ofSeconds(1));
    } catch (UnknownOrderException e) {
      // the store took the write path and found no such order: it can be written
    } catch (RuntimeException e) {
      LOG.warn("health: the store cannot be written: {}", e.getMessage());
      return unavailable("the store cannot be written: " + e.getMessage());
    }
    JsonObject json = new JsonObject();
    json.addProperty("status", "ok");
    json.addProperty("store", store.toString());
    json.addProperty("reason", "the store takes writes");
    return new Result(true, json.toString());
  }

  private static Result unavailable(String reason) {
    JsonObject json = new JsonObject();
    json.addProperty("status", "unavailable");
    json.addProperty("error", "store_unavailable");
    json.addProperty("reason", Untrusted.text(reason, 500));
    return new Result(false, json.toString());
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
