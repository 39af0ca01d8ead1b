package io.llmgw.extproc.tokens;

import ai.djl.huggingface.tokenizers.Encoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * A model's own tokenizer, read from its Hugging Face {@code tokenizer.json} (DJL's binding of the Rust
 * {@code tokenizers} library, whose native code ships in its jar). A completion's {@code prompt} string is encoded as
 * vLLM encodes it, special tokens included. Chat messages need the model's chat template, which this build does not
 * render: for them it answers null, and the request is matched approximately.
 */
public final class HuggingFaceTokenizer implements Tokenizer, AutoCloseable {
  public static final String PREFIX = "hf:";
  private static final JsonFactory JSON = new JsonFactory();

  private final String name;
  private final ai.djl.huggingface.tokenizers.HuggingFaceTokenizer tokenizer;

  /** @throws IllegalArgumentException naming the file when it cannot be read as a tokenizer */
  public HuggingFaceTokenizer(Path tokenizerJson) {
    this.name = PREFIX + tokenizerJson;
    try {
      // no download, no warning about a missing model max length: the file is all there is
      this.tokenizer = ai.djl.huggingface.tokenizers.HuggingFaceTokenizer.newInstance(tokenizerJson,
          Map.of("modelMaxLength", "1000000"));
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("cannot read the tokenizer " + tokenizerJson + ": " + e.getMessage(), e);
    }
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int[] tokenIds(byte[] promptJson, boolean whole) {
    if (!whole) {
      return null; // a cut string's last tokens could change with more text; rare enough to match approximately
    }
    String text;
    try (JsonParser p = JSON.createParser(promptJson)) {
      JsonToken t = p.nextToken();
      if (t == JsonToken.START_ARRAY && p.nextToken() == JsonToken.VALUE_STRING) {
        text = p.getText();
        if (p.nextToken() != JsonToken.END_ARRAY) {
          return null; // several prompts in one request
        }
      } else if (t == JsonToken.VALUE_STRING) {
        text = p.getText();
      } else {
        return null; // chat messages: the chat template is not rendered here
      }
    } catch (IOException e) {
      return null;
    }
    Encoding encoding = tokenizer.encode(text);
    long[] ids = encoding.getIds();
    int[] out = new int[ids.length];
    for (int i = 0; i < ids.length; i++) {
      out[i] = (int) ids[i];
    }
    return out;
  }

  @Override
  public void close() {
    tokenizer.close();
  }
}
