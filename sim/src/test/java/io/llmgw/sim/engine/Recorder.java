package io.llmgw.sim.engine;

import java.util.ArrayList;
import java.util.List;

/** Records when one sequence's tokens arrive, in virtual milliseconds. */
final class Recorder implements SequenceListener {
  private final ManualScheduler clock;
  final List<Double> tokenTimesMs = new ArrayList<>();
  final StringBuilder text = new StringBuilder();
  Usage usage;
  String finishReason;

  Recorder(ManualScheduler clock) {
    this.clock = clock;
  }

  @Override
  public void onToken(String t, int index) {
    tokenTimesMs.add(clock.nowMs());
    text.append(t);
  }

  @Override
  public void onFinished(Usage u, String reason) {
    usage = u;
    finishReason = reason;
  }

  double firstTokenMs() {
    return tokenTimesMs.getFirst();
  }

  boolean finished() {
    return usage != null;
  }
}
