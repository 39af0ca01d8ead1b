package io.llmgw.extproc.tokens;

import com.google.protobuf.ByteString;
import java.util.concurrent.CompletableFuture;

/**
 * A tokenizer that runs elsewhere (a vLLM render server): it is handed the whole request and answers later, so the
 * request waits for it holding no thread. Its {@link #tokenIds} answers null: nothing is tokenized in process.
 */
public interface RemoteTokenizer extends Tokenizer {
  /** The model name the server renders with: it replaces the request's own (an adapter's name means nothing there). */
  String modelName();

  /**
   * Starts rendering and tokenizing one request. The future completes within this tokenizer's time bound with the
   * prompt's token ids, or null when they cannot be had (timeout, error, garbage, too many in flight); never
   * exceptionally.
   *
   * @param chat true for a chat request ({@code messages}), false for a completion ({@code prompt})
   * @param body the whole request body, its model already replaced by {@link #modelName}
   */
  CompletableFuture<int[]> render(boolean chat, ByteString body);

  @Override
  default int[] tokenIds(byte[] promptJson, boolean whole) {
    return null;
  }
}
