package io.llmgw.extproc.observe;

import io.llmgw.extproc.peers.PeerExchange;
import io.llmgw.extproc.peers.PeerTraffic;
import io.llmgw.extproc.state.PeerSpend;
import io.llmgw.picker.routed.RoutedPrefixes;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * What the replicas' exchange costs and whether it reads: messages and bytes each way, refusals, and the routed prompt
 * blocks it carries.
 */
public final class PeerMetrics {
  private PeerMetrics() {}

  public static void register(PrometheusRegistry registry, PeerExchange peers, RoutedPrefixes routed,
      PeerSpend spend) {
    PeerTraffic traffic = peers.traffic();
    GaugeWithCallback.builder().name("llmgw_peer_warm")
        .help("1 once every peer this replica watches has greeted it with what it knows (counts, tenants' spending, "
            + "replicas that left, prompts routed lately); 0 while it routes on its own state alone")
        .callback(cb -> cb.call(peers.warm() ? 1 : 0)).register(registry);
    GaugeWithCallback.builder().name("llmgw_peer_unreachable")
        .help("Peers this replica expects and does not hear now (cut off, not answering, refused, or not heard yet): "
            + "each holds its share of every tenant's budget")
        .callback(cb -> cb.call(peers.unreachable())).register(registry);
    GaugeWithCallback.builder().name("llmgw_peer_departed")
        .help("Replicas that left (shut down, restarted, or no longer peers) whose tenants' spending is still held")
        .callback(cb -> cb.call(spend.departed())).register(registry);
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
    CounterWithCallback.builder().name("llmgw_peer_flow_charges_total")
        .help("Flows' charges (token fairness across replicas: tokens a flow was charged, per set of pools and band, "
            + "between two messages) this replica sent its peers, heard from them, and dropped (more than 1,024 flows "
            + "charged between two messages, or more than a message carries)")
        .labelNames("direction").callback(cb -> {
          cb.call(traffic.chargesSent(), "sent");
          cb.call(traffic.chargesReceived(), "received");
          cb.call(peers.droppedCharges(), "dropped");
        }).register(registry);
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
