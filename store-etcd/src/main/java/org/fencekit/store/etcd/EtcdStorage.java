package org.fencekit.store.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.fencekit.store.Mismatch;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.Orphan;
import org.fencekit.store.OrphanId;
import org.fencekit.store.OrphanRecord;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.spi.AdminStorage;
import org.fencekit.store.spi.Validate;

/**
 * The store's storage on etcd: an optimistic atomic step per operation (a decision on the order as
 * guessed, or read linearizably, then one transaction that compares that and writes the order with
 * its index keys, else returns the order to decide again on), and the listings as range reads of
 * the index keys ({@link EtcdKeys}).
 */
final class EtcdStorage implements AdminStorage {

  /** How often a decision is made again after its transaction lost a race (a failed compare). */
  static final int COMPARE_RETRIES = 64;

  /** How many earlier versions of an order are read to find whether a write of ours landed. */
  private static final int LOOK_BACK = 64;

  /** Rows per range read while a failed listing filters. */
  private static final int SCAN_BATCH = 256;

  private static final String BACKEND = "etcd";
  private static final Op[] NONE = new Op[0];

  private final EtcdClient etcd;
  private final EtcdKeys keys;
  private final Duration budget;
  private final LastSeen lastSeen = new LastSeen();

  /**
   * @param budget how long an operation keeps trying through failures before it gives up
   */
  EtcdStorage(EtcdClient etcd, EtcdKeys keys, Duration budget) {
    this.etcd = etcd;
    this.keys = keys;
    this.budget = budget;
  }

  @Override
  public String backend() {
    return BACKEND;
  }

  /**
   * The transactions this call sent whose answers were lost: each compared the order's revision
   * with {@link #expected}, so at most one of them landed, and only as the first write after it.
   */
  private static final class Pending<T> {
    final long expected;
    final Map<String, T> results = new HashMap<>();

    Pending(long expected) {
      this.expected = expected;
    }
  }

  @Override
  public <T> T atomically(String operation, String sessionId, Work<T> work) {
    requireOpen(operation, sessionId);
    ByteSequence key = keys.order(sessionId);
    long giveUpAt = System.nanoTime() + budget.toNanos();
    Pending<T> pending = null;
    KeyValue current = null;
    boolean known = false; // whether current is what the last answer said, no read needed
    boolean guess = true; // the first decision rests on a guess its transaction's compare checks
    int lostRaces = 0;
    while (true) {
      try {
        OrderRecord before;
        long revision;
        boolean guessed = guess;
        guess = false;
        if (guessed) {
          // what this store wrote or read last, else no order yet (a first claim)
          LastSeen.Seen seen = lastSeen.get(sessionId);
          before = seen == null ? null : seen.record();
          revision = seen == null ? 0 : seen.revision();
        } else {
          if (!known) {
            current = first(etcd.get(key));
          }
          before =
              current == null ? null : EtcdCodec.readOrder(text(key), current.getValue()).record();
          revision = current == null ? 0 : current.getModRevision();
          lastSeen.put(sessionId, before, revision);
        }
        known = false;
        if (pending != null && revision != pending.expected) {
          String landed = writeIdAfter(key, current, pending.expected);
          if (landed == null) {
            throw new StoreUnavailableException(
                BACKEND,
                operation,
                sessionId,
                true,
                "the order changed while a write's answer was lost, and its versions since could"
                    + " not be read (compacted, or more than "
                    + LOOK_BACK
                    + " writes since); read the order to see where it stands",
                null);
          }
          if (pending.results.containsKey(landed)) {
            return pending.results.get(landed);
          }
          pending = null; // another write followed what ours compared with: none of ours can land
        }
        Step step = new Step(before);
        T result;
        try {
          result = work.run(step);
        } catch (RuntimeException refusal) {
          if (guessed) {
            continue; // such as no order to complete: said only on a linearizable read
          }
          throw refusal;
        }
        if (guessed && step.next == null) {
          continue; // a decision that writes nothing is answered only from a linearizable read
        }
        Orphan orphan = step.orphan;
        if (orphan != null && first(etcd.get(keys.orphan(OrphanId.of(orphan)))) != null) {
          orphan = null; // recorded already: the first one is kept
        }
        Mismatch mismatch = step.mismatch;
        if (mismatch != null && first(etcd.get(keys.mismatch(mismatch.id()))) != null) {
          mismatch = null; // this claim's, recorded by an attempt whose answer was lost
        }
        if (step.next == null && orphan == null && mismatch == null) {
          return result;
        }
        String writeId = step.next == null ? null : newWriteId();
        TxnResponse answer;
        try {
          answer =
              etcd.txn(
                  compares(key, revision, orphan, mismatch),
                  writes(key, writeId, before, step.next, orphan, mismatch),
                  new Op[] {Op.get(key, GetOption.DEFAULT)});
        } catch (EtcdClient.Failure lost) {
          if (writeId != null && !lost.changedNothing()) {
            if (pending == null) {
              pending = new Pending<>(revision);
            }
            pending.results.put(writeId, result);
          }
          throw lost;
        }
        if (answer.isSucceeded()) {
          if (step.next != null) {
            lastSeen.put(sessionId, step.next, answer.getHeader().getRevision());
          }
          return result;
        }
        if (++lostRaces > COMPARE_RETRIES) {
          throw new StoreUnavailableException(
              BACKEND,
              operation,
              sessionId,
              pending != null,
              String.format(
                  "the order changed under %s decisions in a row; so many writers on one order"
                      + " is not a webhook's load: check for a loop retrying this call",
                  COMPARE_RETRIES + 1),
              null);
        }
        current = first(answer.getGetResponses().get(0));
        known = true;
      } catch (EtcdClient.Failure failure) {
        if (failure.refused() || System.nanoTime() - giveUpAt >= 0 || etcd.closed()) {
          throw unavailable(operation, sessionId, pending != null, failure);
        }
        LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
      }
    }
  }

  /**
   * The transaction's compares: the order as read (or its absence), a new orphan's or mismatch's
   * absence.
   */
  private Cmp[] compares(ByteSequence key, long revision, Orphan orphan, Mismatch mismatch) {
    List<Cmp> cmps = new ArrayList<>(3);
    cmps.add(
        revision == 0 ? absent(key) : new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(revision)));
    if (orphan != null) {
      cmps.add(absent(keys.orphan(OrphanId.of(orphan))));
    }
    if (mismatch != null) {
      cmps.add(absent(keys.mismatch(mismatch.id())));
    }
    return cmps.toArray(new Cmp[0]);
  }

  private static Cmp absent(ByteSequence key) {
    return new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0));
  }

  /**
   * The transaction's writes: the order and its index keys moved, a new orphan or mismatch and its
   * index key.
   */
  private Op[] writes(
      ByteSequence key,
      String writeId,
      OrderRecord before,
      OrderRecord next,
      Orphan orphan,
      Mismatch mismatch) {
    List<Op> ops = new ArrayList<>(6);
    if (next != null) {
      ops.add(Op.put(key, EtcdCodec.order(writeId, next), PutOption.DEFAULT));
      ByteSequence value = EtcdCodec.record(next);
      move(ops, keys.claim(before), keys.claim(next), value);
      move(ops, keys.failure(before), keys.failure(next), value);
    }
    if (orphan != null) {
      ByteSequence value = EtcdCodec.orphan(OrphanRecord.unreconciled(orphan));
      ops.add(Op.put(keys.orphan(OrphanId.of(orphan)), value, PutOption.DEFAULT));
      ops.add(Op.put(keys.unreconciled(orphan), value, PutOption.DEFAULT));
    }
    if (mismatch != null) {
      ByteSequence value = EtcdCodec.mismatch(mismatch);
      ops.add(Op.put(keys.mismatch(mismatch.id()), value, PutOption.DEFAULT));
      ops.add(Op.put(keys.mismatchListed(mismatch), value, PutOption.DEFAULT));
    }
    return ops.toArray(NONE);
  }

  private static void move(List<Op> ops, ByteSequence from, ByteSequence to, ByteSequence value) {
    if (from != null && !from.equals(to)) {
      ops.add(Op.delete(from, DeleteOption.DEFAULT));
    }
    if (to != null) {
      ops.add(Op.put(to, value, PutOption.DEFAULT));
    }
  }

  /**
   * The write id of the first write to the order after revision {@code expected}: for 0 (no order),
   * its creation's, read at the order's {@code create_revision}; else read back through the order's
   * earlier versions; {@code null} if they cannot tell.
   */
  private String writeIdAfter(ByteSequence key, KeyValue current, long expected) {
    if (expected == 0 && current != null) { // a first claim guesses no order, however old it is
      KeyValue created =
          current.getCreateRevision() == current.getModRevision()
              ? current
              : first(
                  etcd.get(
                      key, GetOption.builder().withRevision(current.getCreateRevision()).build()));
      return created == null ? null : writeId(key, created);
    }
    KeyValue next = current;
    for (int i = 0; i < LOOK_BACK && next != null; i++) {
      if (next.getCreateRevision() == next.getModRevision()) { // the order's creation
        return null;
      }
      KeyValue previous =
          first(etcd.get(key, GetOption.builder().withRevision(next.getModRevision() - 1).build()));
      if (previous == null || previous.getModRevision() < expected) {
        return null;
      }
      if (previous.getModRevision() == expected) {
        return writeId(key, next);
      }
      next = previous;
    }
    return null;
  }

  private static String writeId(ByteSequence key, KeyValue kv) {
    return EtcdCodec.readOrder(text(key), kv.getValue()).writeId();
  }

  /** 128 random bits: what names one transaction of this store among every other's. */
  private static String newWriteId() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    return Long.toHexString(random.nextLong()) + "-" + Long.toHexString(random.nextLong());
  }

  @Override
  public Optional<OrderRecord> read(String sessionId) {
    ByteSequence key = keys.order(sessionId);
    KeyValue kv = call("get", sessionId, () -> first(etcd.get(key)));
    return kv == null
        ? Optional.empty()
        : Optional.of(EtcdCodec.readOrder(text(key), kv.getValue()).record());
  }

  @Override
  public List<Orphan> orphans(String sessionId) {
    ByteSequence[] range = keys.orphansOf(sessionId);
    GetResponse found =
        call(
            "orphans",
            sessionId,
            () -> etcd.get(range[0], GetOption.builder().withRange(range[1]).build()));
    return found.getKvs().stream()
        .sorted(Comparator.comparingLong(KeyValue::getCreateRevision)) // the order recorded
        .map(kv -> EtcdCodec.readOrphan(text(kv.getKey()), kv.getValue()).orphan())
        .toList();
  }

  @Override
  public List<OrphanRecord> unreconciledOrphans(OrphanPosition after, int limit) {
    ByteSequence from =
        after == null
            ? keys.unreconciledFrom(null, null)
            : keys.unreconciledFrom(after.recordedAt(), after.id());
    GetResponse found =
        call(
            "unreconciledOrphans",
            null,
            () ->
                etcd.get(
                    from,
                    GetOption.builder()
                        .withRange(keys.indexEnd("unreconciled"))
                        .withLimit(limit)
                        .build()));
    return found.getKvs().stream()
        .map(kv -> EtcdCodec.readOrphan(text(kv.getKey()), kv.getValue()))
        .toList();
  }

  @Override
  public List<Mismatch> mismatches(MismatchPosition after, int limit) {
    ByteSequence from =
        after == null
            ? keys.mismatchesFrom(null, null)
            : keys.mismatchesFrom(after.recordedAt(), after.id());
    GetResponse found =
        call(
            "mismatches",
            null,
            () ->
                etcd.get(
                    from,
                    GetOption.builder()
                        .withRange(keys.indexEnd("mismatches"))
                        .withLimit(limit)
                        .build()));
    return found.getKvs().stream()
        .map(kv -> EtcdCodec.readMismatch(text(kv.getKey()), kv.getValue()))
        .toList();
  }

  @Override
  public Optional<OrphanRecord> orphan(OrphanId id) {
    ByteSequence key = keys.orphan(id);
    KeyValue kv = call("orphan", id.sessionId(), () -> first(etcd.get(key)));
    return kv == null
        ? Optional.empty()
        : Optional.of(EtcdCodec.readOrphan(text(key), kv.getValue()));
  }

  @Override
  public Optional<OrphanRecord> markReconciled(OrphanId id, String note, Instant reconciledAt) {
    requireOpen("reconcile", id.sessionId());
    ByteSequence key = keys.orphan(id);
    long giveUpAt = System.nanoTime() + budget.toNanos();
    boolean sent = false; // whether a transaction of this call may have landed unseen
    for (int attempt = 0; attempt <= COMPARE_RETRIES; attempt++) {
      boolean sending = false;
      try {
        KeyValue kv = first(etcd.get(key));
        if (kv == null) {
          return Optional.empty();
        }
        OrphanRecord stored = EtcdCodec.readOrphan(text(key), kv.getValue());
        if (stored.reconciled()) {
          return Optional.of(stored);
        }
        OrphanRecord marked = new OrphanRecord(stored.orphan(), note, reconciledAt);
        sending = true;
        TxnResponse answer =
            etcd.txn(
                new Cmp[] {new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(kv.getModRevision()))},
                new Op[] {
                  Op.put(key, EtcdCodec.orphan(marked), PutOption.DEFAULT),
                  Op.delete(keys.unreconciled(stored.orphan()), DeleteOption.DEFAULT)
                },
                NONE);
        if (answer.isSucceeded()) {
          return Optional.of(marked);
        }
      } catch (EtcdClient.Failure failure) {
        // a lost answer is read back on the next turn: the orphan then shows the note it holds
        sent |= sending && !failure.changedNothing();
        if (failure.refused() || System.nanoTime() - giveUpAt >= 0 || etcd.closed()) {
          throw unavailable("reconcile", id.sessionId(), sent, failure);
        }
        LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
      }
    }
    throw new StoreUnavailableException(
        BACKEND,
        "reconcile",
        id.sessionId(),
        true,
        "the " + id + " changed under every attempt to mark it; retry the reconcile",
        null);
  }

  @Override
  public List<OrderRecord> stuckOrders(Instant expiredBy, OrderPosition after, int limit) {
    ByteSequence from =
        after == null
            ? keys.indexFrom("claims", null, null)
            : keys.indexFrom("claims", after.at(), after.sessionId());
    ByteSequence end = keys.claimsAfter(expiredBy);
    if (compare(from, end) >= 0) {
      return List.of();
    }
    GetResponse found =
        call(
            "stuckOrders",
            null,
            () -> etcd.get(from, GetOption.builder().withRange(end).withLimit(limit).build()));
    return found.getKvs().stream()
        .map(kv -> EtcdCodec.readRecord(text(kv.getKey()), kv.getValue()))
        .toList();
  }

  @Override
  public List<OrderRecord> failedOrders(
      int minFailures, Instant failedBy, OrderPosition after, int limit) {
    ByteSequence end = keys.indexEnd("failed");
    ByteSequence from =
        after == null
            ? keys.indexFrom("failed", null, null)
            : keys.indexFrom("failed", after.at(), after.sessionId());
    List<OrderRecord> found = new ArrayList<>();
    long revision = 0; // every batch reads the revision the first one read: one snapshot
    while (true) {
      GetOption.Builder option =
          GetOption.builder().withRange(end).withLimit(Math.max(limit, SCAN_BATCH));
      if (revision != 0) {
        option.withRevision(revision);
      }
      ByteSequence start = from;
      GetResponse batch = call("failedOrders", null, () -> etcd.get(start, option.build()));
      revision = batch.getHeader().getRevision();
      KeyValue last = null;
      for (KeyValue kv : batch.getKvs()) {
        last = kv;
        OrderRecord record = EtcdCodec.readRecord(text(kv.getKey()), kv.getValue());
        if (record.failures() >= minFailures || !record.failedSince().isAfter(failedBy)) {
          found.add(record);
          if (found.size() == limit) {
            return found;
          }
        }
      }
      if (!batch.isMore() || last == null) {
        return found;
      }
      from = last.getKey().concat(ByteSequence.from(new byte[] {0}));
    }
  }

  /** A read, its failure turned into a {@link StoreUnavailableException} (nothing written). */
  private <R> R call(String operation, String sessionId, Supplier<R> read) {
    requireOpen(operation, sessionId);
    try {
      return read.get();
    } catch (EtcdClient.Failure failure) {
      throw unavailable(operation, sessionId, false, failure);
    }
  }

  private void requireOpen(String operation, String sessionId) {
    if (etcd.closed()) {
      throw Validate.storeClosed("etcd store", operation, sessionId);
    }
  }

  private StoreUnavailableException unavailable(
      String operation, String sessionId, boolean outcomeUnknown, EtcdClient.Failure failure) {
    if (etcd.closed()) {
      throw Validate.storeClosed("etcd store", operation, sessionId);
    }
    return new StoreUnavailableException(
        BACKEND,
        operation,
        sessionId,
        outcomeUnknown,
        "etcd did not answer in "
            + budget.toMillis()
            + " ms of trying ("
            + failure.getMessage()
            + "); check that a majority of the cluster's members is up and reachable from this"
            + " host",
        failure);
  }

  private static KeyValue first(GetResponse response) {
    List<KeyValue> kvs = response.getKvs();
    return kvs.isEmpty() ? null : kvs.get(0);
  }

  private static int compare(ByteSequence a, ByteSequence b) {
    return java.util.Arrays.compareUnsigned(a.getBytes(), b.getBytes());
  }

  private static String text(ByteSequence key) {
    return key.toString(StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    etcd.close();
  }

  /** One order inside {@link #atomically}: what the work read, and what it wants written. */
  private static final class Step implements LockedOrder {
    private final OrderRecord current;
    OrderRecord next;
    Orphan orphan;
    Mismatch mismatch;

    Step(OrderRecord current) {
      this.current = current;
    }

    @Override
    public Optional<OrderRecord> current() {
      return Optional.ofNullable(current);
    }

    @Override
    public boolean insert(OrderRecord record) {
      if (current != null) {
        return false;
      }
      next = record;
      return true;
    }

    @Override
    public void update(OrderRecord record) {
      next = record;
    }

    @Override
    public void addOrphan(Orphan orphan) {
      this.orphan = orphan;
    }

    @Override
    public void addMismatch(Mismatch mismatch) {
      this.mismatch = mismatch;
    }
  }
}
