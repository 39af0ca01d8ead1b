package io.llmgw.extproc.body;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;

class UsageSnifferTest {
  /** Issue 30: a streamed Responses API call carries its usage, as input and output tokens, in response.completed. */
  @Test
  void usageIsReadFromAStreamedResponsesCallsCompletedEvent() {
    UsageSniffer sse = new UsageSniffer("text/event-stream");
    String stream = "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"usage\":null}}\n\n"
        + "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"hi\"}\n\n"
        + "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"output\":[],"
        + "\"usage\":{\"input_tokens\":12,\"input_tokens_details\":{\"cached_tokens\":4},\"output_tokens\":3,"
        + "\"total_tokens\":15}}}\n\n";
    for (int off = 0; off < stream.length(); off += 7) {
      int end = Math.min(stream.length(), off + 7);
      sse.accept(ByteString.copyFromUtf8(stream.substring(off, end)), end == stream.length());
    }
    assertThat(sse.usage()).isEqualTo(new TokenUsage(12, 3, 4));
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
    assertThat(sse.dataEvents()).as("two data events; [DONE] is not one").isEqualTo(2);

    UsageSniffer json = new UsageSniffer("application/json");
    json.accept(ByteString.copyFromUtf8("{\"usage\":{\"prompt_tokens\":3,"), false);
    json.accept(ByteString.copyFromUtf8("\"completion_tokens\":4}}"), true);
    assertThat(json.usage()).isEqualTo(new TokenUsage(3, 4));

    UsageSniffer big = new UsageSniffer("application/json");
    big.accept(ByteString.copyFromUtf8("{\"data\":[\"" + "x".repeat(1 << 20) + "\"],"), false);
    big.accept(ByteString.copyFromUtf8("\"usage\": {\"prompt_tokens\":8,\"total_tokens\":8,\"x\":{\"y\":1}}}"), true);
    assertThat(big.usage()).as("usage at the tail of a 1 MiB JSON body").isEqualTo(new TokenUsage(8, 0));

    UsageSniffer split = new UsageSniffer("application/json");
    split.accept(ByteString.copyFromUtf8("{\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":6}"), false);
    for (int i = 0; i < 10; i++) {
      split.accept(ByteString.copyFromUtf8(" ".repeat(1024)), false);
    }
    split.accept(ByteString.copyFromUtf8("}"), true);
    assertThat(split.usage()).as("usage 10 KiB before the end: past the tail, not read").isNull();

    UsageSniffer garbage = new UsageSniffer("application/json");
    garbage.accept(ByteString.copyFromUtf8("{\"usage\":"), true);
    assertThat(garbage.usage()).isNull();
  }

  @Test
  void onlyTheUsageObjectsOwnCountsAreRead() {
    assertThat(jsonUsage("{\"usage\": {\"prompt_tokens\": 11, \"prompt_tokens_details\": {\"cached_tokens\": 5, "
        + "\"completion_tokens\": 99}, \"note\": \"a \\\"completion_tokens\\\": 42\", \"completion_tokens\":7}}"))
        .as("nested and quoted look-alikes are not the counts").isEqualTo(new TokenUsage(11, 7, 5));
    assertThat(jsonUsage("{\"usage\":{\"prompt_tokens\":11,\"completion_tokens\":7}}").cachedTokens())
        .as("not reported").isEqualTo(-1);
    assertThat(jsonUsage("{\"usage\":{\"prompt_tokens\":11,\"prompt_tokens_details\":{\"cached_tokens\":\"x\"},"
        + "\"completion_tokens\":7}}")).as("a garbage cache count is no count; the usage stands")
        .isEqualTo(new TokenUsage(11, 7, -1));
    assertThat(jsonUsage("{\"usage\":{\"prompt_tokens\":11,\"prompt_tokens_details\":null,\"completion_tokens\":7}}"))
        .isEqualTo(new TokenUsage(11, 7, -1));
    assertThat(new TokenUsage(11, 7, 12).reportsCache()).as("more cached than the prompt").isFalse();
    assertThat(new TokenUsage(11, 7, 11).reportsCache()).isTrue();
    assertThat(jsonUsage("{\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":")).as("unterminated").isNull();
    assertThat(jsonUsage("{\"usage\":{\"prompt_tokens\":\"3\",\"completion_tokens\":-2}}")).as("not whole numbers: "
        + "garbage, which tenancy counts and does not believe").isEqualTo(TokenUsage.MALFORMED);
    assertThat(jsonUsage("{\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":-2}}").plausible()).isFalse();
    assertThat(jsonUsage("{\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1.5}}").plausible()).isFalse();
    assertThat(jsonUsage("{\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":99999999999}}").plausible())
        .as("absurd").isFalse();
    assertThat(jsonUsage("{\"usage\":null}")).isNull();
  }

  private static TokenUsage jsonUsage(String body) {
    UsageSniffer json = new UsageSniffer("application/json");
    json.accept(ByteString.copyFromUtf8(body), true);
    return json.usage();
  }

  @Test
  void streamedEventsAreCountedWithoutUsageAndAcrossChunkBoundaries() {
    UsageSniffer sse = new UsageSniffer("text/event-stream");
    StringBuilder stream = new StringBuilder();
    for (int i = 0; i < 50; i++) {
      stream.append("data: {\"choices\":[{\"delta\":{\"content\":\"t").append(i).append("\"}}]}\n\n");
    }
    stream.append("data: [DONE]\n\n");
    byte[] bytes = stream.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    for (int off = 0; off < bytes.length; off += 37) {
      int end = Math.min(bytes.length, off + 37);
      sse.accept(ByteString.copyFrom(bytes, off, end - off), end == bytes.length);
    }
    assertThat(sse.usage()).isNull();
    assertThat(sse.dataEvents()).isEqualTo(50);
  }

  /**
   * The lines of a stream are read where gRPC put them, however it cut them: in chunks of any size, as arrays, slices,
   * ropes or off-heap buffers, the usage and the events counted are those of the stream in one piece, a comment line
   * longer than a carried line may be among them.
   */
  @Test
  void linesAreReadAlikeHoweverTheStreamIsCutAndHeld() {
    StringBuilder stream = new StringBuilder();
    for (int i = 0; i < 20; i++) {
      stream.append("data: {\"choices\":[{\"delta\":{\"content\":\"t").append(i).append("\"}}]}\r\n\r\n");
    }
    stream.append(": ").append("x".repeat(70 << 10)).append("\n\n");
    stream.append("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":11,\"completion_tokens\":20}}\n\ndata: [DONE]");
    byte[] bytes = stream.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    java.util.Random random = new java.util.Random(28);
    for (int run = 0; run < 40; run++) {
      int cut = run == 0 ? bytes.length : 1 + random.nextInt(run % 2 == 0 ? 64 : 96 << 10);
      UsageSniffer sse = new UsageSniffer("text/event-stream");
      for (int off = 0; off < bytes.length; off += cut) {
        int end = Math.min(bytes.length, off + cut);
        sse.accept(held(bytes, off, end, run % 4), end == bytes.length);
      }
      assertThat(sse.usage()).as("cut every %d bytes, held as form %d", cut, run % 4)
          .isEqualTo(new TokenUsage(11, 20));
      assertThat(sse.dataEvents()).isEqualTo(21);
    }
  }

  /**
   * A line cut across chunks is kept up to 64 KiB; past that it is skipped to its end, whatever its rest looks like,
   * and the lines after it are read.
   */
  @Test
  void aLineTooLongToKeepIsSkippedToItsEnd() {
    UsageSniffer sse = new UsageSniffer("text/event-stream");
    sse.accept(
        ByteString.copyFromUtf8("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":11,\"completion_tokens\":20}}"
            + "\n\ndata: {\"note\":\""),
        false);
    sse.accept(ByteString.copyFromUtf8("x".repeat(70 << 10)), false);
    sse.accept(ByteString.copyFromUtf8("data: {\"usage\":{\"prompt_tokens\":1}}\n\n"), false);
    assertThat(sse.usage()).as("the rest of the long line is not a line of its own").isEqualTo(new TokenUsage(11, 20));
    sse.accept(ByteString.copyFromUtf8("data: {\"usage\":{\"prompt_tokens\":2,\"completion_tokens\":3}}"), false);
    sse.accept(ByteString.copyFromUtf8("\n\ndata: [DONE]\n\n"), true);
    assertThat(sse.usage()).as("the line after it, carried across two chunks").isEqualTo(new TokenUsage(2, 3));
    assertThat(sse.dataEvents()).isEqualTo(2);
  }

  /** {@code b[from, end)} as protobuf may hold it: an array, a slice of a larger one, off-heap, or a rope of two. */
  private static ByteString held(byte[] b, int from, int end, int form) {
    return switch (form) {
      case 0 -> ByteString.copyFrom(b, from, end - from);
      case 1 -> com.google.protobuf.UnsafeByteOperations.unsafeWrap(b, from, end - from);
      case 2 -> com.google.protobuf.UnsafeByteOperations.unsafeWrap(
          java.nio.ByteBuffer.allocateDirect(end - from).put(b, from, end - from).flip());
      default -> ByteString.copyFrom(b, from, (end - from) / 2)
          .concat(ByteString.copyFrom(b, from + (end - from) / 2, end - from - (end - from) / 2));
    };
  }
}
