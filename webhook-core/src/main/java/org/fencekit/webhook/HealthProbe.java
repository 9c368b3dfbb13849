package org.fencekit.webhook;

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

  /** How long a health check waits for the store: 5 s, then it answers unavailable. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

  /** The order the probe asks about; never a Checkout session id ({@code cs_...}). */
  static final String PROBE_ORDER = "fencekit-health-probe";

  private static final Logger LOG = LoggerFactory.getLogger(HealthProbe.class);

  /**
   * The probe's outcome.
   *
   * @param ok whether the store takes writes
   * @param store the store, as it names itself, when it takes writes; else {@code null}
   * @param reason why, in one bounded line
   */
  public record Result(boolean ok, String store, String reason) {

    /** The error of a store that does not take writes ({@code store_unavailable}), else null. */
    public String error() {
      return ok ? null : "store_unavailable";
    }

    /**
     * The answer to {@code GET /health}: 200 with the JSON line, or 503 {@code store_unavailable}.
     */
    public Answer answer() {
      return new Answer(ok ? 200 : 503, error(), json(), java.util.Map.of());
    }

    /** One line of JSON: {@code status} ok or unavailable, then store or error, and reason. */
    public String json() {
      JsonObject json = new JsonObject();
      json.addProperty("status", ok ? "ok" : "unavailable");
      if (ok) {
        json.addProperty("store", store);
      } else {
        json.addProperty("error", error());
      }
      json.addProperty("reason", reason);
      return json.toString();
    }
  }

  private final OrderStore store;
  private final Duration timeout;
  private final ExecutorService thread =
      Executors.newSingleThreadExecutor(DeliverySlots.daemons("fencekit-health-"));
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
    return new Result(true, store.toString(), "the store takes writes");
  }

  private static Result unavailable(String reason) {
    return new Result(false, null, Untrusted.text(reason, 500));
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
