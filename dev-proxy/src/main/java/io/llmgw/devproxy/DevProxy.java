package io.llmgw.devproxy;

import io.llmgw.api.EppProtocol;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.PoolOptions;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A stand-in for Envoy on machines without it: an HTTP/1.1 listener that runs every request through the EPP over
 * ext_proc and forwards it as {@code envoy-config/envoy.yaml} would. For local use and tests only; production runs
 * Envoy.
 */
public final class DevProxy implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DevProxy.class);

  private final ProxySettings settings;
  private final Vertx vertx;
  private final EppReplicas epps;
  private final HttpClient upstream;
  private final BatchPassthrough batch;
  private HttpServer server;

  private DevProxy(ProxySettings settings) throws IOException {
    this.settings = settings;
    this.epps = new EppReplicas(settings.epps(), settings.eppTls() == null ? null : settings.eppTls().grpc(),
        settings.eppHealthInterval().toMillis());
    this.vertx = Vertx.vertx();
    this.upstream = vertx.createHttpClient(new HttpClientOptions()
        .setConnectTimeout((int) settings.connectTimeout().toMillis())
        .setKeepAlive(true)
        .setIdleTimeout(60), new PoolOptions().setHttp1MaxSize(512).setMaxWaitQueueSize(-1));
    this.batch = new BatchPassthrough(upstream, settings.batchService());
  }

  public static DevProxy start(ProxySettings settings) throws Exception {
    DevProxy proxy = new DevProxy(settings);
    try {
      proxy.server = proxy.vertx.createHttpServer(new HttpServerOptions().setHost(settings.host())
          .setPort(settings.port()).setIdleTimeout(300))
          .requestHandler(req -> {
            // the tenant header is the gateway's (issue 31): a client's never reaches the EPP or the batch service;
            // the prefill pod's is the EPP's alone (a client's would make the decode pod call what it named)
            req.headers().remove(EppProtocol.TENANT);
            req.headers().remove(EppProtocol.PREFILLER);
            if (BatchPassthrough.handles(req.path())) {
              proxy.batch.forward(req);
            } else {
              new Exchange(proxy, req, proxy.vertx.getOrCreateContext()).start();
            }
          })
          .listen().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      proxy.close();
      throw new IllegalStateException("dev proxy cannot listen on " + settings.host() + ":" + settings.port() + ": "
          + (e.getCause() == null ? e : e.getCause()).getMessage(), e);
    }
    LOG.info("dev proxy on {}:{} -> ext_proc at {}{} (for local use; production runs Envoy)", settings.host(),
        proxy.port(), String.join(", ", settings.epps()), settings.eppTls() == null ? "" : " over TLS");
    return proxy;
  }

  public int port() {
    return server.actualPort();
  }

  /** The EPP replicas new streams go to now (all of them with one replica, which is never taken out). */
  public List<String> eppsInRotation() {
    return epps.all().stream().filter(r -> r.healthy).map(r -> r.address).toList();
  }

  ProxySettings settings() {
    return settings;
  }

  EppReplicas epps() {
    return epps;
  }

  HttpClient upstreamClient() {
    return upstream;
  }

  @Override
  public void close() {
    epps.close();
    try {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      LOG.warn("dev proxy did not stop cleanly: {}", e.toString());
    }
  }
}
