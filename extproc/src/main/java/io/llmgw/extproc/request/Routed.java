package io.llmgw.extproc.request;

import com.google.protobuf.ByteString;
import io.llmgw.picker.Decision;
import io.llmgw.picker.latency.LoadSnapshot;

/**
 * Where a request goes: the decision, and the body to forward (the original, or one with {@code model} replaced by
 * the target).
 *
 * @param loadAtPick the chosen pod's load when it was picked, for the latency model
 */
public record Routed(Decision decision, ByteString body, LoadSnapshot loadAtPick) {}
