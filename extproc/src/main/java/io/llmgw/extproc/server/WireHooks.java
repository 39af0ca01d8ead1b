package io.llmgw.extproc.server;

/**
 * Optional additions to the EPP's answers, for proxies and test suites written against llm-d and GIE; off unless
 * asked for.
 *
 * @param emitEndpointScores {@code --emit-endpoint-scores}: every scored candidate's weighted score in the {@code
 *     envoy.lb} metadata ({@code x-gateway-destination-endpoint-scores}), as llm-d emits them
 * @param conformanceTestHooks {@code --conformance-test-hooks}: GIE's conformance suite steers a request with {@code
 *     test-epp-endpoint-selection} and reads {@code x-conformance-test-served-endpoint} on the response. For
 *     conformance runs only: any client could pick its pod with the header
 */
public record WireHooks(boolean emitEndpointScores, boolean conformanceTestHooks) {
  public static final WireHooks NONE = new WireHooks(false, false);
}
