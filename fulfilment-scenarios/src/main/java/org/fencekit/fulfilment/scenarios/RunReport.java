package org.fencekit.fulfilment.scenarios;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.fencekit.store.ClaimId;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;

/**
 * How a run tells what happened: its orders by the names the scenario gave them, records and claim
 * ids in the timeline's short forms (times since the start as the {@link Timeline} tells them), the
 * summary in a line, and a failure with the timeline and the {@link Replay} so far.
 */
final class RunReport {

  private final String id;
  private final Timeline timeline;
  private final Replay replay;
  private final Map<String, String> labels = new HashMap<>();

  RunReport(String id, Timeline timeline, Replay replay) {
    this.id = id;
    this.timeline = timeline;
    this.replay = replay;
  }

  /** The scenario's id. */
  String id() {
    return id;
  }

  /** Names the order whose session id is {@code sessionId} {@code name} in every text. */
  synchronized void name(String sessionId, String name) {
    labels.put(sessionId, name);
  }

  /** The order's name in this run for a session id, or the session id itself. */
  synchronized String label(String sessionId) {
    return labels.getOrDefault(sessionId, sessionId);
  }

  /** A claim id as the timeline shows it: the fence and the nonce's first 8 digits. */
  static String shortForm(ClaimId claimId) {
    return claimId.fence() + ":" + claimId.nonce().substring(0, 8);
  }

  /** An order's record in a failure's text: status, item, fence, claim, lease, error, clock. */
  String describe(OrderRecord record) {
    return record.status()
        + (record.item() == null ? "" : " with " + record.item().providerOrderId())
        + ", fence "
        + record.fence()
        + (record.claimId() == null
            ? ", no claim"
            : ", claim "
                + record.claimId()
                + " leased until +"
                + timeline.sinceStart(record.leaseExpiresAt()))
        + (record.lastError() == null ? "" : ", last error '" + record.lastError() + "'")
        + " (clock at +"
        + timeline.now()
        + ")";
  }

  /**
   * What the handler did, in a line: the answers of every delivery in the order they were made
   * ({@code -} for none), and the purchases per order.
   *
   * @param orders each order by its name, in the order they were made
   * @param reports how many orphans the handler reported
   */
  static String summary(
      List<Delivery> deliveries,
      Map<String, OrderSnapshot> orders,
      FakeProvider provider,
      int reports) {
    List<String> answers = new ArrayList<>();
    for (Delivery delivery : deliveries) {
      answers.add(delivery.answered() ? String.valueOf(delivery.status()) : "-");
    }
    List<String> bought = new ArrayList<>();
    orders.forEach(
        (name, order) -> bought.add(provider.purchases(order.sessionId()) + " bought for " + name));
    if (reports > 0) {
      bought.add(reports + " orphan(s) reported");
    }
    return "answers " + String.join(" ", answers) + "; " + String.join(", ", bought);
  }

  /** A failure of this run's scenario, with the timeline and the replay so far. */
  ScenarioFailure failure(String message) {
    return new ScenarioFailure(id, message, timeline.toString(), replay.test(id));
  }
}
