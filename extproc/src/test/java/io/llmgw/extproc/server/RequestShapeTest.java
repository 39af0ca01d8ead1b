package io.llmgw.extproc.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.extproc.reply.ErrorReply;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Issue 32, item 5: what an inference request's method and content type may be, garbage included. */
class RequestShapeTest {
  static ErrorReply refusal(String method, String path, String contentType) {
    Map<String, String> h = new HashMap<>(Map.of(":method", method, ":path", path));
    if (contentType != null) {
      h.put("content-type", contentType);
    }
    return RequestShape.refusal(h);
  }

  @Test
  void jsonIsRecognisedWithParametersCaseAndSuffixesAndNothingElseIs() {
    for (String json : new String[] {"application/json", "Application/JSON; charset=UTF-8",
        " application/json ;charset=utf-8", "application/vnd.openai+json"}) {
      assertThat(RequestShape.isJson(json)).as(json).isTrue();
    }
    for (String other : new String[] {"", ";", "application/json-seq", "application/jsonx", "text/json",
        "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/+json\u0000"}) {
      assertThat(RequestShape.isJson(other)).as(other).isFalse();
    }
  }

  @Test
  void onlyInferencePathsAreCheckedAndTheirQueryDoesNotHideThem() {
    assertThat(refusal("GET", "/v1/chat/completions?stream=true", null).status()).isEqualTo(405);
    assertThat(refusal("HEAD", "/v1/embeddings", null).code().wire()).isEqualTo("method_not_allowed");
    assertThat(refusal("POST", "/v1/completions", "text/plain").status()).isEqualTo(415);
    assertThat(refusal("POST", "/v1/responses", null)).as("no content type: read as JSON").isNull();
    assertThat(refusal("GET", "/v1/models", "text/plain")).as("not an inference path").isNull();
    assertThat(refusal("POST", "/v1/chat/completionsX", "text/plain")).isNull();
    ErrorReply hostile = refusal("PO\nST", "/v1/chat/completions", null);
    assertThat(hostile.message()).as("client text is cleaned before it is repeated").doesNotContain("\n");
    assertThat(refusal("POST", "/v1/chat/completions", "text/\u0007plain").message()).doesNotContain("\u0007");
  }
}
