package io.llmgw.devproxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The dev proxy against a scripted ext_proc server and real upstream sockets on 127.0.0.91-93. */
class DevProxyTest {
  static final ScriptedEpp SCRIPT = new ScriptedEpp();
  static final List<String> UPSTREAM_SAW = new CopyOnWriteArrayList<>();
  static Server epp;
  static Vertx vertx;
  static String good;
  static String unavailable;
  static String dead;
  static DevProxy proxy;
  static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  static void start() throws Exception {
    io.grpc.protobuf.services.HealthStatusManager health = new io.grpc.protobuf.services.HealthStatusManager();
    health.setStatus("readiness", io.grpc.health.v1.HealthCheckResponse.ServingStatus.SERVING);
    epp = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(SCRIPT)
        .addService(health.getHealthService()).build().start();
    vertx = Vertx.vertx();
    HttpServer ok = vertx.createHttpServer().requestHandler(req -> req.body().onSuccess(b -> {
      UPSTREAM_SAW.add(req.getHeader("x-picked-by") + "|" + req.getHeader("x-secret") + "|" + b.toString());
      req.response().putHeader("content-type", "text/plain").end("served by good: " + b.length() + " bytes");
    })).listen(0, "127.0.0.91").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    HttpServer busy = vertx.createHttpServer()
        .requestHandler(req -> req.body().onSuccess(b -> req.response().setStatusCode(503).end("overloaded")))
        .listen(0, "127.0.0.92")
        .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    good = "127.0.0.91:" + ok.actualPort();
    unavailable = "127.0.0.92:" + busy.actualPort();
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.93"))) {
      dead = "127.0.0.93:" + s.getLocalPort(); // closed again: connections are refused
    }
    proxy = DevProxy.start(ProxySettings.defaults().withListener("127.0.0.1", 0).withEpp("127.0.0.1", epp.getPort()));
  }

  @AfterAll
  static void stop() throws Exception {
    proxy.close();
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    epp.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }

  @BeforeEach
  void clear() {
    SCRIPT.served.clear();
    SCRIPT.responseStatuses.clear();
    UPSTREAM_SAW.clear();
  }

  static HttpResponse<String> send(String body) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + proxy.port() + "/v1/completions"))
        .timeout(Duration.ofSeconds(20)).header("x-secret", "client-value")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void appliesMutationsSendsTheReEmittedBodyAndStreamsTheResponseBackThroughTheEpp() throws Exception {
    SCRIPT.destinations = List.of(good);
    HttpResponse<String> r = send("{\"model\":\"m\"}");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).as("response body passed through the EPP").isEqualTo("SERVED BY GOOD: 16 BYTES");
    assertThat(UPSTREAM_SAW).containsExactly("scripted-epp|null|{\"model\":\"m-v2\"}");
    assertThat(SCRIPT.served).containsExactly(good);
    assertThat(SCRIPT.protocolModes).contains("FULL_DUPLEX_STREAMED/FULL_DUPLEX_STREAMED");
  }

  @Test
  void walksTheFallbackListOnConnectFailureAnd503() throws Exception {
    SCRIPT.destinations = List.of(dead, unavailable, good);
    HttpResponse<String> r = send("{\"model\":\"m\"}");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(SCRIPT.served).as("the EPP learns where the request really ran").containsExactly(good);
    assertThat(UPSTREAM_SAW).hasSize(1);
  }

  @Test
  void whenEveryDestinationFailsThe503StillPassesThroughTheEpp() throws Exception {
    SCRIPT.destinations = List.of(dead, unavailable);
    HttpResponse<String> r = send("{\"model\":\"m\"}");
    assertThat(r.statusCode()).isEqualTo(503);
    assertThat(r.body()).isEqualTo("OVERLOADED");
    SCRIPT.destinations = List.of(dead);
    HttpResponse<String> none = send("{\"model\":\"m\"}");
    assertThat(none.statusCode()).isEqualTo(503);
    assertThat(none.body()).contains("NO HEALTHY UPSTREAM");
    assertThat(SCRIPT.responseStatuses).containsExactly("503", "503");
  }

  @Test
  void aClientChosenDestinationIsNeverRoutedOn() throws Exception {
    SCRIPT.destinations = List.of(good);
    SCRIPT.omitDestination = true;
    try {
      HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + proxy.port()
          + "/v1/completions")).timeout(Duration.ofSeconds(20)).header("x-gateway-destination-endpoint", good)
          .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"m\"}")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(503);
      assertThat(UPSTREAM_SAW).isEmpty();
    } finally {
      SCRIPT.omitDestination = false;
    }
  }

  /** Issue 31: the tenant header is the gateway's, the prefill pod's the EPP's; a client's never reach the EPP. */
  @Test
  void aClientsTenantHeaderIsRemovedBeforeTheEppSeesIt() throws Exception {
    SCRIPT.destinations = List.of(good);
    SCRIPT.headerNames.clear();
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + proxy.port()
        + "/v1/completions")).timeout(Duration.ofSeconds(20)).header("X-Llmgw-Tenant", "someone-else")
        .header("X-Prefiller-Host-Port", "127.0.0.99:80")
        .header("x-secret", "kept").POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"m\"}")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(SCRIPT.headerNames).contains("x-secret").doesNotContain("x-llmgw-tenant", "X-Llmgw-Tenant")
        .doesNotContain("x-prefiller-host-port", "X-Prefiller-Host-Port");
  }

  @Test
  void immediateResponsesReachTheClientUnchanged() throws Exception {
    HttpResponse<String> r = send("{\"model\":\"unknown\"}");
    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(r.headers().firstValue("content-type")).hasValue("application/json");
    assertThat(r.body()).isEqualTo("{\"error\":\"no route\"}");
    assertThat(UPSTREAM_SAW).isEmpty();
  }

  @Test
  void unreachableEppIsA500AsWithFailureModeAllowOff() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
      closedPort = s.getLocalPort();
    }
    try (DevProxy orphan = DevProxy.start(ProxySettings.defaults().withListener("127.0.0.1", 0)
        .withEpp("127.0.0.1", closedPort))) {
      HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + orphan.port()
          + "/v1/completions")).timeout(Duration.ofSeconds(20))
          .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"m\"}")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(500);
      assertThat(r.body()).contains("endpoint picker failed: UNAVAILABLE");
    }
  }

  private static int closedPort() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
      return s.getLocalPort();
    }
  }

  private static HttpResponse<String> sendTo(DevProxy p, String path) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + p.port() + path))
        .timeout(Duration.ofSeconds(20)).POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"m\"}")).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** Issue 15: a replica that is gone costs no request; its streams go to the other one, and it leaves rotation. */
  @Test
  void aStreamToAReplicaThatIsGoneIsReplayedOnTheOtherOne() throws Exception {
    SCRIPT.destinations = List.of(good);
    String gone = "127.0.0.1:" + closedPort();
    try (DevProxy two = DevProxy.start(ProxySettings.defaults().withListener("127.0.0.1", 0)
        .withEpps(List.of(gone, "127.0.0.1:" + epp.getPort())))) {
      for (int i = 0; i < 6; i++) {
        HttpResponse<String> r = sendTo(two, "/v1/completions");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.body()).as("through the EPP, which upper-cases it").startsWith("SERVED BY GOOD");
      }
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
          .until(() -> two.eppsInRotation().equals(List.of("127.0.0.1:" + epp.getPort())));
    }
  }

  /** Issue 15: a fail-open route goes on without an EPP: to a default endpoint, unpicked; other routes still 500. */
  @Test
  void withNoEppAFailOpenRouteReachesADefaultEndpointAndAFailClosedOneIsA500() throws Exception {
    try (DevProxy open = DevProxy.start(ProxySettings.defaults().withListener("127.0.0.1", 0)
        .withEpp("127.0.0.1", closedPort()).withFailure(FailureMode.openFor(List.of("/v1/embeddings"),
            List.of(good))))) {
      HttpResponse<String> r = sendTo(open, "/v1/embeddings");
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      assertThat(r.body()).as("unprocessed: the EPP would have upper-cased it").isEqualTo("served by good: 13 bytes");
      assertThat(UPSTREAM_SAW).containsExactly("null|null|{\"model\":\"m\"}");
      assertThat(sendTo(open, "/v1/completions").statusCode()).isEqualTo(500);
    }
    assertThatThrownBy(() -> FailureMode.openFor(List.of("/v1/"), List.of()))
        .hasMessageContaining("proxy.failOpen needs proxy.defaultEndpoints");
    assertThatThrownBy(() -> FailureMode.openFor(List.of("/v1/"), List.of("no-port")))
        .hasMessageContaining("proxy.defaultEndpoints takes host:port, not no-port");
    for (String bad : new String[] {"no-port", "host:0", "host:99999", "host:x"}) {
      assertThatThrownBy(() -> ProxySettings.defaults().withEpps(List.of(bad))).as(bad)
          .hasMessageContaining("proxy.epps takes host:port");
    }
    assertThatThrownBy(() -> ProxySettings.defaults().withEpps(List.of())).hasMessageContaining("proxy.epps needs");
  }
}
