package io.llmgw.extproc.server;

import io.llmgw.extproc.flow.FlowControl;
import io.llmgw.extproc.latency.LatencyTracker;
import io.llmgw.extproc.observe.EppMetrics;
import io.llmgw.extproc.routing.RequestRouter;
import io.llmgw.extproc.state.Datastore;

/**
 * What every ext_proc stream shares.
 *
 * @param flow told when a response ends (a pod has room), holds requests while their pool is saturated
 * @param latency learns from every completed response
 *
 * @param headerCarriesFallbacks put the whole ordered list in the destination header too; off by default because
 *     Envoy's ORIGINAL_DST cluster accepts a single {@code ip:port} there (the metadata always carries the list)
 */
public record StreamDeps(RequestRouter router, Datastore datastore, EppMetrics metrics, int maxBodyBytes,
    boolean headerCarriesFallbacks, FlowControl flow, LatencyTracker latency) {}
