package io.llmgw.picker;

import java.util.List;

/** A routing decision: the primary endpoint first, then up to two ordered fallbacks. */
public record Decision(List<EndpointState> ranked) {
  public Decision {
    ranked = List.copyOf(ranked);
    if (ranked.isEmpty()) {
      throw new IllegalArgumentException("a decision needs a primary endpoint");
    }
  }

  public EndpointState primary() {
    return ranked.getFirst();
  }

  public List<EndpointState> fallbacks() {
    return ranked.subList(1, ranked.size());
  }

  /** {@code ip:port,ip:port,...}, primary first: the value of the destination header and metadata. */
  public String destinationValue() {
    StringBuilder sb = new StringBuilder();
    for (EndpointState e : ranked) {
      if (!sb.isEmpty()) {
        sb.append(',');
      }
      sb.append(e.address());
    }
    return sb.toString();
  }
}
