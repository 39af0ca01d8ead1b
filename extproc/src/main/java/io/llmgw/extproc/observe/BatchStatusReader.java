package io.llmgw.extproc.observe;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmgw.api.HttpGet;
import io.llmgw.picker.Ticker;
import java.io.IOException;
import java.time.Duration;
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
  /** One second to answer; a queue list larger than 1 MiB is not the batch service's. */
  private static final HttpGet HTTP = new HttpGet(Duration.ofSeconds(1), 1 << 20);

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
    HttpGet.Answer answer;
    try {
      answer = HTTP.get("http://" + address + "/admin/batch/status", null, null);
    } catch (IOException e) {
      out.put("error", "no batch service answered at " + address + " (" + (e.getMessage() == null
          ? e.getClass().getSimpleName() : e.getMessage()) + ")");
      return out;
    }
    if (answer.status() != 200) {
      out.put("error", "the batch service answered " + answer.status());
      return out;
    }
    JsonNode pools;
    try {
      pools = JSON.readTree(answer.body());
    } catch (JacksonException notJson) {
      pools = null;
    }
    if (pools == null || !pools.isArray()) {
      out.put("error", "what answers at " + address + " is not a batch service (its /admin/batch/status is not a list "
          + "of pools)");
    } else {
      out.put("pools", pools);
    }
    return out;
  }
}
