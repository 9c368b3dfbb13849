package org.fencekit.fulfilment.scenarios;

import static org.fencekit.fulfilment.scenarios.Problem.never;
import static org.fencekit.fulfilment.scenarios.Problem.waitFor;

import java.util.ArrayList;
import java.util.List;

/**
 * Judges the answers of a run's deliveries: by their effect on Stripe (any 2xx stops it, any other
 * status or an exception makes it retry) or, if the run asks for exact statuses, by the status.
 */
final class AnswerJudge {

  private final RunThreads threads;
  private volatile boolean exactStatuses;

  AnswerJudge(RunThreads threads) {
    this.threads = threads;
  }

  void exactStatuses(boolean exact) {
    this.exactStatuses = exact;
  }

  /** Whether {@code delivery} answered one of {@code statuses}. */
  Problem answer(Delivery delivery, int... statuses) {
    if (!delivery.answered()) {
      return waitFor(threads.noAnswer(delivery));
    }
    for (int allowed : statuses) {
      if (judged(allowed) == judged(delivery.status())) {
        return null;
      }
    }
    return never(
        "delivery "
            + delivery
            + " of "
            + delivery.event().eventId()
            + " to "
            + delivery.instance().name()
            + " was answered "
            + delivery.status()
            + (delivery.thrown() == null ? "" : " (the handler threw " + delivery.thrown() + ")")
            + ", expected "
            + expected(statuses));
  }

  /**
   * Whether exactly {@code statuses} (in any order) are among the answers of {@code group} so far;
   * the other deliveries must still be working.
   */
  Problem answered(List<Delivery> group, int... statuses) {
    List<Integer> wanted = new ArrayList<>();
    for (int status : statuses) {
      wanted.add(judged(status));
    }
    wanted.sort(null);
    List<Integer> answered = new ArrayList<>();
    List<Integer> statusesAnswered = new ArrayList<>();
    for (Delivery delivery : group) {
      if (delivery.answered()) {
        answered.add(judged(delivery.status()));
        statusesAnswered.add(delivery.status());
      }
    }
    answered.sort(null);
    if (answered.equals(wanted)) {
      return null;
    }
    List<String> wantedNames = new ArrayList<>();
    for (int status : wanted) {
      wantedNames.add(expected(status));
    }
    String text =
        "the deliveries "
            + groupVar(group)
            + " have answered "
            + statusesAnswered
            + " ("
            + (group.size() - answered.size())
            + " still working), expected "
            + String.join(" and ", wantedNames);
    return answered.size() < wanted.size() ? waitFor(text) : never(text);
  }

  /** The replay's name for the deliveries of one {@link ScenarioRun#deliverTogether}. */
  static String groupVar(List<Delivery> group) {
    String first = group.get(0).toString();
    return first.substring(0, first.indexOf('.'));
  }

  /** A status as this run judges it: itself if exact, else 200 for any 2xx and 500 for the rest. */
  private int judged(int status) {
    return exactStatuses ? status : status >= 200 && status < 300 ? 200 : 500;
  }

  private String expected(int... statuses) {
    List<String> names = new ArrayList<>();
    for (int status : statuses) {
      String name =
          exactStatuses
              ? String.valueOf(status)
              : judged(status) == 200 ? "a 2xx (Stripe stops)" : "a non-2xx (Stripe retries)";
      if (!names.contains(name)) {
        names.add(name);
      }
    }
    return (names.size() == 1 ? "" : "one of ") + String.join(", ", names);
  }
}
