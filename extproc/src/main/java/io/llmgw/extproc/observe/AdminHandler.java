package io.llmgw.extproc.observe;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.llmgw.adapters.AdapterStatus;
import io.llmgw.adapters.Adapters;
import io.llmgw.adapters.LoadableAdapter;
import io.llmgw.api.Durations;
import io.llmgw.extproc.state.Datastore;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The operator's view of adapters, on the metrics port: {@code GET /admin/adapters} lists every route target that
 * names a {@code source} with its state (NOT_LOADED, LOADING, LOADED, LOADING_FAILED), copies and pods, and the
 * residency registry pod by pod (capacity, resident, active in the batch, loading, failed with time and reason);
 * {@code POST /admin/adapters/{name}:ensureLoaded} loads one now (as a request would) and answers with its status.
 * {@code GET /admin/status} reports pools (pods, saturation, waiting requests, desired pods) and routes (priority,
 * objectives' attainment): what {@code ./llmgw status} prints; {@code GET /admin/capacity} is the capacity plan alone. {@code GET /admin/load} is each pool's load right now,
 * for batch dispatchers ({@link PoolLoadReport}). {@code GET /admin/decisions} is the last decisions explained, newest
 * first ({@link DecisionLog}; {@code ?id=} keeps those whose request id contains it, {@code ?limit=} up to 256).
 * {@code GET /admin/batch} is the batch service's queues, read from it ({@link BatchStatusReader}).
 */
public final class AdminHandler implements HttpHandler {
  private static final String PREFIX = "/admin/adapters";
  private static final String STATUS = "/admin/status";
  private static final String LOAD = "/admin/load";
  private static final String DECISIONS = "/admin/decisions";
  private static final String BATCH = "/admin/batch";
  private static final String CAPACITY = "/admin/capacity";
  private static final String HISTORY = "/admin/history";
  private static final String ENSURE = ":ensureLoaded";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Adapters adapters;
  private final Datastore datastore;

  private final GatewayStatus status;
  private final PoolLoadReport load;
  private final AdminAccess access;
  private final PodsReport pods;
  private final DecisionLog decisions;
  private final BatchStatusReader batches;

  public AdminHandler(Adapters adapters, Datastore datastore, GatewayStatus status, PoolLoadReport load,
      PodsReport pods, DecisionLog decisions, BatchStatusReader batches, AdminAccess access) {
    this.decisions = decisions;
    this.batches = batches;
    this.adapters = adapters;
    this.datastore = datastore;
    this.status = status;
    this.load = load;
    this.pods = pods;
    this.access = access;
  }

  /** The status page: one self-contained file (no CDN), which reads the JSON below every 2 s. */
  private static final byte[] PAGE = page();
  private static final String PAGE_POLICY = SecurityHeaders.forPage(new String(PAGE, StandardCharsets.UTF_8));

  private static byte[] page() {
    try (var in = AdminHandler.class.getResourceAsStream("status.html")) {
      return in.readAllBytes();
    } catch (IOException | NullPointerException e) {
      throw new IllegalStateException("the status page is missing from the jar", e);
    }
  }

  static boolean isStatusPage(String path) {
    return path.equals("/") || path.equals("/status");
  }

  /**
   * Stands before every answer on this port, {@code /metrics} included: security headers on all, and the read token on
   * reads when one is configured.
   */
  public static com.sun.net.httpserver.Authenticator authenticator(AdminAccess access) {
    return new PortGuard(access);
  }

  @Override
  public void handle(HttpExchange ex) throws IOException {
    try (ex) {
      String path = ex.getRequestURI().getPath();
      if (isStatusPage(path) && ex.getRequestMethod().equals("GET")) {
        ex.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
        ex.getResponseHeaders().set("Cache-Control", "no-cache");
        ex.getResponseHeaders().set("Content-Security-Policy", PAGE_POLICY);
        ex.sendResponseHeaders(200, PAGE.length);
        ex.getResponseBody().write(PAGE);
      } else if (path.equals(STATUS) && ex.getRequestMethod().equals("GET")) {
        send(ex, 200, status.report());
      } else if (path.equals(CAPACITY) && ex.getRequestMethod().equals("GET")) {
        send(ex, 200, status.recent().capacity());
      } else if (path.equals(HISTORY) && ex.getRequestMethod().equals("GET")) {
        send(ex, 200, Map.of("everyMillis", TrafficHistory.EVERY_MILLIS, "samples", status.history().samples()));
      } else if (path.equals("/admin/pods") && ex.getRequestMethod().equals("GET")) {
        send(ex, 200, pods.report());
      } else if (path.equals(DECISIONS) && ex.getRequestMethod().equals("GET")) {
        Map<String, String> q = query(ex.getRequestURI().getRawQuery());
        send(ex, 200, Map.of("decisions", decisions.recent(limit(q.get("limit")), q.get("id"))));
      } else if (path.equals(BATCH) && ex.getRequestMethod().equals("GET")) {
        send(ex, 200, batches.read());
      } else if (path.equals(LOAD) && ex.getRequestMethod().equals("GET")) {
        send(ex, 200, load.report());
      } else if (path.equals(PREFIX) && ex.getRequestMethod().equals("GET")) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (LoadableAdapter l : datastore.loadableAdapters()) {
          out.add(describe(status(l)));
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("adapters", out);
        body.put("pods", adapters.report().pods(datastore.allStates()));
        send(ex, 200, body);
      } else if (path.startsWith(PREFIX + "/") && path.endsWith(ENSURE) && ex.getRequestMethod().equals("POST")) {
        switch (access.write(ex.getRequestHeaders().getFirst("Authorization"))) {
          case ALLOWED -> ensureLoaded(ex, path.substring(PREFIX.length() + 1, path.length() - ENSURE.length()));
          case DISABLED -> send(ex, 403, Map.of("error", "admin writes are off: this EPP was started "
              + "without an admin token"));
          case UNAUTHENTICATED -> {
            ex.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"llmgw\"");
            send(ex, 401, Map.of("error", "this call needs the admin token (Authorization: Bearer ...)"));
          }
        }
      } else {
        send(ex, 404, Map.of("error", "no such admin resource: " + ex.getRequestMethod() + " " + path
            + " (try GET /status, GET " + STATUS + ", GET " + CAPACITY + ", GET " + HISTORY + ", GET /admin/pods, GET "
            + LOAD + ", GET "
            + DECISIONS
            + "?id=, GET " + BATCH + ", GET "
            + PREFIX + " or POST "
            + PREFIX + "/{name}" + ENSURE + ")"));
      }
    }
  }

  /** The query's parameters, percent-decoded; a malformed one is dropped, never an error page. */
  private static Map<String, String> query(String raw) {
    Map<String, String> out = new LinkedHashMap<>();
    if (raw == null) {
      return out;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      try {
        out.put(URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8),
            eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      } catch (IllegalArgumentException malformed) {
        // dropped
      }
    }
    return out;
  }

  private static int limit(String value) {
    try {
      return value == null ? 50 : Math.max(1, Math.min(256, Integer.parseInt(value)));
    } catch (NumberFormatException e) {
      return 50;
    }
  }

  private void ensureLoaded(HttpExchange ex, String name) throws IOException {
    LoadableAdapter l = datastore.loadableAdapters().stream().filter(a -> a.name().equals(name)).findFirst()
        .orElse(null);
    if (l == null) {
      send(ex, 404, Map.of("error", "no route has a target '" + name + "' with a source to load it from"));
      return;
    }
    try {
      adapters.loads().ensureLoaded(name, l.source(), l.endpoints())
          .get(adapters.settings().loadWaitTimeout().toMillis(), TimeUnit.MILLISECONDS);
      send(ex, 200, describe(status(l)));
    } catch (ExecutionException | TimeoutException e) {
      String why = e instanceof TimeoutException ? "not loaded within "
          + Durations.format(adapters.settings().loadWaitTimeout())
          : e.getCause().getMessage();
      Map<String, Object> body = new LinkedHashMap<>(describe(status(l)));
      body.put("error", why);
      send(ex, 503, body);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      send(ex, 503, Map.of("error", "interrupted"));
    }
  }

  private AdapterStatus status(LoadableAdapter l) {
    return adapters.report().status(List.of(l.name()), l.endpoints().get()).getFirst();
  }

  private static Map<String, Object> describe(AdapterStatus s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", s.adapter());
    m.put("state", s.state().name());
    m.put("copies", s.pods().size());
    m.put("pods", s.pods());
    if (s.failure() != null) {
      m.put("failedAt", s.failedAt().toString());
      m.put("failure", s.failure());
    }
    return m;
  }

  private static void send(HttpExchange ex, int status, Object body) throws IOException {
    byte[] bytes = JSON.writeValueAsString(body).getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("content-type", "application/json");
    ex.sendResponseHeaders(status, bytes.length);
    ex.getResponseBody().write(bytes);
  }
}
