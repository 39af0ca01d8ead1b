package io.llmgw.extproc.request;

import com.google.protobuf.ByteString;
import io.llmgw.picker.Decision;
import io.llmgw.picker.Scored;
import io.llmgw.picker.disagg.PrefillChoice;
import io.llmgw.picker.latency.LoadSnapshot;

/**
 * Where a request goes: the decision, and the body to forward (the original, or one with {@code model} replaced by
 * the target).
 *
 * @param loadAtPick the chosen pod's load when it was picked, for the latency model
 * @param prefill where its prompt is computed when the pool disaggregates (else null)
 * @param scored the candidates and their scores the decision was made from, or null
 */
public record Routed(Decision decision, ByteString body, LoadSnapshot loadAtPick, PrefillChoice prefill,
    Scored scored) {
  public Routed(Decision decision, ByteString body, LoadSnapshot loadAtPick) {
    this(decision, body, loadAtPick, null, null);
  }

  /** The prefill pod's address when a prefill pod computes the prompt, else null. */
  public String prefillAddress() {
    return prefill == null || !prefill.split() ? null : prefill.prefill().address();
  }
}
