package io.llmgw.extproc.body;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;

class UsageSnifferTest {
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

    UsageSniffer big = new UsageSniffer("application/json");
    big.accept(ByteString.copyFromUtf8("{\"data\":[\"" + "x".repeat(1 << 20) + "\"],"), false);
    big.accept(ByteString.copyFromUtf8("\"usage\": {\"prompt_tokens\":8,\"total_tokens\":8,\"x\":{\"y\":1}}}"), true);
    assertThat(big.usage()).as("usage at the tail of a 1 MiB JSON body").isEqualTo(new TokenUsage(8, 0));

    UsageSniffer garbage = new UsageSniffer("application/json");
    garbage.accept(ByteString.copyFromUtf8("{\"usage\":"), true);
    assertThat(garbage.usage()).isNull();
  }
}
