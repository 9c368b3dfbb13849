package org.fencekit.tck;

import java.util.Comparator;
import org.junit.jupiter.api.MethodDescriptor;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.MethodOrdererContext;

/**
 * Runs a group's rules in the order of the listing ({@link Rules}), any other test after them, by
 * name. {@link OrderStoreTck} runs the groups in the listing's order too: the basic rules first, so
 * a mistake in time keeping or the lease boundary is recognisable before it breaks a bigger rule.
 */
final class RuleOrder implements MethodOrderer {

  @Override
  public void orderMethods(MethodOrdererContext context) {
    context
        .getMethodDescriptors()
        .sort(
            Comparator.comparingInt(RuleOrder::rank)
                .thenComparing(method -> method.getMethod().getName()));
  }

  private static int rank(MethodDescriptor method) {
    int position = Rules.position(method.getMethod().getName());
    return position < 0 ? Integer.MAX_VALUE : position;
  }
}
