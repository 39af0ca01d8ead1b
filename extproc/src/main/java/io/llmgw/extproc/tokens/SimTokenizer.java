package io.llmgw.extproc.tokens;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import net.openhft.hashing.LongHashFunction;

/**
 * The simulator's tokenizer, reproduced from its documented rule: a chat prompt is rendered as {@code role: content}
 * and a newline per message (content parts' texts joined), a completion prompt as itself; every 4 UTF-16 characters of
 * that text (the last group may be shorter) are one token whose id is the group's xxHash64 modulo 128,256. For a
 * prompt cut short, only complete messages are rendered and only whole groups answered.
 */
public final class SimTokenizer implements Tokenizer {
  public static final String NAME = "sim";
  private static final int CHARS_PER_TOKEN = 4;
  private static final int VOCABULARY = 128_256;
  private static final JsonFactory JSON = new JsonFactory();

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public int[] tokenIds(byte[] promptJson, boolean whole) {
    StringBuilder text = new StringBuilder(promptJson.length);
    boolean complete;
    try (JsonParser p = JSON.createParser(promptJson)) {
      complete = render(p, text);
    } catch (IOException e) {
      complete = false; // cut short inside a message: what was rendered before it stands
    }
    if (!complete && whole) {
      return null; // a whole prompt that does not parse is not one the engine would tokenize
    }
    int n = complete ? (text.length() + CHARS_PER_TOKEN - 1) / CHARS_PER_TOKEN : text.length() / CHARS_PER_TOKEN;
    int[] ids = new int[n];
    String s = text.toString();
    for (int i = 0; i < n; i++) {
      int from = i * CHARS_PER_TOKEN;
      ids[i] = (int) Math.floorMod(
          LongHashFunction.xx().hashChars(s, from, Math.min(CHARS_PER_TOKEN, s.length() - from)), VOCABULARY);
    }
    return ids;
  }

  /** Renders into {@code out}; true when the value ended (not cut short). */
  private static boolean render(JsonParser p, StringBuilder out) throws IOException {
    JsonToken t = p.nextToken();
    if (t == JsonToken.VALUE_STRING) {
      out.append(p.getText());
      return true;
    }
    if (t != JsonToken.START_ARRAY) {
      throw new IOException("a prompt is a string or an array");
    }
    while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
      if (t == JsonToken.VALUE_STRING) {
        out.append(p.getText()); // a completion prompt given as [string]
      } else if (t == JsonToken.START_OBJECT) {
        message(p, out);
      } else {
        throw new IOException("unexpected " + t + " in a prompt");
      }
    }
    return true;
  }

  /** One chat message, appended only once it is complete. */
  private static void message(JsonParser p, StringBuilder out) throws IOException {
    String role = "user";
    StringBuilder content = new StringBuilder();
    JsonToken t;
    while ((t = p.nextToken()) != JsonToken.END_OBJECT) {
      String field = p.currentName();
      t = p.nextToken();
      if ("role".equals(field) && t == JsonToken.VALUE_STRING) {
        role = p.getText();
      } else if ("content".equals(field) && t == JsonToken.VALUE_STRING) {
        content.append(p.getText());
      } else if ("content".equals(field) && t == JsonToken.START_ARRAY) {
        while (p.nextToken() == JsonToken.START_OBJECT) {
          while (p.nextToken() != JsonToken.END_OBJECT) {
            String partField = p.currentName();
            JsonToken v = p.nextToken();
            if ("text".equals(partField) && v == JsonToken.VALUE_STRING) {
              content.append(p.getText());
            } else {
              p.skipChildren();
            }
          }
        }
      } else {
        p.skipChildren();
      }
    }
    out.append(role).append(": ").append(content).append('\n');
  }
}
