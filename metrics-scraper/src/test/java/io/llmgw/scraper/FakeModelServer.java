package io.llmgw.scraper;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A tiny real HTTP server that answers {@code /metrics} and {@code /v1/models} like a vLLM pod, with values a test sets.
 * Binds a loopback address such as 127.0.0.11 so several "pods" share one port number.
 */
public final class FakeModelServer implements AutoCloseable {
  private final HttpServer server;
  private volatile String metrics;
  private volatile String models;
  private volatile int status = 200;
  private volatile boolean wholePageOnly;
  private final java.util.Set<String> asked = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private final AtomicInteger metricsHits = new AtomicInteger();
  private final java.util.Set<java.net.InetSocketAddress> clients = java.util.concurrent.ConcurrentHashMap.newKeySet();

  public FakeModelServer(String ip, int port) throws IOException {
    server = HttpServer.create(new InetSocketAddress(ip, port), 64);
    server.createContext("/metrics", ex -> {
      metricsHits.incrementAndGet();
      clients.add(ex.getRemoteAddress());
      asked.add(ex.getRequestURI().toString());
      boolean whole = ex.getRequestURI().getPath().equals("/metrics");
      // its page holds only series a gateway asks for, so it is also vLLM's answer to the filtered /metrics/?name[]=…
      reply(ex, whole || !wholePageOnly ? status : 404, metrics);
    });
    server.createContext("/v1/models", ex -> reply(ex, status, models));
    server.start();
    setVllm(0, 0, 0.0, 4, List.of(), List.of());
    setModels("base-model", List.of());
  }

  public String address() {
    return server.getAddress().getAddress().getHostAddress() + ":" + server.getAddress().getPort();
  }

  public int port() {
    return server.getAddress().getPort();
  }

  public void setMetricsText(String text) {
    this.metrics = text;
  }

  public void setStatus(int status) {
    this.status = status;
  }

  /** Answers 404 below {@code /metrics}, as a server that is not vLLM (or a proxy before one) may. */
  public void answerOnlyTheWholePage() {
    wholePageOnly = true;
  }

  /** Every path and query the metrics page was asked by. */
  public java.util.Set<String> askedPaths() {
    return asked;
  }

  public int metricsHits() {
    return metricsHits.get();
  }

  /** How many connections (client address and port) the metrics page was asked for on. */
  public int connections() {
    return clients.size();
  }

  public void setVllm(int waiting, int running, double kv, int maxLora, List<String> runningAdapters,
      List<String> waitingAdapters) {
    metrics = vllmText(waiting, running, kv, maxLora, runningAdapters, waitingAdapters);
  }

  public static String vllmText(int waiting, int running, double kv, int maxLora, List<String> runningAdapters,
      List<String> waitingAdapters) {
    return """
        # HELP vllm:num_requests_waiting Number of requests waiting to be processed.
        # TYPE vllm:num_requests_waiting gauge
        vllm:num_requests_waiting{model_name="base-model"} %d.0
        vllm:num_requests_running{model_name="base-model"} %d.0
        vllm:kv_cache_usage_perc{model_name="base-model"} %s
        vllm:lora_requests_info{max_lora="%d",running_lora_adapters="%s",waiting_lora_adapters="%s"} 1.7e9
        """.formatted(waiting, running, kv, maxLora, String.join(",", runningAdapters),
        String.join(",", waitingAdapters));
  }

  public void setModels(String base, List<String> adapters) {
    StringBuilder sb = new StringBuilder(
        "{\"object\":\"list\",\"data\":[{\"id\":\"" + base + "\",\"object\":\"model\"}");
    for (String a : adapters) {
      sb.append(",{\"id\":\"").append(a).append("\",\"object\":\"model\",\"parent\":\"").append(base).append("\"}");
    }
    models = sb.append("]}").toString();
  }

  private static void reply(HttpExchange ex, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.sendResponseHeaders(status, bytes.length);
    try (OutputStream os = ex.getResponseBody()) {
      os.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
