package io.llmgw.bench;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * N pods on 127.0.x.y serving fixed vLLM-style {@code /metrics} and {@code /v1/models} pages, for load runs; as vLLM,
 * {@code /metrics/?name[]=…} answers only the series named.
 */
public final class StaticPods implements AutoCloseable {
  private final ExecutorService workers = Executors.newFixedThreadPool(4);
  private final List<HttpServer> servers = new ArrayList<>();
  /** Filtered pages by query: a load run asks one or two. */
  private final Map<String, byte[]> filtered = new ConcurrentHashMap<>();

  /** With {@code port} 0 the first pod takes a free port and the others share it, as a pool's targetPort requires. */
  public StaticPods(int count, int port, String metricsPage, String modelsJson) throws IOException {
    this(count, port, metricsPage, modelsJson, true);
  }

  /** {@code filters} false: pods that answer the whole page below {@code /metrics} too (an engine that is not vLLM). */
  public StaticPods(int count, int port, String metricsPage, String modelsJson, boolean filters) throws IOException {
    byte[] metrics = metricsPage.getBytes(StandardCharsets.UTF_8);
    byte[] models = modelsJson.getBytes(StandardCharsets.UTF_8);
    boolean sharePort = true;
    for (int i = 0; i < count; i++) {
      HttpServer s = HttpServer.create(new InetSocketAddress(ip(i), port), 64);
      s.createContext("/metrics", ex -> {
        byte[] page = !filters || ex.getRequestURI().getPath().equals("/metrics") ? metrics
            : filtered.computeIfAbsent(String.valueOf(ex.getRequestURI().getRawQuery()),
                q -> seriesNamed(metricsPage, q));
        ex.sendResponseHeaders(200, page.length);
        ex.getResponseBody().write(page);
        ex.close();
      });
      s.createContext("/v1/models", ex -> {
        ex.sendResponseHeaders(200, models.length);
        ex.getResponseBody().write(models);
        ex.close();
      });
      s.setExecutor(workers);
      s.start();
      servers.add(s);
      if (port == 0 && sharePort) {
        port = s.getAddress().getPort();
      }
    }
  }

  /**
   * What vLLM's {@code /metrics/?name[]=…} answers (prometheus_client's app under its mount): the samples named, with
   * their families' HELP and TYPE lines; everything when nothing is named.
   */
  static byte[] seriesNamed(String page, String rawQuery) {
    Set<String> names = new HashSet<>();
    for (String pair : rawQuery.split("&")) {
      String[] kv = pair.split("=", 2);
      if (kv.length == 2 && URLDecoder.decode(kv[0], StandardCharsets.UTF_8).equals("name[]")) {
        names.add(URLDecoder.decode(kv[1], StandardCharsets.UTF_8));
      }
    }
    if (names.isEmpty()) {
      return page.getBytes(StandardCharsets.UTF_8);
    }
    StringBuilder out = new StringBuilder();
    for (String line : page.split("\n")) {
      String[] words = line.split("[ {]", 4);
      String name = line.startsWith("# ") && words.length > 2 ? words[2] : words[0];
      if (names.contains(name)) {
        out.append(line).append('\n');
      }
    }
    return out.toString().getBytes(StandardCharsets.UTF_8);
  }

  public static String ip(int i) {
    return "127.0." + (1 + i / 250) + "." + (1 + i % 250);
  }

  public String address(int i) {
    return ip(i) + ":" + servers.get(i).getAddress().getPort();
  }

  public int size() {
    return servers.size();
  }

  @Override
  public void close() {
    servers.forEach(s -> s.stop(0));
    workers.shutdownNow();
  }
}
