package io.llmgw.extproc.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.envoyproxy.envoy.service.ext_proc.v3.ExternalProcessorGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.llmgw.api.EppProtocol;
import io.llmgw.api.tls.ClientTls;
import io.llmgw.api.tls.PemFiles;
import io.llmgw.api.tls.Pki;
import io.llmgw.api.tls.ServerTls;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.cert.Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ext_proc, its health service and the metrics port over TLS and mutual TLS, with certificates made in the test:
 * handshakes that must work do, every one that must not is refused, and a rotated certificate is served without a
 * restart while a stream opened before it goes on.
 */
class TlsServingTest {
  @TempDir
  Path dir;
  private final Pki.Issued ca = Pki.authority("llmgw-test-ca");
  private final Pki.Issued otherCa = Pki.authority("someone-else");
  private final List<ManagedChannel> channels = new ArrayList<>();
  private EppHarness harness;
  private Path cert;
  private Path key;
  private Path clientCa;

  @BeforeEach
  void pki() throws IOException {
    cert = dir.resolve("tls.crt");
    key = dir.resolve("tls.key");
    clientCa = dir.resolve("ca.crt");
    Pki.write(Pki.server(ca, "epp", List.of("127.0.0.1", "localhost"), Duration.ofDays(1)), cert, key);
    PemFiles.writeCertificates(clientCa, ca.certificate());
  }

  @AfterEach
  void close() throws IOException {
    channels.forEach(ManagedChannel::shutdownNow);
    if (harness != null) {
      harness.close();
    }
  }

  private void start(ServerTls tls, boolean metricsTls) throws Exception {
    harness = new EppHarness(1, 61, s -> s.withListen(s.listen().withTls(tls, metricsTls)));
  }

  private ServerTls mutual() {
    return new ServerTls(cert, key, clientCa, Duration.ofMillis(100));
  }

  /** A client holding a certificate from {@code issuer} (or none) that trusts {@code trusted} (or anything). */
  private ClientTls client(Pki.Issued issuer, Pki.Issued trusted) throws IOException {
    Path c = null;
    Path k = null;
    if (issuer != null) {
      c = dir.resolve("client-" + issuer.hashCode() + ".crt");
      k = dir.resolve("client-" + issuer.hashCode() + ".key");
      Pki.write(Pki.client(issuer, "envoy", Duration.ofDays(1)), c, k);
    }
    Path trust = null;
    if (trusted != null) {
      trust = dir.resolve("trust-" + trusted.hashCode() + ".crt");
      PemFiles.writeCertificates(trust, trusted.certificate());
    }
    return new ClientTls(trust, c, k, trusted == null);
  }

  private ManagedChannel channel(ClientTls tls) throws IOException {
    ManagedChannel ch = NettyChannelBuilder.forAddress("127.0.0.1", harness.epp.grpcPort(), tls.grpc()).build();
    channels.add(ch);
    return ch;
  }

  private static ServingStatus readiness(ManagedChannel ch) {
    return HealthGrpc.newBlockingStub(ch).withDeadlineAfter(5, TimeUnit.SECONDS)
        .check(HealthCheckRequest.newBuilder().setService("readiness").build()).getStatus();
  }

  private static void assertRefused(ManagedChannel ch) {
    assertThatThrownBy(() -> readiness(ch)).isInstanceOf(StatusRuntimeException.class)
        .extracting(e -> Status.fromThrowable(e).getCode()).isEqualTo(Status.Code.UNAVAILABLE);
  }

  /** A real ext_proc exchange on {@code call}: the EPP names a pod for a completion. */
  private static String routedTo(ExtProcCall call) throws InterruptedException {
    call.send(ExtProcCall.post("/v1/completions"));
    call.send(ExtProcCall.requestBody("{\"model\":\"base-model\",\"prompt\":\"hi\"}", true));
    return ExtProcCall.setHeader(call.next(), EppProtocol.DESTINATION);
  }

  @Test
  void underMutualTlsAClientWithACertificateFromTheTrustedAuthorityIsRoutedAndHealthChecked() throws Exception {
    start(mutual(), false);
    ManagedChannel ch = channel(client(ca, ca));
    assertThat(readiness(ch)).isEqualTo(ServingStatus.SERVING);
    assertThat(routedTo(ExtProcCall.open(ExternalProcessorGrpc.newStub(ch))))
        .isEqualTo(harness.pods.getFirst().address());
  }

  @Test
  void underMutualTlsAClientWithoutACertificateOrWithAnotherAuthoritysIsRefused() throws Exception {
    start(mutual(), false);
    assertRefused(channel(client(null, ca)));
    assertRefused(channel(client(otherCa, ca)));
  }

  @Test
  void aClientThatTrustsAnotherAuthorityRefusesTheServer() throws Exception {
    start(mutual(), false);
    assertRefused(channel(client(ca, otherCa)));
  }

  @Test
  void aPlaintextClientGetsNoStreamFromATlsPort() throws Exception {
    start(mutual(), false);
    ManagedChannel plain = NettyChannelBuilder.forAddress("127.0.0.1", harness.epp.grpcPort()).usePlaintext().build();
    channels.add(plain);
    assertRefused(plain);
  }

  @Test
  void aRotatedCertificateIsServedWithoutARestartAndAStreamOpenedBeforeGoesOn() throws Exception {
    start(mutual(), false);
    ClientTls envoy = client(ca, ca);
    ExtProcCall before = ExtProcCall.open(ExternalProcessorGrpc.newStub(channel(envoy)));
    before.send(ExtProcCall.post("/v1/completions"));
    Certificate old = peerCertificate(envoy);

    Pki.Issued rotated = Pki.server(ca, "epp-rotated", List.of("127.0.0.1"), Duration.ofDays(2));
    Pki.write(rotated, cert, key);
    await().atMost(Duration.ofSeconds(10)).until(() -> peerCertificate(envoy).equals(rotated.certificate()));
    assertThat(old).isNotEqualTo(rotated.certificate());

    before.send(ExtProcCall.requestBody("{\"model\":\"base-model\",\"prompt\":\"hi\"}", true));
    assertThat(ExtProcCall.setHeader(before.next(), EppProtocol.DESTINATION))
        .isEqualTo(harness.pods.getFirst().address());
    assertThat(routedTo(ExtProcCall.open(ExternalProcessorGrpc.newStub(channel(envoy)))))
        .isEqualTo(harness.pods.getFirst().address());
  }

  @Test
  void withoutCertificateFilesASelfSignedOneIsServedThatOnlyAnUnverifyingClientAccepts() throws Exception {
    start(ServerTls.selfSigned(), false);
    assertThat(readiness(channel(client(null, null)))).isEqualTo(ServingStatus.SERVING);
    assertRefused(channel(client(null, ca)));
  }

  @Test
  void theMetricsPortServesHttpsWithTheSameCertificateAndNoPlaintext() throws Exception {
    start(new ServerTls(cert, key, null, Duration.ofSeconds(10)), true);
    try (HttpClient https = HttpClient.newBuilder().sslContext(client(null, ca).https()).build();
        HttpClient plain = HttpClient.newHttpClient()) {
      HttpResponse<String> r = https.send(HttpRequest.newBuilder(
          URI.create("https://127.0.0.1:" + harness.epp.metricsPort() + "/metrics")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body()).contains("llmgw_");
      assertThatThrownBy(() -> plain.send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + harness.epp.metricsPort() + "/metrics"))
          .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()))
          .isInstanceOf(IOException.class);
    }
  }

  /** The certificate a fresh TLS handshake with the ext_proc port is given. */
  private Certificate peerCertificate(ClientTls tls) throws IOException {
    try (SSLSocket s = (SSLSocket) tls.https().getSocketFactory().createSocket("127.0.0.1",
        harness.epp.grpcPort())) {
      SSLParameters p = s.getSSLParameters();
      p.setApplicationProtocols(new String[] {"h2"});
      s.setSSLParameters(p);
      s.setSoTimeout(5_000);
      s.startHandshake();
      return s.getSession().getPeerCertificates()[0];
    }
  }
}
