package io.llmgw.picker;

import java.util.List;

/**
 * The candidates a profile scored for one request and their weighted totals, index for index: what the picker chose
 * from. Held by reference (the arrays the pick made), read only when the EPP is asked to tell them
 * ({@code --emit-endpoint-scores}).
 */
public record Scored(List<EndpointState> candidates, double[] totals) {}
