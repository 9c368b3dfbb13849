package org.fencekit.history;

import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.fencekit.store.OrderStore;

/**
 * The recorded history of store calls one test made: every call with its caller, its request, the
 * clock and one sequence of invocations and responses shared by all threads, so the checks can tell
 * which calls overlapped. The TCK, the fault harness and the scenario kit record through it, and
 * read it back with {@link #calls()} or {@link #byOrder()}.
 *
 * <p>Safe for many threads: calls may be recorded from any thread at once.
 */
public final class History {

  private final Clock clock;
  private final AtomicLong sequence = new AtomicLong();
  private final List<Call> calls = new ArrayList<>();

  /**
   * @param clock the clock each call's {@link Call#at()} is read from
   */
  public History(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * Sends {@code request} to {@code store} and records it; never throws for what the store threw
   * (the call carries it).
   */
  public Call call(String caller, Request request, OrderStore store) {
    return call(caller, request, () -> request.sendTo(store));
  }

  /**
   * Runs {@code body} as the call {@code request} asked for (a layer between the caller and the
   * store: a fault injected, a network that fails) and records it; never throws for what {@code
   * body} threw (the call carries it).
   */
  public Call call(String caller, Request request, Supplier<?> body) {
    Objects.requireNonNull(caller, "caller");
    Objects.requireNonNull(request, "request");
    long invoked = sequence.incrementAndGet();
    var at = clock.instant();
    long start = System.nanoTime();
    Object result = null;
    Throwable failure = null;
    try {
      result = body.get();
    } catch (RuntimeException | Error e) {
      failure = e;
    }
    long end = System.nanoTime();
    Call call =
        new Call(
            invoked, sequence.incrementAndGet(), start, end, caller, request, at, result, failure);
    synchronized (calls) {
      calls.add(call);
    }
    return call;
  }

  /**
   * {@code store} as {@code caller} sees it: each call goes to {@code store}, is recorded here, and
   * answers or throws what the store did. Closing it closes {@code store}.
   */
  public OrderStore recording(OrderStore store, String caller) {
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(caller, "caller");
    return new RequestStore() {
      @Override
      protected Object send(Request request) {
        return call(caller, request, store).resultOrThrow();
      }

      @Override
      public void close() {
        store.close();
      }

      @Override
      public String toString() {
        return store.toString();
      }
    };
  }

  /** Every call recorded so far, in the order they returned. */
  public List<Call> calls() {
    synchronized (calls) {
      return List.copyOf(calls);
    }
  }

  /** How many calls are recorded so far. */
  public int size() {
    synchronized (calls) {
      return calls.size();
    }
  }

  /** The calls recorded so far, per order (orders in the order first seen). */
  public Map<String, List<Call>> byOrder() {
    Map<String, List<Call>> orders = new LinkedHashMap<>();
    for (Call call : calls()) {
      orders.computeIfAbsent(call.sessionId(), k -> new ArrayList<>()).add(call);
    }
    return orders;
  }
}
