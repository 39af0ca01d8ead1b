package io.llmgw.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Arrays;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Issue 49: one table of codes, each with one OpenAI type and one reason in llm-d's header. */
class ErrorCodeTest {
  @Test
  void everyCodeHasItsOwnWireNameAKnownTypeAndADropReason() {
    assertThat(Arrays.stream(ErrorCode.values()).map(ErrorCode::wire).distinct().count())
        .isEqualTo(ErrorCode.values().length);
    Set<String> types = Set.of(ErrorCode.Type.INVALID_REQUEST, ErrorCode.Type.RATE_LIMIT,
        ErrorCode.Type.INSUFFICIENT_QUOTA, ErrorCode.Type.SERVER);
    for (ErrorCode c : ErrorCode.values()) {
      assertThat(c.wire()).as(c.name()).matches("[a-z_]+").isEqualTo(c.name().toLowerCase(java.util.Locale.ROOT));
      assertThat(types).as(c.name()).contains(c.type());
      assertThat(c.dropReason()).as(c.name()).matches("rejected-[a-z-]+|evicted");
    }
  }

  @Test
  void aBodyCarriesTheCodesTypeAndWireName() throws Exception {
    JsonNode e = new ObjectMapper().readTree(ErrorCode.RATE_LIMIT_EXCEEDED.error("tenant \"a\" spent", "model").json())
        .get("error");
    assertThat(e.get("type").asText()).isEqualTo("rate_limit_error");
    assertThat(e.get("code").asText()).isEqualTo("rate_limit_exceeded");
    assertThat(e.get("param").asText()).isEqualTo("model");
    assertThat(e.get("message").asText()).isEqualTo("tenant \"a\" spent");
    assertThat(ErrorCode.RATE_LIMIT_EXCEEDED.dropReason()).isEqualTo(DropReason.TENANT_BUDGET);
    assertThat(ErrorCode.INSUFFICIENT_QUOTA.type()).isEqualTo("insufficient_quota");
  }

  @Test
  void aWireNameTheTableDoesNotHoldFallsBackToTheGivenCode() {
    assertThat(ErrorCode.ofWire("subset_mismatch", ErrorCode.NO_READY_ENDPOINT)).isEqualTo(ErrorCode.SUBSET_MISMATCH);
    assertThat(ErrorCode.ofWire("prefill_busy\u0000", ErrorCode.NO_READY_ENDPOINT))
        .isEqualTo(ErrorCode.NO_READY_ENDPOINT);
    assertThat(ErrorCode.ofWire(null, ErrorCode.INTERNAL_ERROR)).isEqualTo(ErrorCode.INTERNAL_ERROR);
  }
}
