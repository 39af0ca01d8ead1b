package io.llmgw.extproc.server;

import io.llmgw.extproc.observe.Vitals;
import io.llmgw.extproc.observe.tracing.Tracing;
import io.llmgw.extproc.request.Director;
import io.llmgw.extproc.state.Datastore;
import io.llmgw.extproc.tenancy.controller.TenantIdentity;
import io.llmgw.picker.Ticker;

/**
 * What every ext_proc stream shares.
 *
 * @param datastore answers {@code GET /v1/models} from the routes
 * @param bytesPerToken how the prompt's size in tokens is estimated from the body's
 * @param destinationFallbacks the ordered list (primary, then fallbacks) in the header and the metadata; off, both carry
 *     the primary alone, which any ORIGINAL_DST cluster reads
 * @param limits open streams and unfinished body bytes, shared by all streams
 * @param vitals hears whether decisions work
 * @param tracing begins a sampled request's trace (off: never)
 * @param identity who is asking (off: nobody is checked)
 * @param hooks what llm-d's and GIE's tools may ask to see in the answers
 */
public record StreamDeps(Director director, Datastore datastore, Ticker ticker, int maxBodyBytes, int bytesPerToken,
    boolean destinationFallbacks, StreamLimits limits, Vitals vitals, Tracing tracing, TenantIdentity identity,
    WireHooks hooks) {}
