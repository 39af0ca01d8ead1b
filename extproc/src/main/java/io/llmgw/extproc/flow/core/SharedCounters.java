package io.llmgw.extproc.flow.core;

import java.util.List;

/**
 * Token fairness across replicas: what this replica's flows were charged goes to its peers with each exchange
 * message, and what theirs were charged is counted here as if served here, so every replica orders its band by what
 * the whole fleet served each flow.
 */
public interface SharedCounters {
  /** Nothing shared: a replica without the exchange. */
  SharedCounters NONE = new SharedCounters() {
    @Override
    public void share() {}

    @Override
    public List<ServedTokens> drain() {
      return List.of();
    }

    @Override
    public void heard(List<ServedTokens> charges) {}

    @Override
    public long dropped() {
      return 0;
    }
  };

  /** The replica has a peer: charges are kept for the next message from now on (without one, nothing is kept). */
  void share();

  /** This replica's charges since the last call. */
  List<ServedTokens> drain();

  /** A peer's charges since its last message. */
  void heard(List<ServedTokens> charges);

  /** Charges dropped before a message could take them (too many flows charged between two messages). */
  long dropped();
}
