package io.llmgw.extproc.flow.controller;

/** What flow control reports: one call per request leaving the queue, however it leaves. */
public interface FlowEvents {
  /**
   * @param outcome {@code dispatched}, {@code full} (refused on arrival), {@code evicted}, {@code expired} or
   *     {@code cancelled}
   */
  void left(String pool, int priority, String outcome, double waitedSeconds);
}
