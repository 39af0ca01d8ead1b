package io.llmgw.extproc.observe;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmgw.picker.Ticker;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The batch service's queues for the status page: the page may read only its own origin, so the EPP reads
 * {@code /admin/batch/status} of the address the operator named ({@code serve --batch-status}) and passes it on. One
 * read a second at most, however many pages are open; an answer that is not the service's list is an error shown on
 * the page, never passed on.
 */
public final class BatchStatusReader {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long FRESH_NANOS = 1_000_000_000L;
  private static final int TIMEOUT_MILLIS = 1_000;
  /** A queue list larger than this is not the batch service's. */
  private static final int MAX_BODY = 1 << 20;

  private final String address;
  private final Ticker ticker;
  private Map<String, Object> last;
  private long readAtNanos;

  /** @param address host:port of the batch service, or null when none was named */
  public BatchStatusReader(String address, Ticker ticker) {
    this.address = address;
    this.ticker = ticker;
  }

  /** {@code {address, pools}} or {@code {address, error}}, or {@code {}} when no batch service was named. */
  public synchronized Map<String, Object> read() {
    if (address == null) {
      return Map.of();
    }
    long now = ticker.nanos();
    if (last == null || now - readAtNanos >= FRESH_NANOS) {
      last = fetch();
      readAtNanos = now;
    }
    return last;
  }

  private Map<String, Object> fetch() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("address", address);
    try {
      HttpURLConnection c = (HttpURLConnection) URI.create("http://" + address + "/admin/batch/status").toURL()
          .openConnection();
      try {
        c.setConnectTimeout(TIMEOUT_MILLIS);
        c.setReadTimeout(TIMEOUT_MILLIS);
        if (c.getResponseCode() != 200) {
          out.put("error", "the batch service answered " + c.getResponseCode());
          return out;
        }
        JsonNode pools;
        try (InputStream in = c.getInputStream()) {
          pools = JSON.readTree(in.readNBytes(MAX_BODY));
        } catch (JacksonException notJson) {
          pools = null;
        }
        if (pools == null || !pools.isArray()) {
          out.put("error", "what answers at " + address + " is not a batch service (its /admin/batch/status is not "
              + "a list of pools)");
        } else {
          out.put("pools", pools);
        }
      } finally {
        c.disconnect();
      }
    } catch (IOException | IllegalArgumentException e) {
      out.put("error", "no batch service answered at " + address + " (" + (e.getMessage() == null
          ? e.getClass().getSimpleName() : e.getMessage()) + ")");
    }
    return out;
  }
}
