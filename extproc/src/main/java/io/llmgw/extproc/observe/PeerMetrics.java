package io.llmgw.extproc.observe;

import io.llmgw.extproc.peers.PeerTraffic;
import io.llmgw.picker.routed.RoutedPrefixes;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * What the replicas' exchange costs and whether it reads: messages and bytes each way, refusals, and the routed prompt
 * blocks it carries.
 */
public final class PeerMetrics {
  private PeerMetrics() {}

  public static void register(PrometheusRegistry registry, PeerTraffic traffic, RoutedPrefixes routed) {
    CounterWithCallback.builder().name("llmgw_peer_messages_total")
        .help("Count messages this replica sent its watchers and received from its peers").labelNames("direction")
        .callback(cb -> {
          cb.call(traffic.sentMessages(), "sent");
          cb.call(traffic.receivedMessages(), "received");
        }).register(registry);
    CounterWithCallback.builder().name("llmgw_peer_bytes_total")
        .help("Bytes of count messages this replica sent its watchers and received from its peers")
        .labelNames("direction").callback(cb -> {
          cb.call(traffic.sentBytes(), "sent");
          cb.call(traffic.receivedBytes(), "received");
        }).register(registry);
    CounterWithCallback.builder().name("llmgw_peer_refused_messages_total")
        .help("Messages from peers refused: unreadable, not signed with the shared secret, or claiming what cannot be "
            + "(that peer's counts dropped until one is believed)")
        .callback(cb -> cb.call(traffic.refusedMessages())).register(registry);
    CounterWithCallback.builder().name("llmgw_peer_refused_watches_total")
        .help("Watch requests refused: not signed with the shared secret, stale, replayed, or past the cap on watchers")
        .callback(cb -> cb.call(traffic.refusedWatches())).register(registry);
    CounterWithCallback.builder().name("llmgw_peer_routed_blocks_total")
        .help(
            "Prompt blocks this replica routed that it told its peers of, heard of from them, and dropped from a full "
                + "outbox")
        .labelNames("direction").callback(cb -> {
          cb.call(routed.sharedBlocks(), "sent");
          cb.call(routed.learnedBlocks(), "received");
          cb.call(routed.droppedBlocks(), "dropped");
        }).register(registry);
  }
}
