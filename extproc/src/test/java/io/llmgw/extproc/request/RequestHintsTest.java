package io.llmgw.extproc.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.llmgw.api.EppProtocol;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Issue 48: llm-d's header names read beside ours, ours winning, and garbage in either a 400 naming it. */
class RequestHintsTest {
  @Test
  void llmdsNamesAreReadWhenOursAreAbsent() throws Exception {
    RequestHints h = RequestHints.parse(Map.of(EppProtocol.LLMD_SLO_TTFT_MS, "250",
        EppProtocol.LLMD_FAIRNESS_ID, "team-a"));
    assertThat(h.sloTtftMs()).isEqualTo(250);
    assertThat(h.fairnessId()).isEqualTo("team-a");
    RequestHints both = RequestHints.parse(Map.of(EppProtocol.SLO_TTFT_MS, "100", EppProtocol.LLMD_SLO_TTFT_MS, "250",
        EppProtocol.FAIRNESS_ID, "ours", EppProtocol.LLMD_FAIRNESS_ID, "theirs"));
    assertThat(both.sloTtftMs()).isEqualTo(100);
    assertThat(both.fairnessId()).isEqualTo("ours");
  }

  @Test
  void garbageInLlmdsSloHeaderIsRefusedNamingIt() {
    assertThatThrownBy(() -> RequestHints.parse(Map.of(EppProtocol.LLMD_SLO_TTFT_MS, "soon")))
        .isInstanceOf(RequestHints.BadHeader.class).hasMessageContaining(EppProtocol.LLMD_SLO_TTFT_MS);
    assertThatThrownBy(() -> RequestHints.parse(Map.of(EppProtocol.LLMD_SLO_TTFT_MS, "-5")))
        .hasMessageContaining("between 1 and 3600000");
  }
}
