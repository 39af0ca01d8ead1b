package io.llmgw.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** Issue 49: the one writer of OpenAI's error body: OpenAI's four fields, absent ones null, any text escaped. */
class OpenAiErrorTest {
  static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void theFourFieldsAreWrittenAsOpenAiDoesWithAbsentOnesNull() throws Exception {
    assertThat(new OpenAiError("no such model", "invalid_request_error", null, "model_not_found").json())
        .isEqualTo("{\"error\":{\"message\":\"no such model\",\"type\":\"invalid_request_error\",\"param\":null,"
            + "\"code\":\"model_not_found\"}}");
    JsonNode e = JSON.readTree(new OpenAiError("limit is 1..100", "invalid_request_error", "limit", null).json())
        .get("error");
    assertThat(e.get("param").asText()).isEqualTo("limit");
    assertThat(e.get("code").isNull()).isTrue();
  }

  @Test
  void anyTextIsEscaped() throws Exception {
    String hostile = "quote \" backslash \\ newline \n tab \t nul \u0000 emoji 🦙 </script>";
    JsonNode e = JSON.readTree(new OpenAiError(hostile, "server_error", hostile, hostile).json()).get("error");
    assertThat(e.get("message").asText()).isEqualTo(hostile);
    assertThat(e.get("param").asText()).isEqualTo(hostile);
    assertThat(e.get("code").asText()).isEqualTo(hostile);
  }

  @Test
  void theTypeFollowsWhoIsAtFault() {
    assertThat(OpenAiError.typeFor(404)).isEqualTo("invalid_request_error");
    assertThat(OpenAiError.typeFor(503)).isEqualTo("server_error");
  }
}
