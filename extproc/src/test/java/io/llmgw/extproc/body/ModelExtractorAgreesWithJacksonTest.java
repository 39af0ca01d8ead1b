package io.llmgw.extproc.body;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The byte scanner against the Jackson parser it replaced: on valid bodies and on thousands of damaged ones (bytes
 * flipped, dropped, repeated, cut short), fed in chunks of every size, the scanner must find what Jackson finds in the
 * whole body (model, offsets, user, output limit), or refuse the body for the same reason.
 */
class ModelExtractorAgreesWithJacksonTest {
  private static final String[] SEEDS = {
      ModelExtractorTest.BODY,
      "{\"model\":\"llama-3\",\"prompt\":\"Once upon a time\",\"max_tokens\":64,\"temperature\":0.7,\"stream\":false}",
      "{\n  \"model\" : \"m\\u00e9\\\"x\",\n  \"messages\": [ {\"role\": \"system\", \"content\": \"caf\u00e9 \u65e5\u672c "
          + "\ud83d\ude00\"}, {\"role\":\"user\",\"content\":\"tab\\there \\\\ \\/ \\b\\f\\n\\r\"} ],\n"
          + "  \"user\": \"alice-\\u0037\", \"max_completion_tokens\": 12, \"n\": -1.5e+3, \"x\": [true, false, null, 0, "
          + "-0.0, 1E9, {}, []]\n}",
      "{\"user\":42,\"model\":\"a\",\"max_tokens\":99999999999,\"logit_bias\":{\"50256\":-100},\"stop\":[\"\\n\"]}",
      "{\"messages\":[],\"model\":\"\",\"x\":1}",
      "{\"model\":\"m\",\"cache_salt\":\"tenant-\\u00e9 \\\"a\\\"\",\"prompt\":\"p\"}",
      "{\"cache_salt\":7,\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}",
      "[{\"model\":\"a\"}]",
      "{\"model\":{\"name\":\"a\"}}",
  };

  @Test
  void agreesOnValidAndDamagedBodies() {
    Random random = new Random(26);
    int compared = 0;
    for (String seed : SEEDS) {
      byte[] body = seed.getBytes(StandardCharsets.UTF_8);
      compared += compare(body, random);
      for (int n = 0; n < 1_500; n++) {
        compared += compare(damage(body, random), random);
      }
    }
    assertThat(compared).isGreaterThan(10_000);
  }

  /**
   * A prompt's text passes eight bytes at a time where no byte of the eight can matter: every byte value at every place
   * of a run of such words, and across two words, must still be seen (a quote, a backslash, a control character, a byte that
   * starts or continues a multi-byte character), in every chunking.
   */
  @Test
  void everyByteValueAtEveryPlaceOfAPromptIsSeen() {
    Random random = new Random(28);
    byte[] plain = ("{\"model\":\"m\",\"prompt\":\"" + "abcdefgh".repeat(10) + "\",\"max_tokens\":3}")
        .getBytes(StandardCharsets.UTF_8);
    int textStart = new String(plain, StandardCharsets.UTF_8).indexOf("abcdefgh");
    int compared = 0;
    for (int value = 0; value < 256; value++) {
      for (int at = 0; at < 40; at++) {
        byte[] body = plain.clone();
        body[textStart + at] = (byte) value;
        compared += compare(body, random);
      }
    }
    assertThat(compared).isEqualTo(256 * 40 * 6);
  }

  private static int compare(byte[] body, Random random) {
    int[] chunks = {1, 2, 3, 7, body.length + 1, 1 + random.nextInt(Math.max(1, body.length))};
    int n = 0;
    // Jackson's own answer can depend on the chunking (a number cut from what follows it is a number, else an
    // error), so the whole body in one piece is the oracle, and the scanner must give it for every chunking
    Object expected = jackson(body, Math.max(1, body.length));
    for (int chunk : chunks) {
      Object actual = ModelExtractorTest.scan(body, chunk);
      assertThat(actual).as("body %s in chunks of %d", new String(body, StandardCharsets.UTF_8), chunk)
          .isEqualTo(expected);
      n++;
    }
    return n;
  }

  private static Object jackson(byte[] body, int chunk) {
    JacksonModelExtractor x = new JacksonModelExtractor();
    for (int off = 0; off < body.length; off += chunk) {
      x.feed(ByteBuffer.wrap(body, off, Math.min(chunk, body.length - off)));
    }
    return x.finish();
  }

  private static final byte[] INTERESTING = "{}[]\":,\\u0 -.eE+tfn\t\n\u00e9".getBytes(StandardCharsets.UTF_8);

  private static byte[] damage(byte[] body, Random random) {
    List<Byte> b = new ArrayList<>(body.length + 8);
    for (byte x : body) {
      b.add(x);
    }
    int edits = 1 + random.nextInt(3);
    for (int e = 0; e < edits && !b.isEmpty(); e++) {
      int at = random.nextInt(b.size());
      switch (random.nextInt(5)) {
        case 0 -> b.set(at, INTERESTING[random.nextInt(INTERESTING.length)]);
        case 1 -> b.remove(at);
        case 2 -> b.add(at, INTERESTING[random.nextInt(INTERESTING.length)]);
        case 3 -> b.set(at, (byte) random.nextInt(256));
        default -> {
          while (b.size() > at) {
            b.removeLast();
          }
        }
      }
    }
    byte[] out = new byte[b.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = b.get(i);
    }
    return out;
  }
}
