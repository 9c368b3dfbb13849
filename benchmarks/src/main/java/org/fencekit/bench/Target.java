package org.fencekit.bench;

import java.util.Locale;

/**
 * A speed target: a ratio of throughputs, measured as paired trials in one run ({@link Ratio}),
 * that should be at least {@code minimum}. A ratio whose interval lies on one side of it decides
 * it; an interval that spans it decides it by the median when it is within ±10% of the median
 * (marked close), and leaves it undecided when wider: more trials are the remedy.
 *
 * @param minimum the lowest acceptable ratio, NaN for no target
 */
record Target(double minimum) {

  /** No target for this pair. */
  static final Target NONE = new Target(Double.NaN);

  /** How to read the verdicts, for results.md and the README. */
  static final String LEGEND =
      "A target is met when the ratio's whole 95% interval is at or above it, missed when the whole"
          + " interval is below it; an interval that spans it and is within ±10% of the median is"
          + " decided by the median and marked close; a wider one leaves it undecided (run longer).";

  /**
   * fencekit / peer, as issue 36 sets them: PostgreSQL over the peers' DataSource ≥ 1.0x ShedLock
   * JDBC (ahead of the unfenced peer: its floor predicts about 1.1x), built from a URL ≥ 0.95x;
   * Redis ≥ 0.8x ShedLock's Redis provider on a node and ≥ 0.7x on the Cluster, and ≥ 3x Redisson's
   * RFencedLock on both; MySQL (MariaDB) ≥ 0.8x ShedLock JDBC, over the peer's DataSource and built
   * from a URL alike; etcd ≥ 0.9x etcd's own lock service.
   */
  static Target peer(StoreType store, Peer peer) {
    return switch (peer) {
      case SHEDLOCK_JDBC ->
          store == StoreType.POSTGRES_DATASOURCE
              ? new Target(1.0)
              : store == StoreType.POSTGRES ? new Target(0.95) : NONE;
      case SHEDLOCK_JDBC_MYSQL -> new Target(0.8);
      case SHEDLOCK_REDIS -> new Target(0.8);
      case SHEDLOCK_REDIS_CLUSTER -> new Target(0.7);
      case REDISSON_FENCED, REDISSON_FENCED_CLUSTER -> new Target(3);
      case ETCD_LOCK -> new Target(0.9);
    };
  }

  /**
   * Claims won on one hot order over the peer's acquisitions of one hot lock: PostgreSQL's targets
   * beside ShedLock JDBC ({@link #peer}); no target for the others (none is measured).
   */
  static Target hot(StoreType store, Peer peer) {
    return peer == Peer.SHEDLOCK_JDBC ? peer(store, peer) : NONE;
  }

  /**
   * fencekit / raw: memory ≥ 0.8x its map (issue 36), SQLite and etcd ≥ 0.9x their raw baselines;
   * no target for the others.
   */
  static Target raw(StoreType store) {
    return switch (store) {
      case MEMORY -> new Target(0.8);
      case SQLITE, SQLITE_NORMAL, ETCD -> new Target(0.9);
      default -> NONE;
    };
  }

  /** Whether the ratio's whole interval is at or above this target, or below it. */
  boolean clearOf(Ratio ratio) {
    return ratio.low() >= minimum || ratio.high() < minimum;
  }

  /**
   * {@code ≥0.95 met}, {@code ≥0.95 missed}, {@code ≥0.95 met, close}, {@code ≥0.95 undecided:
   * interval ±14%}, or {@code -} without a target.
   */
  String verdict(Ratio ratio) {
    if (Double.isNaN(minimum)) {
      return "-";
    }
    String goal = String.format(Locale.ROOT, "≥%.2f ", minimum).replace(".00 ", " ");
    if (!ratio.measured()) {
      return goal + "?";
    }
    if (Double.isNaN(ratio.low())) {
      return goal + "undecided: too few pairs";
    }
    if (clearOf(ratio)) {
      return goal + (ratio.low() >= minimum ? "met" : "missed");
    }
    if (!ratio.precise()) {
      return goal
          + String.format(Locale.ROOT, "undecided: interval ±%.0f%%", 100 * ratio.halfWidth());
    }
    return goal + (ratio.median() >= minimum ? "met" : "missed") + ", close";
  }
}
