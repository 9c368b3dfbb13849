package org.fencekit.fulfilment.scenarios;

import static org.fencekit.fulfilment.scenarios.Problem.never;
import static org.fencekit.fulfilment.scenarios.Problem.waitFor;

import java.util.ArrayList;
import java.util.List;
import org.fencekit.history.Answer;
import org.fencekit.history.Call;
import org.fencekit.history.Operation;
import org.fencekit.store.ClaimId;
import org.fencekit.store.OrderRecord;

/**
 * Judges the calls a run's handler instances made: their store calls, as the run's {@link
 * org.fencekit.history.History} recorded them (each instance's in the order they returned), and
 * whether a provider call was told it lost the order.
 */
final class CallJudge {

  private final ScenarioRun run;
  private final RunReport report;

  CallJudge(ScenarioRun run) {
    this.run = run;
    this.report = run.report();
  }

  /**
   * Whether no instance sent a fail with a claim id after a complete with it of unknown outcome.
   */
  Problem noFailAfterUnknownComplete() {
    for (Instance instance : run.instances()) {
      List<ClaimId> unknown = new ArrayList<>();
      for (Call call : storeCalls(instance)) {
        if (call.operation() == Operation.COMPLETE && call.outcomeUnknown()) {
          unknown.add(call.claimId());
        } else if (call.operation() == Operation.FAIL && unknown.contains(call.claimId())) {
          return never(
              "instance "
                  + instance.name()
                  + " sent fail("
                  + report.label(call.sessionId())
                  + ", "
                  + RunReport.shortForm(call.claimId())
                  + ") after a complete with that token whose outcome was unknown: retry the"
                  + " complete (a replay answers Written), never fail it");
        }
      }
    }
    return null;
  }

  /** Whether no instance sent a fail for the order and the order shows no error. */
  Problem neverFailed(String order) {
    String sessionId = run.sessionId(order);
    for (Instance instance : run.instances()) {
      for (Call call : storeCalls(instance)) {
        if (call.sessionId().equals(sessionId) && call.operation() == Operation.FAIL) {
          return never(
              "instance "
                  + instance.name()
                  + " sent fail for order '"
                  + order
                  + "' with "
                  + RunReport.shortForm(call.claimId())
                  + ", expected the order never to be failed");
        }
      }
    }
    String error = run.record(order).map(OrderRecord::lastError).orElse(null);
    return error == null
        ? null
        : never("order '" + order + "' was failed at some point (last error '" + error + "')");
  }

  /** Whether no instance extended with a claim id after an extend with it answered Superseded. */
  Problem noExtendAfterSuperseded() {
    for (Instance instance : run.instances()) {
      List<ClaimId> lost = new ArrayList<>();
      for (Call call : storeCalls(instance)) {
        if (call.operation() != Operation.EXTEND) {
          continue;
        }
        if (lost.contains(call.claimId())) {
          return never(
              "instance "
                  + instance.name()
                  + " sent extend("
                  + report.label(call.sessionId())
                  + ", "
                  + RunReport.shortForm(call.claimId())
                  + ") at +"
                  + report.sinceStart(call.at())
                  + " after an extend with that token was answered Superseded: stop the"
                  + " heartbeat once the order is taken over");
        }
        if (call.answer() == Answer.SUPERSEDED) {
          lost.add(call.claimId());
        }
      }
    }
    return null;
  }

  /** Whether the provider call was told it lost the order or had its thread interrupted. */
  Problem cutOff(FakeProvider.ProviderCall call) {
    return !call.purchase().ownership().owned() || call.interrupted()
        ? null
        : waitFor(
            "provider call #"
                + call.number()
                + " of "
                + call.instance().name()
                + " for order '"
                + report.label(call.sessionId())
                + "' was not cut off: its ownership still reads true and its thread was"
                + " not interrupted (clock at +"
                + report.now()
                + "); a heartbeat answered Superseded, and a deadline reached, must tell"
                + " the call at once");
  }

  /** The store calls {@code instance} made, in the order they returned. */
  private List<Call> storeCalls(Instance instance) {
    List<Call> calls = new ArrayList<>();
    for (Call call : run.history().calls()) {
      if (call.caller().equals(instance.name())) {
        calls.add(call);
      }
    }
    return calls;
  }
}
