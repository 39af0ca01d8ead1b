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
}
