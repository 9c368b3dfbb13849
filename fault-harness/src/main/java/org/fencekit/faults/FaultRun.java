package org.fencekit.faults;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.fencekit.history.Answer;
import org.fencekit.history.Call;
import org.fencekit.history.History;
import org.fencekit.history.HistoryCheck;
import org.fencekit.history.ManualClock;
import org.fencekit.history.Request;
import org.fencekit.store.ClaimId;
import org.fencekit.store.Item;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStore;
import org.fencekit.store.Orphan;

/**
 * Load on one store with a fault injected mid-run, every call and answer recorded in a {@link
 * History}, the history checked afterwards by {@link HistoryCheck} (checks (a) to (g)).
 *
 * <pre>{@code
 * ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
 * OrderStore store = ...built with clock...;
 * FaultReport report = FaultRun.builder("postgres/terminate-backends", store, clock)
 *     .fault(() -> server.terminateBackends(5))
 *     .run();
 * report.assertNoViolations();
 * }</pre>
 *
 * <p>Each of {@link Builder#threads} threads loops over a sliding window of orders: it claims an
 * order and then completes it, fails it, extends then completes it, or abandons it; it reads an
 * order now and then; and it presents tokens other threads were granted earlier, so superseded
 * writes happen all the time. When a claim finds the order in flight the thread sometimes moves the
 * store's {@link ManualClock} past the lease, so orders are taken over without anyone sleeping.
 * Every item and error is unique in the run, so whatever a read shows traces back to the one call
 * that wrote it. Once the threads have made {@link Builder#faultAfterCalls} calls, the {@link
 * Fault} is injected; the threads keep going through it and for {@link Builder#callsAfterFault}
 * calls each after it is over. A call that fails waits 20 ms before the next one (a client backing
 * off), so a dead backend is not hammered. Every run appends its {@link FaultReport#summary()} line
 * to {@code target/fault-summaries.txt} (the system property {@code fencekit.faults.summaries}
 * names another file) and prints it.
 */
public final class FaultRun {

  private final Builder config;
  private final History history;
  private final Map<String, List<ClaimId>> issued = new ConcurrentHashMap<>();
  private final AtomicLong cursor = new AtomicLong();
  private final AtomicLong values = new AtomicLong();
  private volatile List<Map.Entry<String, List<ClaimId>>> beforeFault = List.of();
  private volatile boolean faultIsOver;
  private final String prefix;

  private FaultRun(Builder config) {
    this.config = config;
    this.history = new History(config.clock);
    this.prefix = "fr" + Long.toHexString(new Random().nextLong() & 0xffffffffL) + "-";
  }

  /**
   * A run named {@code name} on {@code store}, whose lease arithmetic uses {@code clock}.
   *
   * @param name the run's name in its summary, {@code backend/fault}
   * @param store the store under load; the run does not close it
   * @param clock the clock the store was built with; the run moves it forward
   */
  public static Builder builder(String name, OrderStore store, ManualClock clock) {
    return new Builder(name, store, clock);
  }

  /** Configures a {@link FaultRun}; every size has a default that keeps a run to seconds. */
  public static final class Builder {
    private final String name;
    private final OrderStore store;
    private final ManualClock clock;
    private int threads = 4;
    private int faultAfterCalls = 200;
    private int callsAfterFault = 40;
    private int minCallsPerThread = 100;
    private Fault fault;
    private boolean dataLoss;
    private Duration recoveryBound = Duration.ofSeconds(20);
    private Duration deadline = Duration.ofSeconds(90);
    private Duration lease = Duration.ofSeconds(30);

    private Builder(String name, OrderStore store, ManualClock clock) {
      this.name = Objects.requireNonNull(name, "name must not be null");
      this.store = Objects.requireNonNull(store, "store must not be null");
      this.clock = Objects.requireNonNull(clock, "clock must not be null");
    }

    /** How many threads make calls; default 4. */
    public Builder threads(int threads) {
      this.threads = atLeast("threads", threads, 1);
      return this;
    }

    /** How many calls the threads make, together, before the fault; default 200. */
    public Builder faultAfterCalls(int calls) {
      this.faultAfterCalls = atLeast("faultAfterCalls", calls, 0);
      return this;
    }

    /** How many calls each thread makes after the fault is over; default 40. */
    public Builder callsAfterFault(int calls) {
      this.callsAfterFault = atLeast("callsAfterFault", calls, 1);
      return this;
    }

    /** How many calls each thread makes at least; default 100. */
    public Builder minCallsPerThread(int calls) {
      this.minCallsPerThread = atLeast("minCallsPerThread", calls, 1);
      return this;
    }

    /** The fault; without one the run is load only. */
    public Builder fault(Fault fault) {
      this.fault = Objects.requireNonNull(fault, "fault must not be null");
      return this;
    }

    /**
     * Whether the fault loses the backend's data (a Redis restart without persistence): then only
     * calls on the same side of the fault are compared, and a token granted before it must never
     * settle anything after it. Default false.
     */
    public Builder dataLoss(boolean dataLoss) {
      this.dataLoss = dataLoss;
      return this;
    }

    /** How long the store may take to answer again once the fault is over; default 20 s. */
    public Builder recoveryBound(Duration bound) {
      this.recoveryBound = Objects.requireNonNull(bound, "recoveryBound must not be null");
      return this;
    }

    /** When the threads stop whatever they have done; default 90 s. */
    public Builder deadline(Duration deadline) {
      this.deadline = Objects.requireNonNull(deadline, "deadline must not be null");
      return this;
    }

    /** Runs the load and the fault, checks the history, and reports. */
    public FaultReport run() {
      return new FaultRun(this).execute();
    }

    private static int atLeast(String name, int value, int min) {
      if (value < min) {
        throw new IllegalArgumentException(name + " must be at least " + min + ", got " + value);
      }
      return value;
    }
  }

  private FaultReport execute() {
    long started = System.nanoTime();
    long deadline = started + config.deadline.toNanos();
    AtomicLong faultStart = new AtomicLong(-1);
    AtomicLong faultEnd = new AtomicLong(-1);
    AtomicInteger faults = new AtomicInteger();
    AtomicReference<Throwable> faultFailure = new AtomicReference<>();
    CountDownLatch faultOver = new CountDownLatch(1);
    Thread injector = null;
    if (config.fault == null) {
      faultOver.countDown();
    } else {
      injector =
          new Thread(
              () -> {
                try {
                  while (history.size() < config.faultAfterCalls && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                  }
                  List<Map.Entry<String, List<ClaimId>>> granted = new ArrayList<>();
                  issued.forEach(
                      (order, claimIds) -> granted.add(Map.entry(order, List.copyOf(claimIds))));
                  beforeFault = granted;
                  faultStart.set(System.nanoTime());
                  faults.set(config.fault.inject());
                } catch (Throwable e) {
                  faultFailure.set(e);
                } finally {
                  faultEnd.set(System.nanoTime());
                  faultIsOver = true;
                  faultOver.countDown();
                }
              },
              "fault-" + config.name);
      injector.start();
    }
    List<Thread> workers = new ArrayList<>();
    List<Throwable> workerFailures = new CopyOnWriteArrayList<>();
    for (int t = 0; t < config.threads; t++) {
      long seed = started + t;
      Thread worker =
          new Thread(
              () -> {
                try {
                  work(new SplittableRandom(seed), deadline, faultOver);
                } catch (Throwable e) {
                  workerFailures.add(e);
                }
              },
              "load-" + config.name + "-" + t);
      workers.add(worker);
      worker.start();
    }
    try {
      for (Thread worker : workers) {
        worker.join(
            TimeUnit.NANOSECONDS.toMillis(Math.max(1, deadline - System.nanoTime())) + 60_000);
      }
      if (injector != null) {
        injector.join();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the run " + config.name, e);
    }
    if (faultFailure.get() != null) {
      throw new IllegalStateException(
          "fault-run " + config.name + ": the fault could not be injected: " + faultFailure.get(),
          faultFailure.get());
    }
    if (!workerFailures.isEmpty()) {
      throw new IllegalStateException(
          "fault-run " + config.name + ": a load thread failed: " + workerFailures.get(0),
          workerFailures.get(0));
    }
    long boundNanos = config.recoveryBound.toNanos();
    long recovered = recovery(faultStart.get(), faultEnd.get(), boundNanos);
    List<Call> calls = history.calls();
    Map<String, Call> finals = new ConcurrentHashMap<>();
    Map<String, List<Orphan>> orphans = new ConcurrentHashMap<>();
    readFinals(calls, finals, orphans, boundNanos);
    HistoryCheck.Result result =
        HistoryCheck.check(
            calls,
            finals,
            orphans,
            faultStart.get(),
            faultEnd.get(),
            config.dataLoss,
            boundNanos,
            recovered);
    Map<Answer, Integer> answers = new EnumMap<>(Answer.class);
    for (Call call : calls) {
      answers.merge(call.answer(), 1, Integer::sum);
    }
    FaultReport report =
        new FaultReport(
            config.name,
            calls.size(),
            faults.get(),
            answers,
            recovered < 0 ? -1 : TimeUnit.NANOSECONDS.toMillis(recovered),
            result);
    publish(report);
    return report;
  }

  private void work(SplittableRandom random, long deadline, CountDownLatch faultOver) {
    int made = 0;
    int afterFault = 0;
    while (System.nanoTime() < deadline) {
      boolean over = faultOver.getCount() == 0;
      if (over && made >= config.minCallsPerThread && afterFault >= config.callsAfterFault) {
        return;
      }
      boolean ok = step(random);
      made++;
      if (over) {
        afterFault++;
      }
      if (!ok) {
        try {
          Thread.sleep(20);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /** One step of a thread's load; false if a call failed. */
  private boolean step(SplittableRandom random) {
    if (config.dataLoss && faultIsOver && !beforeFault.isEmpty() && random.nextDouble() < 0.3) {
      return oldTokenOnRecreatedOrder(random);
    }
    long position = cursor.getAndIncrement() / 8;
    // mostly a sliding window of eight orders; now and then any order seen so far
    String order =
        prefix
            + (random.nextDouble() < 0.1
                ? random.nextLong(position + 1)
                : position + random.nextInt(8));
    double roll = random.nextDouble();
    if (roll < 0.08) {
      return call(Request.get(order)).answer().succeeded();
    }
    if (roll < 0.3) {
      List<ClaimId> claimIds = issued.get(order);
      if (claimIds != null && !claimIds.isEmpty()) {
        ClaimId stale = claimIds.get(random.nextInt(claimIds.size()));
        return settle(random, order, stale, random.nextInt(3)).answer().succeeded();
      }
    }
    Call claim = call(Request.claim(snapshot(order), config.lease));
    if (claim.answer() == Answer.IN_FLIGHT && random.nextDouble() < 0.5) {
      config.clock.advance(config.lease.plusMillis(1));
    }
    if (claim.answer() != Answer.CLAIMED) {
      return claim.answer().succeeded();
    }
    ClaimId claimId = claim.claimId();
    double next = random.nextDouble();
    if (next < 0.15) {
      return true; // abandoned: the lease runs out, someone takes over
    }
    if (next < 0.35) {
      Call extend = settle(random, order, claimId, 2);
      if (!extend.answer().succeeded()) {
        return false;
      }
    }
    // fail more often than complete, so most orders stay claimable and change owners
    return settle(random, order, claimId, next < 0.45 ? 0 : 1).answer().succeeded();
  }

  /**
   * After a data loss: claims an order that existed before it (creating it again), presents a token
   * granted before the loss, then settles with the new token.
   */
  private boolean oldTokenOnRecreatedOrder(SplittableRandom random) {
    Map.Entry<String, List<ClaimId>> old = beforeFault.get(random.nextInt(beforeFault.size()));
    String order = old.getKey();
    Call claim = call(Request.claim(snapshot(order), config.lease));
    ClaimId stale = old.getValue().get(random.nextInt(old.getValue().size()));
    boolean ok = settle(random, order, stale, random.nextInt(3)).answer().succeeded();
    if (claim.answer() == Answer.CLAIMED) {
      ok &= settle(random, order, claim.claimId(), random.nextInt(2)).answer().succeeded();
    }
    return ok && claim.answer().succeeded();
  }

  /** A complete (0), fail (1) or extend (2) with {@code claimId}. */
  private Call settle(SplittableRandom random, String order, ClaimId claimId, int kind) {
    long id = values.incrementAndGet();
    if (kind == 0) {
      return call(Request.complete(order, claimId, new Item("po-" + prefix + id, "code-" + id)));
    }
    if (kind == 1) {
      return call(Request.fail(order, claimId, "err-" + prefix + id));
    }
    return call(Request.extend(order, claimId, config.lease));
  }

  /** Sends {@code request} as the current load thread, records it, and notes a granted claim. */
  private Call call(Request request) {
    Call call = history.call(Thread.currentThread().getName(), request, config.store);
    if (call.answer() == Answer.CLAIMED) {
      issued
          .computeIfAbsent(call.sessionId(), k -> new CopyOnWriteArrayList<>())
          .add(call.claimId());
    }
    return call;
  }

  /**
   * How long after the fault the first call succeeded, probing with fresh claims when none did
   * during the load; -1 if none within the bound.
   */
  private long recovery(long faultStart, long faultEnd, long boundNanos) {
    if (faultStart < 0) {
      return 0;
    }
    long first = Long.MAX_VALUE;
    for (Call call : history.calls()) {
      if (call.startNanos() >= faultEnd && call.answer().succeeded()) {
        first = Math.min(first, call.endNanos());
      }
    }
    if (first != Long.MAX_VALUE) {
      return Math.max(0, first - faultEnd);
    }
    while (System.nanoTime() < faultEnd + boundNanos) {
      String probe = prefix + "probe-" + history.size();
      Call claim =
          history.call("probe", Request.claim(snapshot(probe), config.lease), config.store);
      if (claim.answer().succeeded()) {
        return claim.endNanos() - faultEnd;
      }
      sleepQuietly(100);
    }
    return -1;
  }

  /**
   * Reads each order of {@code calls} once more after everything else, retrying until {@code bound}
   * has passed: its final get (recorded in the run's history, so it is ordered after every call)
   * and its orphans.
   */
  @SuppressWarnings("unchecked")
  private void readFinals(
      List<Call> calls, Map<String, Call> finals, Map<String, List<Orphan>> orphans, long bound) {
    long until = System.nanoTime() + bound;
    Set<String> orders = new LinkedHashSet<>();
    calls.forEach(call -> orders.add(call.sessionId()));
    for (String order : orders) {
      while (true) {
        Call get = history.call("final", Request.get(order), config.store);
        Call found =
            get.failure() == null
                ? history.call("final", Request.orphans(order), config.store)
                : get;
        if (found.failure() == null) {
          finals.put(order, get);
          orphans.put(order, (List<Orphan>) found.result());
          break;
        }
        if (System.nanoTime() > until) {
          break; // check (f) reports the order as unreadable
        }
        sleepQuietly(100);
      }
    }
  }

  private static OrderSnapshot snapshot(String order) {
    return new OrderSnapshot(order, "esim-eu-5gb", 1, null, 1500, "eur");
  }

  private static void sleepQuietly(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void publish(FaultReport report) {
    System.out.println(report.summary());
    Path file =
        Path.of(System.getProperty("fencekit.faults.summaries", "target/fault-summaries.txt"));
    try {
      if (file.getParent() != null) {
        Files.createDirectories(file.getParent());
      }
      Files.writeString(
          file,
          report.summary() + System.lineSeparator(),
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      System.err.println("fault-run: cannot append the summary to " + file + ": " + e);
    }
  }
}
