package org.fencekit.tck;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/**
 * Puts the failed rule's id and its "if this fails, check" line from {@link Rules} in front of the
 * failure: into the message of a failed assertion, as a suppressed note on any other exception.
 * Skips pass through untouched.
 */
final class RuleHints implements TestExecutionExceptionHandler {

  @Override
  public void handleTestExecutionException(ExtensionContext context, Throwable thrown)
      throws Throwable {
    if (thrown instanceof TestAbortedException) {
      throw thrown;
    }
    Rules.Rule rule = Rules.byId(context.getRequiredTestMethod().getName()).orElse(null);
    if (rule == null) {
      throw thrown;
    }
    String hint =
        "rule " + rule.id() + " (" + rule.rule() + "); if this fails, check " + rule.check();
    if (thrown instanceof AssertionError) {
      AssertionFailedError failed =
          thrown instanceof AssertionFailedError original && original.isExpectedDefined()
              ? new AssertionFailedError(
                  thrown.getMessage() + "\n" + hint,
                  original.getExpected().getValue(),
                  original.getActual().getValue(),
                  thrown)
              : new AssertionFailedError(thrown.getMessage() + "\n" + hint, thrown);
      failed.setStackTrace(thrown.getStackTrace());
      throw failed;
    }
    thrown.addSuppressed(new RuleHint(hint));
    throw thrown;
  }

  /** The note added to an exception that is not a failed assertion. */
  private static final class RuleHint extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RuleHint(String hint) {
      super(hint, null, false, false);
    }
  }
}
