package io.llmgw.extproc.state;

import io.llmgw.picker.InFlight;
import java.time.Instant;
import java.util.List;

/** One endpoint's in-flight counts across replicas: this one's, live, and each peer's last snapshot. */
record SharedInFlight(InFlight own, List<PeerLoad> peers) implements InFlight {
  @Override
  public int forModel(String model) {
    int n = own.forModel(model);
    for (PeerLoad p : peers) {
      n += p.byModel().getOrDefault(model, 0);
    }
    return n;
  }

  @Override
  public int total() {
    int n = own.total();
    for (PeerLoad p : peers) {
      n += p.total();
    }
    return n;
  }

  @Override
  public int sentSince(Instant reportedAt) {
    int n = own.sentSince(reportedAt);
    long at = reportedAt.toEpochMilli();
    for (PeerLoad p : peers) {
      n += p.sentSince(at);
    }
    return n;
  }
}
