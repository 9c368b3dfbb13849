package org.fencekit.fulfilment.scenarios;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.fencekit.fulfilment.ProviderException;
import org.fencekit.fulfilment.Purchase;
import org.fencekit.store.Item;
import org.fencekit.store.OrderField;
import org.fencekit.store.OrderSnapshot;

/**
 * A provider the scenarios control, shared by every handler instance of a run: each call takes the
 * next {@link Behaviour} queued with {@link #next}, and every purchase is counted per order. By
 * default it honours idempotency keys as Stripe-style providers do: a call with a key it has bought
 * for before hands that purchase back instead of buying again.
 */
public final class FakeProvider {

  private final ScenarioRun run;
  private final Deque<Behaviour> script = new ArrayDeque<>();
  private final List<ProviderCall> calls = new ArrayList<>();
  private final List<Bought> purchases = new ArrayList<>();
  private final Map<String, Bought> byKey = new HashMap<>();
  private final Map<String, String> sharedKeys = new HashMap<>();
  private final Map<String, String> wrongGoods = new HashMap<>();
  private boolean honoursKeys = true;

  FakeProvider(ScenarioRun run) {
    this.run = run;
  }

  /** A purchase the provider made. */
  record Bought(String sessionId, Item item) {}

  /** Queues what the next calls do, in order. */
  public FakeProvider next(Behaviour... behaviours) {
    synchronized (this) {
      script.addAll(List.of(behaviours));
    }
    String java = Stream.of(behaviours).map(Behaviour::java).collect(Collectors.joining(", "));
    run.replay().line("run.provider().next(" + java + ");");
    return this;
  }

  /**
   * Whether a call with an idempotency key bought for before hands back that purchase (the default)
   * or buys again, as a provider without idempotency keys does.
   */
  public FakeProvider honourIdempotencyKeys(boolean honours) {
    synchronized (this) {
      honoursKeys = honours;
    }
    run.replay().line("run.provider().honourIdempotencyKeys(" + honours + ");");
    run.timeline().add("kit", "the provider " + (honours ? "honours" : "ignores") + " keys");
    return this;
  }

  /**
   * Waits, in real time but bounded by the run's patience, until the {@code n}-th call (counting
   * from 1, over all instances) has reached the provider.
   */
  public ProviderCall awaitCall(int n) {
    run.replay().line("run.provider().awaitCall(" + n + ");");
    return call(n);
  }

  private ProviderCall call(int n) {
    long deadline = System.nanoTime() + run.patience().toNanos();
    synchronized (this) {
      while (calls.size() < n) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw run.failure(
              String.format(
                  "the provider got %s call(s) within %s, the scenario waits for call %s",
                  calls.size(), Timeline.format(run.patience()), n));
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(this, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw run.failure("interrupted while waiting for provider call " + n);
        }
      }
      return calls.get(n - 1);
    }
  }

  /** Waits for the {@code n}-th call and releases it: it buys and answers. */
  public void release(int n) {
    run.replay().line("run.provider().release(" + n + ");");
    call(n).release(Behaviour.succeed());
  }

  /**
   * Waits for the {@code n}-th call and releases it with a failure, which certainly bought nothing
   * if {@code nothingBought}, else bought and then timed out.
   */
  public void releaseWithFailure(int n, String error, boolean nothingBought) {
    run.replay()
        .line(
            String.format(
                "run.provider().releaseWithFailure(%s, %s, %s);",
                n, Replay.quote(error), nothingBought));
    call(n)
        .release(
            nothingBought
                ? Behaviour.refuse(error)
                : new Behaviour(Behaviour.Kind.BUY_THEN_TIME_OUT, error));
  }

  /**
   * What the first call for {@code sessionId} that asked for other goods than the order's asked
   * for, in words, or {@code null} if every call asked for the order's product, quantity and
   * amount.
   */
  synchronized String wrongGoods(String sessionId) {
    return wrongGoods.get(sessionId);
  }

  /** How many purchases were made for the order (idempotent replays do not count). */
  public synchronized int purchases(String sessionId) {
    return items(sessionId).size();
  }

  /**
   * The order whose purchase was handed back to a call for {@code sessionId} because both sent the
   * same idempotency key, or {@code null} if none was.
   */
  synchronized String keySharedWith(String sessionId) {
    return sharedKeys.get(sessionId);
  }

  /** The items bought for the order, in the order they were bought. */
  public synchronized List<Item> items(String sessionId) {
    return purchases.stream()
        .filter(bought -> bought.sessionId().equals(sessionId))
        .map(Bought::item)
        .collect(Collectors.toList());
  }

  /** How many calls reached the provider for the order. */
  public synchronized int calls(String sessionId) {
    return (int) calls.stream().filter(call -> call.sessionId().equals(sessionId)).count();
  }

  /** All calls so far, in arrival order. */
  public synchronized List<ProviderCall> calls() {
    return List.copyOf(calls);
  }

  /** A call from {@code instance}: the provider as that instance sees it. */
  Item buy(Instance instance, Purchase purchase) throws ProviderException, InterruptedException {
    // the run's lock before this one, as everywhere
    OrderSnapshot ordered = run.orderOf(purchase.sessionId());
    boolean otherCart = run.isOtherCart(purchase.snapshot());
    ProviderCall call;
    synchronized (this) {
      Behaviour behaviour = script.isEmpty() ? Behaviour.succeed() : script.poll();
      call = new ProviderCall(this, calls.size() + 1, instance, purchase, behaviour);
      calls.add(call);
      if (ordered != null && !OrderField.differing(ordered, purchase.snapshot()).isEmpty()) {
        wrongGoods.putIfAbsent(
            purchase.sessionId(),
            otherCart
                ? otherCartBought(call, ordered)
                : String.format(
                    "provider call #%s for order '%s' asked for %s; the order is %s: buy the"
                        + " session's product and quantity, for its amount",
                    call.number(),
                    run.report().label(purchase.sessionId()),
                    goods(purchase.snapshot()),
                    goods(ordered)));
      }
      notifyAll();
    }
    run.timeline()
        .add(
            instance.name(),
            String.format(
                "provider call #%s for %s with key %s: %s",
                call.number(),
                run.report().label(purchase.sessionId()),
                purchase.idempotencyKey(),
                call.behaviour().kind()));
    return call.perform();
  }

  // Called with this provider's lock held: the call asked for another cart of the order's session.
  private String otherCartBought(ProviderCall call, OrderSnapshot ordered) {
    String key = call.purchase().idempotencyKey();
    boolean ownKey =
        calls.stream()
            .anyMatch(
                earlier ->
                    earlier != call
                        && earlier.sessionId().equals(call.sessionId())
                        && earlier.purchase().idempotencyKey().equals(key));
    return String.format(
        "provider call #%s for order '%s' asked for %s, the other cart delivered under the order's"
            + " session id, %s; the order stored under it is %s: another order under one session"
            + " id must buy nothing (its claim is answered Mismatch) and be answered for a retry",
        call.number(),
        run.report().label(call.sessionId()),
        goods(call.purchase().snapshot()),
        ownKey ? "under the order's own key" : "under another key",
        goods(ordered));
  }

  /** {@code esim-eu-5gb x3 for 4500 eur}. */
  static String goods(OrderSnapshot order) {
    return String.format(
        "%s x%s for %s %s",
        order.productId(), order.quantity(), order.amountTotal(), order.currency());
  }

  /** Buys for the call (or hands back the key's purchase) and returns the item. */
  Item purchase(ProviderCall call) {
    String key = call.purchase().idempotencyKey();
    String sessionId = call.purchase().sessionId();
    Item item;
    boolean replayed;
    synchronized (this) {
      Bought earlier = honoursKeys ? byKey.get(key) : null;
      replayed = earlier != null;
      if (replayed) {
        item = earlier.item();
        if (!earlier.sessionId().equals(sessionId)) {
          sharedKeys.putIfAbsent(sessionId, earlier.sessionId());
        }
      } else {
        int number = purchases.size() + 1;
        item = new Item("prov-" + number, "LPA:1$smdp.fake.example$ACTIVATION-" + number);
        Bought bought = new Bought(sessionId, item);
        purchases.add(bought);
        byKey.putIfAbsent(key, bought);
      }
    }
    run.timeline()
        .add(
            call.instance().name(),
            "provider call #"
                + call.number()
                + (replayed
                    ? " handed back earlier purchase " + item.providerOrderId() + " for its key"
                    : " bought " + item.providerOrderId()));
    return item;
  }

  /** Ends every call still waiting (at the end of a run), so no thread is left parked. */
  void releaseAll() {
    calls().forEach(ProviderCall::abandon);
  }

  /**
   * One call that reached the provider. A hanging call is released by the test with {@link
   * FakeProvider#release} or {@link FakeProvider#releaseWithFailure}.
   */
  public static final class ProviderCall {

    private final FakeProvider provider;
    private final int number;
    private final Instance instance;
    private final Purchase purchase;
    private final Behaviour behaviour;
    private final CountDownLatch released = new CountDownLatch(1);
    private volatile Behaviour releasedWith;
    private volatile boolean abandoned;
    private volatile boolean interrupted;
    private volatile boolean resumed;

    ProviderCall(
        FakeProvider provider, int number, Instance instance, Purchase purchase, Behaviour b) {
      this.provider = provider;
      this.number = number;
      this.instance = instance;
      this.purchase = purchase;
      this.behaviour = b;
    }

    /** Its number, counting from 1 over the run. */
    public int number() {
      return number;
    }

    /** The order it is for. */
    public String sessionId() {
      return purchase.sessionId();
    }

    /** What the handler sent: the order, the key and the attempt's ownership. */
    public Purchase purchase() {
      return purchase;
    }

    /** What it was told to do. */
    public Behaviour behaviour() {
      return behaviour;
    }

    /** The instance that made it. */
    Instance instance() {
      return instance;
    }

    /** Whether the handler interrupted the thread making it. */
    public boolean interrupted() {
      return interrupted;
    }

    void release(Behaviour with) {
      ScenarioRun run = provider.run;
      if (behaviour.kind() != Behaviour.Kind.HANG) {
        throw run.failure("provider call #" + number + " does not hang; it cannot be released");
      }
      run.timeline().add("kit", "releases provider call #" + number + " to " + with.kind());
      releasedWith = with;
      released.countDown();
      run.quiesce();
    }

    private void abandon() {
      abandoned = true;
      released.countDown();
    }

    Item perform() throws ProviderException, InterruptedException {
      switch (behaviour.kind()) {
        case HANG:
          awaitRelease();
          if (abandoned) {
            throw new ScenarioRun.RunEnded();
          }
          return buyOrFail(releasedWith);
        case CRASH_BEFORE_BUYING:
          instance.crash("its provider call #" + number + " had not reached the provider");
          awaitRelease();
          throw new ScenarioRun.RunEnded();
        case CRASH_AFTER_BUYING:
          provider.purchase(this);
          instance.crash("the provider answered call #" + number + ", nothing recorded it");
          awaitRelease();
          throw new ScenarioRun.RunEnded();
        default:
          return buyOrFail(behaviour);
      }
    }

    // What a call told to succeed, refuse or buy then time out does (at once, or once released).
    private Item buyOrFail(Behaviour what) throws ProviderException {
      if (what.kind() == Behaviour.Kind.REFUSE) {
        throw ProviderException.nothingBought(what.error());
      }
      Item item = provider.purchase(this);
      if (what.kind() == Behaviour.Kind.BUY_THEN_TIME_OUT) {
        throw ProviderException.outcomeUnknown(what.error(), null);
      }
      return item;
    }

    /** Whether it was released but its thread has not yet woken up to act on it. */
    boolean waking() {
      return released.getCount() == 0 && !resumed;
    }

    // Waits until released, ignoring interrupts (as a blocking HTTP client does) but noting them.
    private void awaitRelease() {
      while (true) {
        try {
          if (released.await(1, TimeUnit.HOURS)) {
            resumed = true;
            return;
          }
        } catch (InterruptedException e) {
          if (!interrupted) {
            interrupted = true;
            provider
                .run
                .timeline()
                .add(instance.name(), "provider call #" + number + " interrupted");
          }
        }
      }
    }

    @Override
    public String toString() {
      return "provider call #" + number + " (" + behaviour.kind() + ")";
    }
  }
}
