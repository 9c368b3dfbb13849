package org.fencekit.faults;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.fencekit.history.Answer;
import org.fencekit.history.HistoryCheck;
import org.fencekit.history.Violation;

/**
 * What one {@link FaultRun} did and found: its calls and faults, its answers by kind, how long the
 * store took to recover, and the violations of each check.
 */
public final class FaultReport {

  private final String name;
  private final int calls;
  private final int faults;
  private final Map<Answer, Integer> answers;
  private final long recoveredMillis;
  private final HistoryCheck.Result result;

  FaultReport(
      String name,
      int calls,
      int faults,
      Map<Answer, Integer> answers,
      long recoveredMillis,
      HistoryCheck.Result result) {
    this.name = name;
    this.calls = calls;
    this.faults = faults;
    this.answers = new EnumMap<>(answers);
    this.recoveredMillis = recoveredMillis;
    this.result = result;
  }

  /** The run's name, such as {@code postgres/terminate-backends}. */
  public String name() {
    return name;
  }

  /** How many calls the run recorded. */
  public int calls() {
    return calls;
  }

  /** How many fault events the fault caused. */
  public int faults() {
    return faults;
  }

  /** How many calls answered {@code answer}. */
  public int count(Answer answer) {
    return answers.getOrDefault(answer, 0);
  }

  /** Every violation found. */
  public int violationCount() {
    return result.total();
  }

  /** How many violations check {@code check} ({@code 'a'} to {@code 'g'}) found. */
  public int violations(char check) {
    return result.count(check);
  }

  /** The first violations of each check, with details. */
  public List<Violation> violations() {
    return result.kept();
  }

  /**
   * The run in one line: calls, faults, answers by kind, recovery time, violations by check.
   *
   * <pre>
   * fault-run postgres/terminate-backends: calls=1210 faults=6 claimed=402 ... recovered=35ms violations=0
   * </pre>
   */
  public String summary() {
    StringBuilder line =
        new StringBuilder("fault-run " + name + ": calls=" + calls + " faults=" + faults);
    for (Answer answer : Answer.values()) {
      line.append(' ').append(answer.label()).append('=').append(count(answer));
    }
    line.append(" recovered=").append(recoveredMillis < 0 ? "never" : recoveredMillis + "ms");
    line.append(" violations=").append(violationCount());
    if (violationCount() > 0) {
      line.append(" (");
      for (char check = 'a'; check <= 'g'; check++) {
        if (violations(check) > 0) {
          line.append(check).append('=').append(violations(check)).append(' ');
        }
      }
      line.setLength(line.length() - 1);
      line.append(')');
    }
    return line.toString();
  }

  /**
   * Throws an {@link AssertionError} listing the violations, if there is any.
   *
   * @return this report
   */
  public FaultReport assertNoViolations() {
    if (violationCount() > 0) {
      throw new AssertionError(
          summary()
              + "\n"
              + result.kept().stream().map(Violation::toString).collect(Collectors.joining("\n")));
    }
    return this;
  }

  @Override
  public String toString() {
    return summary();
  }
}
