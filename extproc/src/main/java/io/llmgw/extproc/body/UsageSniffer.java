package io.llmgw.extproc.body;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.google.protobuf.ByteString;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * Reads token usage from a response as it streams past, in bounded memory: from the SSE event that carries
 * {@code usage} (with {@code stream_options.include_usage}), or from the tail of a JSON body, where OpenAI-style
 * servers put {@code usage}. Unknown usage is simply null; nothing here can fail the response.
 */
public final class UsageSniffer {
  private static final JsonFactory JSON = new JsonFactory();
  private static final byte[] USAGE = "\"usage\"".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] DONE = "data: [DONE]".getBytes(StandardCharsets.US_ASCII);
  private static final int MAX_SSE_LINE = 64 << 10;
  private static final int JSON_TAIL = 8 << 10;

  private final boolean sse;
  private byte[] carry = new byte[0];
  private TokenUsage usage;
  private int dataEvents;

  public UsageSniffer(String contentType) {
    this.sse = contentType != null && contentType.toLowerCase(Locale.ROOT).startsWith("text/event-stream");
  }

  public void accept(ByteString chunk, boolean endOfStream) {
    if (sse) {
      acceptSse(concat(carry, chunk), endOfStream);
      return;
    }
    // Only the tail can hold usage: copy no more of a large JSON body than the tail keeps.
    carry = chunk.size() >= JSON_TAIL
        ? chunk.substring(chunk.size() - JSON_TAIL).toByteArray()
        : lastBytes(concat(carry, chunk), JSON_TAIL);
    if (endOfStream) {
      int at = lastIndexOf(carry, USAGE);
      TokenUsage u = at < 0 ? null : usageObjectAt(carry, at + USAGE.length, carry.length);
      if (u != null) {
        usage = u;
      }
    }
  }

  private void acceptSse(byte[] data, boolean endOfStream) {
    int start = 0;
    for (int i = 0; i < data.length; i++) {
      if (data[i] == '\n') {
        sseLine(data, start, i);
        start = i + 1;
      }
    }
    if (endOfStream) {
      sseLine(data, start, data.length);
      start = data.length;
    }
    carry = data.length - start > MAX_SSE_LINE ? new byte[0] : Arrays.copyOfRange(data, start, data.length);
  }

  public TokenUsage usage() {
    return usage;
  }

  /** Whether the response is a server-sent event stream (tokens arrive as they are generated). */
  public boolean streaming() {
    return sse;
  }

  /** SSE {@code data:} events other than {@code [DONE]}: the tokens streamed when no usage is reported. */
  public int dataEvents() {
    return dataEvents;
  }

  private void sseLine(byte[] data, int start, int end) {
    if (end - start > 5 && data[start] == 'd') {
      if (!startsWith(data, start, end, DONE)) {
        dataEvents++;
      }
      int at = indexOf(data, start, end, USAGE);
      TokenUsage u = at < 0 ? null : usageObjectAt(data, at + USAGE.length, end);
      if (u != null) {
        usage = u;
      }
    }
  }

  /** Reads {@code : { "prompt_tokens": n, "completion_tokens": m, ... }} starting after the {@code "usage"} key. */
  private static TokenUsage usageObjectAt(byte[] data, int from, int end) {
    int i = from;
    while (i < end && (data[i] == ' ' || data[i] == ':' || data[i] == '\t')) {
      i++;
    }
    if (i >= end || data[i] != '{') {
      return null;
    }
    long prompt = -1;
    long completion = -1;
    try (JsonParser p = JSON.createParser(data, i, end - i)) {
      p.nextToken();
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken v = p.nextToken();
        if (v == JsonToken.VALUE_NUMBER_INT && "prompt_tokens".equals(name)) {
          prompt = p.getLongValue();
        } else if (v == JsonToken.VALUE_NUMBER_INT && "completion_tokens".equals(name)) {
          completion = p.getLongValue();
        } else {
          p.skipChildren();
        }
      }
    } catch (Exception e) {
      return null;
    }
    return prompt < 0 && completion < 0 ? null : new TokenUsage(Math.max(0, prompt), Math.max(0, completion));
  }

  private static boolean startsWith(byte[] data, int start, int end, byte[] prefix) {
    return end - start >= prefix.length && Arrays.equals(data, start, start + prefix.length, prefix, 0, prefix.length);
  }

  private static byte[] lastBytes(byte[] data, int n) {
    return data.length > n ? Arrays.copyOfRange(data, data.length - n, data.length) : data;
  }

  private static byte[] concat(byte[] a, ByteString b) {
    if (a.length == 0) {
      return b.toByteArray();
    }
    byte[] out = Arrays.copyOf(a, a.length + b.size());
    b.copyTo(out, a.length);
    return out;
  }

  private static int indexOf(byte[] data, int start, int end, byte[] needle) {
    outer : for (int i = start; i <= end - needle.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (data[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  private static int lastIndexOf(byte[] data, byte[] needle) {
    for (int i = data.length - needle.length; i >= 0; i--) {
      if (Arrays.equals(data, i, i + needle.length, needle, 0, needle.length)) {
        return i;
      }
    }
    return -1;
  }
}
