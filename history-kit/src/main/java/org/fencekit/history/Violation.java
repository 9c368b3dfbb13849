package org.fencekit.history;

/**
 * One way a recorded history broke the contract.
 *
 * @param check the check's letter, {@code a} to {@code g}, as listed in {@link HistoryCheck}
 * @param message what was found: the order, the call, the tokens, the records
 */
public record Violation(char check, String message) {

  @Override
  public String toString() {
    return "(" + check + ") " + message;
  }
}
