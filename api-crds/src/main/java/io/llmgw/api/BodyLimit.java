package io.llmgw.api;

/**
 * The largest request body the gateway takes, one figure for every part that buffers one: the EPP (its default, which
 * {@code serve --max-body-bytes} changes), the dev proxy (which keeps bodies for retries) and a batch input line. The
 * EPP and the proxy answer a larger body 413 {@code request_too_large} in OpenAI's error shape; the batch service
 * refuses the file naming the line.
 */
public final class BodyLimit {
  /** 8 MiB: a 128k-token prompt is about 512 KiB of text; the rest is room for images as data URLs. */
  public static final int DEFAULT_BYTES = 8 << 20;

  private BodyLimit() {}
}
