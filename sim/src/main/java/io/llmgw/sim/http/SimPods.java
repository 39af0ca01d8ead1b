package io.llmgw.sim.http;

import io.llmgw.chattemplate.ChatTokenizer;
import io.llmgw.sim.engine.SimConfig;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Many simulated pods in one JVM: pod {@code i} listens on the {@code i}-th address after the first
 * ({@code 127.0.0.11}, {@code 127.0.0.12}, …), all on the same port, each with its own engine and seed.
 */
public final class SimPods implements AutoCloseable {
  private final Vertx vertx;
  private final List<SimServer> pods;

  private SimPods(Vertx vertx, List<SimServer> pods) {
    this.vertx = vertx;
    this.pods = List.copyOf(pods);
  }

  public static SimPods start(SimConfig config, int count, String firstIp, int port) throws Exception {
    return start(config, addresses(firstIp, count), port);
  }

  public static SimPods start(SimConfig config, List<String> ips, int port) throws Exception {
    return start(config, ips, port, null);
  }

  /** @param model a model's own files, shared by the pods (null: the simulator's tokens) */
  public static SimPods start(SimConfig config, int count, String firstIp, int port, ChatTokenizer model)
      throws Exception {
    return start(config, addresses(firstIp, count), port, model);
  }

  public static SimPods start(SimConfig config, List<String> ips, int port, ChatTokenizer model) throws Exception {
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(Math.max(2,
        Math.min(ips.size(), 2 * Runtime.getRuntime().availableProcessors()))));
    List<SimServer> pods = new ArrayList<>();
    List<Future<String>> deployed = new ArrayList<>();
    for (int i = 0; i < ips.size(); i++) {
      SimServer pod = new SimServer(config.toBuilder().seed(config.seed() + i).build(), ips.get(i), port, model);
      pods.add(pod);
      deployed.add(vertx.deployVerticle(pod));
    }
    try {
      Future.all(deployed).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      throw new IllegalStateException("simulated pods could not bind " + ips + ":" + port + ": "
          + (e.getCause() == null ? e : e.getCause()).getMessage(), e);
    }
    return new SimPods(vertx, pods);
  }

  /** {@code count} consecutive IPv4 addresses starting at {@code first}. */
  public static List<String> addresses(String first, int count) {
    String[] octets = first.split("\\.");
    if (octets.length != 4) {
      throw new IllegalArgumentException("'" + first + "' is not an IPv4 address");
    }
    int last = Integer.parseInt(octets[3]);
    if (last + count - 1 > 254) {
      throw new IllegalArgumentException(count + " pods do not fit after " + first);
    }
    String prefix = octets[0] + "." + octets[1] + "." + octets[2] + ".";
    List<String> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      out.add(prefix + (last + i));
    }
    return out;
  }

  /** Every pod's {@code ip:port}. */
  public List<String> podAddresses() {
    return pods().stream().map(SimServer::address).toList();
  }

  public List<SimServer> pods() {
    return pods;
  }

  /** Stops one pod as a crash would: its listener and every open connection close at once. */
  public void kill(SimServer pod) throws Exception {
    vertx.undeploy(pod.deploymentID()).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }
}
