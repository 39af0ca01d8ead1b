package io.llmgw.bench;

import com.google.protobuf.ByteString;
import io.llmgw.extproc.body.ModelExtractor;
import io.llmgw.extproc.body.RequestBody;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * What the EPP does with a request body before it can route: collect the frames (as Envoy sends them, 16 KiB each)
 * and scan them for the top-level {@code model}, validating the whole JSON. The model field comes last, the worst case.
 * The text is either {@code escaped} (quotes and an accented letter in every sentence: most eight-byte words hold a
 * byte the scan must look at alone) or {@code plain} (one long document in plain ASCII prose, as the long prompts of chat and RAG requests mostly are:
 * every word passes whole).
 */
public class ExtractionBenchmark extends MicroBenchmark {
  @Param({"1024", "102400", "1048576"})
  int bodyBytes;

  @Param({"escaped", "plain"})
  String text;

  List<ByteString> frames;

  @Setup
  public void setup() {
    StringBuilder sb = new StringBuilder("{\"messages\":[");
    int turn = 0;
    boolean plain = text.equals("plain");
    String sentence = plain ? "The quarterly report shows revenue growth in every region. "
        : "The quick brown fox jumps over the lazy dog, \\\"quoted\\\" and unicode \u00e9. ";
    int perMessage = plain ? Math.max(2, (bodyBytes - 300) / sentence.length()) : 2;
    while (sb.length() < bodyBytes - 200) {
      sb.append(turn++ == 0 ? "" : ",").append("{\"role\":\"user\",\"content\":\"")
          .append(sentence.repeat(perMessage))
          .append("\"}");
    }
    sb.append("],\"max_tokens\":128,\"stream\":true,\"model\":\"sql-lora\"}");
    byte[] body = sb.toString().getBytes(StandardCharsets.UTF_8);
    frames = new ArrayList<>();
    for (int off = 0; off < body.length; off += 16_384) {
      frames.add(ByteString.copyFrom(body, off, Math.min(16_384, body.length - off)));
    }
  }

  @Benchmark
  public Object extract() {
    ModelExtractor x = new ModelExtractor();
    RequestBody body = new RequestBody();
    for (ByteString f : frames) {
      body.append(f);
      x.feed(f);
    }
    return x.finish();
  }
}
