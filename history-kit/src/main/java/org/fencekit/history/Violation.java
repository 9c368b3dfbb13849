package org.fencekit.history;

/**
 * One way a recorded history broke the contract.
 *
 * @param check the check's letter, {@code a} to {@code g}, as listed in {@link HistoryCheck}
 * @param message what was found: the order, the call, the tokens, the records
 */
public record Violation(char check, String message) {

  /** What the check expects of every history, in one sentence, for a failure message. */
  public String expected() {
    return switch (check) {
      case 'a' ->
          "every Written or Claimed answer is what any later read of the order shows,"
              + " unless a newer claim replaced it";
      case 'b' ->
          "every settled record traces to a complete or fail, by the claim that settled it,"
              + " that was not answered Superseded, and every claim seen was granted";
      case 'c' -> "a call that said nothing was written left the order as it was";
      case 'd' ->
          "fences strictly increase: one claim per fence, a Claimed answer is a PENDING"
              + " record holding its claim at its fence, and reads never see the fence go down";
      case 'e' ->
          "every superseded complete is in orphans exactly once, as it was sent, and"
              + " every orphan comes from a complete that was not answered Written";
      case 'f' -> "the store recovers by itself within the bound after a fault";
      case 'g' -> "no exception escapes but StoreUnavailableException and UnknownOrderException";
      default -> throw new IllegalStateException("no check '" + check + "': checks are a to g");
    };
  }

  @Override
  public String toString() {
    return "(" + check + ") " + message;
  }
}
