package io.llmgw.scraper.kvevents;

/** A message that is not a KV-event batch as vLLM encodes it; the message says what was wrong and where. */
public final class KvEventFormatException extends Exception {
  public KvEventFormatException(String message) {
    super(message);
  }
}
