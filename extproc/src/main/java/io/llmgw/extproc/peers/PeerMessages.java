package io.llmgw.extproc.peers;

import io.llmgw.extproc.flow.core.ServedTokens;
import io.llmgw.extproc.flow.core.SharedCounters;
import io.llmgw.extproc.state.InFlightTracker;
import io.llmgw.extproc.state.PeerSpend;
import io.llmgw.picker.routed.RoutedPrefixes;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** What this replica tells its watchers: a greeting to each new one, then a tick while anything changes. */
final class PeerMessages {
  /**
   * One tick's message in its two forms.
   *
   * @param forAll what every watcher reads (version 4)
   * @param withServed the same and what flows were charged since the last tick, for the watchers that asked for it;
   *     {@code forAll} itself when nothing was charged
   */
  record Tick(byte[] forAll, byte[] withServed) {}

  private final String self;
  private final InFlightTracker inFlight;
  private final Supplier<Map<String, long[]>> spendHere;
  private final PeerSpend spendThere;
  private final RoutedPrefixes routed;
  private final SharedCounters counters;
  private final PeerTraffic traffic;

  PeerMessages(String self, InFlightTracker inFlight, Supplier<Map<String, long[]>> spendHere, PeerSpend spendThere,
      RoutedPrefixes routed, SharedCounters counters, PeerTraffic traffic) {
    this.self = self;
    this.inFlight = inFlight;
    this.spendHere = spendHere;
    this.spendThere = spendThere;
    this.routed = routed;
    this.counters = counters;
    this.traffic = traffic;
  }

  /** The counts now, and the prompt blocks routed and the flows charged since the last tick. */
  Tick tick() {
    byte[] forAll = PeerSnapshotCodec.encode(self, inFlight.all(), spendHere.get(), routed.drain());
    List<ServedTokens> charged = counters.drain();
    int fit = ServedCodec.fitting(charged);
    traffic.charges(fit, charged.size() - fit);
    return new Tick(forAll, ServedCodec.appendTo(forAll, charged.subList(0, fit)));
  }

  /**
   * A new watcher's first message: the counts, the prompt blocks routed lately, which it may never have heard, and the
   * replicas this one holds without hearing them (a restarted watcher's former self among them).
   */
  byte[] greeting() {
    return PeerSnapshotCodec.encode(self, inFlight.all(), spendHere.get(), routed.recent(), spendThere.unheard());
  }

  /** Nobody watches: what was routed and charged since the last tick is dropped (the recent blocks stay). */
  void discard() {
    routed.discardOutbox();
    counters.drain();
  }
}
