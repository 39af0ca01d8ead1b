package io.llmgw.extproc.peers;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What the count exchange carries, both ways: messages and bytes, messages refused (unreadable, unsigned, or claiming
 * what cannot be), watch requests refused (unsigned, replayed, or past the cap on watchers), and flows' charges.
 */
public final class PeerTraffic {
  private final AtomicLong sentMessages = new AtomicLong();
  private final AtomicLong sentBytes = new AtomicLong();
  private final AtomicLong receivedMessages = new AtomicLong();
  private final AtomicLong receivedBytes = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();
  private final AtomicLong refusedWatches = new AtomicLong();
  /** Flows' charges (token fairness) sent, heard, and left out of a message by its caps. */
  private final AtomicLong chargesSent = new AtomicLong();
  private final AtomicLong chargesReceived = new AtomicLong();
  private final AtomicLong chargesLeftOut = new AtomicLong();

  void sent(int bytes) {
    sentMessages.incrementAndGet();
    sentBytes.addAndGet(bytes);
  }

  void received(int bytes) {
    receivedMessages.incrementAndGet();
    receivedBytes.addAndGet(bytes);
  }

  void charges(int sent, int leftOut) {
    chargesSent.addAndGet(sent);
    chargesLeftOut.addAndGet(leftOut);
  }

  void chargesReceived(int n) {
    chargesReceived.addAndGet(n);
  }

  public long chargesSent() {
    return chargesSent.get();
  }

  public long chargesReceived() {
    return chargesReceived.get();
  }

  public long chargesLeftOut() {
    return chargesLeftOut.get();
  }

  void refused() {
    refused.incrementAndGet();
  }

  void refusedWatch() {
    refusedWatches.incrementAndGet();
  }

  public long refusedWatches() {
    return refusedWatches.get();
  }

  public long sentMessages() {
    return sentMessages.get();
  }

  public long sentBytes() {
    return sentBytes.get();
  }

  public long receivedMessages() {
    return receivedMessages.get();
  }

  public long receivedBytes() {
    return receivedBytes.get();
  }

  public long refusedMessages() {
    return refused.get();
  }
}
