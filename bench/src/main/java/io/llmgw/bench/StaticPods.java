package io.llmgw.bench;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** N pods on 127.0.x.y serving fixed vLLM-style {@code /metrics} and {@code /v1/models} pages, for load runs. */
public final class StaticPods implements AutoCloseable {
  private final ExecutorService workers = Executors.newFixedThreadPool(4);
  private final List<HttpServer> servers = new ArrayList<>();

  /** With {@code port} 0 the first pod takes a free port and the others share it, as a pool's targetPort requires. */
  public StaticPods(int count, int port, String metricsPage, String modelsJson) throws IOException {
    byte[] metrics = metricsPage.getBytes(StandardCharsets.UTF_8);
    byte[] models = modelsJson.getBytes(StandardCharsets.UTF_8);
    boolean sharePort = true;
    for (int i = 0; i < count; i++) {
      HttpServer s = HttpServer.create(new InetSocketAddress(ip(i), port), 64);
      s.createContext("/metrics", ex -> {
        ex.sendResponseHeaders(200, metrics.length);
        ex.getResponseBody().write(metrics);
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
