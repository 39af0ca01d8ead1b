package io.llmgw.extproc.body;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.ByteString;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Reads token usage from a response as it streams past: from the SSE event that carries {@code usage} (with
 * {@code stream_options.include_usage}), or from the final JSON. Memory is bounded; past the bound usage is unknown.
 */
public final class UsageSniffer {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX_BUFFER = 4 << 20;
  private static final byte[] USAGE = "\"usage\"".getBytes(StandardCharsets.US_ASCII);

  private final boolean sse;
  private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
  private boolean overflow;
  private TokenUsage usage;

  public UsageSniffer(String contentType) {
    this.sse = contentType != null && contentType.toLowerCase().startsWith("text/event-stream");
  }

  public void accept(ByteString chunk, boolean endOfStream) {
    if (!overflow) {
      if (buffer.size() + chunk.size() > MAX_BUFFER) {
        overflow = true;
        buffer.reset();
      } else {
        byte[] bytes = chunk.toByteArray();
        buffer.write(bytes, 0, bytes.length);
      }
    }
    if (sse) {
      drainSseLines(endOfStream);
    } else if (endOfStream && !overflow) {
      usage = usageOf(buffer.toByteArray(), 0, buffer.size());
    }
  }

  public TokenUsage usage() {
    return usage;
  }

  private void drainSseLines(boolean endOfStream) {
    byte[] data = buffer.toByteArray();
    int start = 0;
    for (int i = 0; i < data.length; i++) {
      if (data[i] == '\n') {
        sseLine(data, start, i);
        start = i + 1;
      }
    }
    if (endOfStream && start < data.length) {
      sseLine(data, start, data.length);
      start = data.length;
    }
    buffer.reset();
    buffer.write(data, start, data.length - start);
    overflow = false;
  }

  private void sseLine(byte[] data, int start, int end) {
    if (end - start > 5 && data[start] == 'd' && contains(data, start, end, USAGE)) {
      int json = start + 5;
      TokenUsage u = usageOf(data, json, end - json);
      if (u != null) {
        usage = u;
      }
    }
  }

  private static TokenUsage usageOf(byte[] data, int off, int len) {
    try {
      JsonNode root = JSON.readTree(data, off, len);
      JsonNode u = root == null ? null : root.get("usage");
      if (u == null || !u.isObject()) {
        return null;
      }
      return new TokenUsage(u.path("prompt_tokens").asLong(0), u.path("completion_tokens").asLong(0));
    } catch (Exception e) {
      return null;
    }
  }

  private static boolean contains(byte[] data, int start, int end, byte[] needle) {
    outer:
    for (int i = start; i <= end - needle.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (data[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }
}
