package io.llmgw.batch.dispatch;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmgw.api.ClientText;
import io.llmgw.api.LoadReport;
import io.llmgw.api.PoolLoad;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Reads the EPP's {@code GET /admin/load}. Anything but a well-formed answer in time is an {@link Unreadable}: the
 * caller then closes every budget rather than guess.
 */
public final class LoadReader implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX_BYTES = 4 << 20;

  private final HttpClient http;
  private final URI uri;
  private final Duration timeout;
  private final String token;

  /**
   * @param eppAdmin host:port of the EPP's metrics port, or a URL: https:// when it serves --metrics-tls (verified
   *     against the JVM's trust store, -Djavax.net.ssl.trustStore for a private CA)
   * @param token the bearer token the EPP wants for reads, or null
   */
  public LoadReader(String eppAdmin, Duration timeout, String token) {
    this.uri = URI.create((eppAdmin.contains("://") ? eppAdmin : "http://" + eppAdmin) + "/admin/load");
    this.timeout = timeout;
    this.token = token;
    this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
  }

  /** Why a reading failed, worded for a log line. */
  public static final class Unreadable extends Exception {
    public Unreadable(String message) {
      super(message);
    }
  }

  public LoadReport read() throws Unreadable {
    HttpResponse<byte[]> r;
    try {
      HttpRequest.Builder req = HttpRequest.newBuilder(uri).timeout(timeout);
      if (token != null) {
        req.header("Authorization", "Bearer " + token);
      }
      r = http.send(req.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw new Unreadable(uri + " unreachable: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Unreadable("interrupted");
    }
    if (r.statusCode() != 200) {
      throw new Unreadable(uri + " answered " + r.statusCode() + (r.statusCode() == 401
          ? " (the EPP wants its read token: setting endpoints.eppToken)" : ""));
    }
    if (r.body().length > MAX_BYTES) {
      throw new Unreadable(uri + " answered " + r.body().length + " bytes, more than " + MAX_BYTES);
    }
    return parse(r.body());
  }

  static LoadReport parse(byte[] body) throws Unreadable {
    JsonNode root;
    try {
      root = JSON.readTree(body);
    } catch (IOException e) {
      throw new Unreadable("the EPP's load is not JSON: "
          + ClientText.clean(e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.toString()));
    }
    if (root == null || !root.path("pools").isArray() || !root.path("models").isObject()) {
      throw new Unreadable("the EPP's load lacks 'pools' or 'models'");
    }
    List<PoolLoad> pools = new ArrayList<>();
    for (JsonNode p : root.get("pools")) {
      String name = p.path("pool").asText(null);
      int pods = count(p, "pods");
      int running = count(p, "running");
      int waiting = count(p, "waiting");
      int sent = count(p, "sentSinceReport");
      int flow = count(p, "flowWaiting");
      if (name == null || pods < 0 || running < 0 || waiting < 0 || sent < 0 || flow < 0) {
        throw new Unreadable("the EPP's load has a pool without a name or with a missing or negative count: "
            + ClientText.clean(p.toString()));
      }
      JsonNode room = p.get("headroom");
      int headroom = room == null ? PoolLoad.UNKNOWN_HEADROOM : count(p, "headroom"); // absent: an older EPP
      if (headroom < 0) {
        throw new Unreadable(
            "the EPP's load has a pool whose headroom is not a count: " + ClientText.clean(p.toString()));
      }
      JsonNode zero = p.get("atZero"); // absent: an older EPP
      if (zero != null && !zero.isBoolean()) {
        throw new Unreadable("the EPP's load has a pool whose atZero is not true or false: "
            + ClientText.clean(p.toString()));
      }
      pools.add(new PoolLoad(name, pods, running, waiting, sent, flow, headroom, zero != null && zero.booleanValue()));
    }
    Map<String, String> models = new HashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = root.get("models").fields(); it.hasNext();) {
      Map.Entry<String, JsonNode> e = it.next();
      if (!e.getValue().isTextual()) {
        throw new Unreadable("the EPP's load maps model '" + ClientText.clean(e.getKey())
            + "' to something that is not a pool name");
      }
      models.put(e.getKey(), e.getValue().asText());
    }
    return new LoadReport(pools, models);
  }

  private static int count(JsonNode pool, String field) {
    JsonNode n = pool.get(field);
    return n != null && n.canConvertToInt() && n.isIntegralNumber() ? n.intValue() : -1;
  }

  @Override
  public void close() {
    http.close();
  }
}
