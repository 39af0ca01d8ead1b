package io.llmgw.extproc.state;

import io.llmgw.picker.InFlight;
import java.time.Instant;

/**
 * One endpoint's in-flight counts and prefill tokens across replicas: this one's, live, and its peers' last snapshots,
 * summed.
 */
record SharedInFlight(InFlight own, PeerLoad peers) implements InFlight {
  @Override
  public int forModel(String model) {
    return own.forModel(model) + peers.byModel().getOrDefault(model, 0);
  }

  @Override
  public int total() {
    return own.total() + peers.total();
  }

  @Override
  public int sentSince(Instant reportedAt) {
    return own.sentSince(reportedAt) + peers.sentSince(reportedAt.toEpochMilli());
  }

  @Override
  public long prefillTokens() {
    return own.prefillTokens() + peers.prefillTokens();
  }

  @Override
  public int inPrefill() {
    return own.inPrefill() + peers.inPrefill();
  }
}
