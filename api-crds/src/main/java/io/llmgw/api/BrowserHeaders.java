package io.llmgw.api;

import java.util.Map;
import java.util.function.BiConsumer;

/**
 * What every answer of the gateway's own HTTP ports (the EPP's metrics and admin port, the batch service) says to a
 * browser that might be led to it: do not guess content types, never frame this, send no referrer, and load nothing.
 * The EPP's status page replaces the content policy with its own, which names its inline script by hash.
 */
public final class BrowserHeaders {
  /** A content policy that allows nothing: JSON, metrics text and error bodies need nothing. */
  public static final String NOTHING = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

  private static final Map<String, String> HEADERS = Map.of("X-Content-Type-Options", "nosniff",
      "X-Frame-Options", "DENY", "Referrer-Policy", "no-referrer", "Content-Security-Policy", NOTHING);

  private BrowserHeaders() {}

  /** Sets each header through {@code set} (name, value). */
  public static void apply(BiConsumer<String, String> set) {
    HEADERS.forEach(set);
  }
}
