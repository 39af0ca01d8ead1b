package io.llmgw.extproc.body;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ResponseModelRewriterTest {
  static final String SSE = "data: {\"id\":\"1\",\"model\":\"sql-v2\",\"choices\":[]}\n\n"
      + "data: {\"id\":\"2\",\"model\": \"sql-v2\",\"choices\":[]}\n\ndata: [DONE]\n\n";

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 5, 13, 1000})
  void rewritesTheTargetBackToTheRequestedNameAcrossChunkBoundaries(int chunk) {
    ResponseModelRewriter r = new ResponseModelRewriter("sql-v2", "sql-lora");
    StringBuilder out = new StringBuilder();
    for (int off = 0; off < SSE.length(); off += chunk) {
      int end = Math.min(SSE.length(), off + chunk);
      out.append(r.apply(ByteString.copyFromUtf8(SSE.substring(off, end)), end == SSE.length()).toStringUtf8());
    }
    assertThat(out.toString()).isEqualTo(SSE.replace("sql-v2", "sql-lora"));
  }

  @Test
  void aChunkThatEndsAnEventIsNotHeldBack() {
    ResponseModelRewriter r = new ResponseModelRewriter("sql-v2", "sql-lora");
    String event = "data: {\"model\":\"sql-v2\",\"x\":1}\n\n";
    assertThat(r.apply(ByteString.copyFromUtf8(event), false).toStringUtf8()).endsWith("}\n\n");
    assertThat(r.apply(ByteString.copyFromUtf8("data: {\"mod"), false).toStringUtf8()).isEqualTo("data: {");
  }

  @Test
  void usageIsReadFromTheSseUsageChunkOrTheFinalJson() {
    UsageSniffer sse = new UsageSniffer("text/event-stream; charset=utf-8");
    String stream = "data: {\"choices\":[{\"text\":\"a\"}],\"usage\":null}\n\n"
        + "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":11,\"completion_tokens\":7}}\n\ndata: [DONE]\n\n";
    for (int off = 0; off < stream.length(); off += 9) {
      int end = Math.min(stream.length(), off + 9);
      sse.accept(ByteString.copyFromUtf8(stream.substring(off, end)), end == stream.length());
    }
    assertThat(sse.usage()).isEqualTo(new TokenUsage(11, 7));

    UsageSniffer json = new UsageSniffer("application/json");
    json.accept(ByteString.copyFromUtf8("{\"usage\":{\"prompt_tokens\":3,"), false);
    json.accept(ByteString.copyFromUtf8("\"completion_tokens\":4}}"), true);
    assertThat(json.usage()).isEqualTo(new TokenUsage(3, 4));

    UsageSniffer garbage = new UsageSniffer("application/json");
    garbage.accept(ByteString.copyFromUtf8("{\"usage\":"), true);
    assertThat(garbage.usage()).isNull();
  }
}
