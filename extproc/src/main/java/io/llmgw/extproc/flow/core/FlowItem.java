package io.llmgw.extproc.flow.core;

/**
 * One waiting request as the queue sees it. Identity matters: the caller keeps the item to cancel it.
 *
 * @param priority higher is served first, across bands strictly
 * @param flowId the fairness key inside a band ({@code x-gateway-inference-fairness-id}, else the route)
 * @param bytes the request body's size, counted against the byte limits
 * @param enqueuedAtMillis when it arrived, by the queue's clock; the TTL counts from here
 * @param deadlineMillis when its first token is due; orders the flow under EDF
 * @param cost the tokens the request is expected to cost (prompt and output): what token fairness charges its flow
 * @param weight its flow's share of the band under token fairness (its tenant's weight), at least 1
 * @param payload what the caller needs back when the item leaves the queue
 */
public record FlowItem<T>(long sequence, int priority, String flowId, long bytes, long enqueuedAtMillis,
    long deadlineMillis, long cost, int weight, T payload) {

  @Override
  public boolean equals(Object o) {
    return this == o;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(sequence);
  }
}
