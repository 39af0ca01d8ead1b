package io.llmgw.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.api.LoopbackPorts;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Issue 16, item 6: errors a person meets first are one clear line. */
class CliErrorsTest {
  private static String errorsOf(String... args) {
    StringWriter err = new StringWriter();
    CommandLine cl = Main.commandLine(args);
    cl.setErr(new PrintWriter(err, true));
    cl.setOut(new PrintWriter(new StringWriter(), true));
    int code = cl.execute(args);
    assertThat(code).as(err.toString()).isNotZero();
    return err.toString();
  }

  @Test
  void aWrongFlagValueIsOneLineSayingWhyAndWhereToReadMore() {
    String err = errorsOf("serve", "--config", "x.yaml", "--grpc-port", "lots");
    assertThat(err.lines()).hasSize(1);
    assertThat(err).contains("llmgw serve: ", "'lots'", "--grpc-port", "(see llmgw serve --help)");
    assertThat(errorsOf("proxy", "--no-such-flag").lines()).hasSize(1);
  }

  /** Issue 32: a mistyped flag is answered with the flag it most likely meant, still on one line. */
  @Test
  void aMistypedFlagSuggestsTheFlagItMeant() {
    String err = errorsOf("serve", "--config", "x.yaml", "--grpc-prot", "9000");
    assertThat(err.lines()).hasSize(1);
    assertThat(err).contains("--grpc-prot", "did you mean --grpc-port");
  }

  /** Issue 29, item 4: peers are host:port, and a Service to find them in needs a cluster. */
  @Test
  void aPeerThatIsNotHostAndPortOrAPeerServiceInFileModeAreRefusedNamingTheFlag() {
    assertThat(serveRefuses("--config", "x.yaml", "--peers", "127.0.0.1:9003,replica-b")).contains(
        "--peers takes host:port, not 'replica-b'");
    assertThat(serveRefuses("--config", "x.yaml", "--peers-service", "llmgw-epp")).contains("--peers-service",
        "--kubernetes");
  }

  /** Issue 51: the warm-start time is a duration of at most five minutes. */
  @Test
  void aWarmStartTimeThatIsNoDurationOrTooLongIsRefusedNamingTheFlag() {
    assertThat(serveRefuses("--config", "x.yaml", "--peers-warm-timeout", "soon")).contains("--peers-warm-timeout",
        "'soon' is not a duration");
    assertThat(serveRefuses("--config", "x.yaml", "--peers-warm-timeout", "6m")).contains(
        "--peers-warm-timeout takes 0 to 5 minutes");
  }

  /** Issue 47: peers need a shared secret (or the explicit opt-out), and a secret file that cannot serve is named. */
  @Test
  void peersWithoutAUsableSecretAreRefusedNamingTheFlag() throws Exception {
    assertThat(serveRefuses("--config", "x.yaml", "--peers", "127.0.0.1:9003")).contains("--peers-secret-file",
        "--peers-insecure");
    assertThat(serveRefuses("--config", "x.yaml", "--peers", "127.0.0.1:9003", "--peers-secret-file",
        "no-such-secret.txt")).contains("--peers-secret-file no-such-secret.txt cannot be read");
    java.nio.file.Path shortSecret = java.nio.file.Files.createTempFile("secret", ".txt");
    try {
      java.nio.file.Files.writeString(shortSecret, "too short\n");
      assertThat(serveRefuses("--config", "x.yaml", "--peers", "127.0.0.1:9003", "--peers-secret-file",
          shortSecret.toString())).contains("holds 9 bytes", "at least 16");
      assertThat(serveRefuses("--config", "x.yaml", "--peers", "127.0.0.1:9003", "--peers-secret-file",
          shortSecret.toString(), "--peers-insecure")).contains("contradict");
    } finally {
      java.nio.file.Files.delete(shortSecret);
    }
  }

  /** Issue 47: what one pod's KV events may cost is refused below what any batch needs, naming the flag. */
  @Test
  void kvEventLimitsThatCannotWorkAreRefusedNamingTheFlag() {
    assertThat(serveRefuses("--config", "x.yaml", "--kv-events-max-message-bytes", "100"))
        .contains("--kv-events-max-message-bytes");
    assertThat(serveRefuses("--config", "x.yaml", "--kv-events-budget-bytes", "1000"))
        .contains("--kv-events-budget-bytes");
    assertThat(serveRefuses("--config", "x.yaml", "--kv-events-pod-bytes-per-second", "0"))
        .contains("--kv-events-pod-bytes-per-second");
  }

  /** What {@code serve} prints on the process's stderr when its settings are refused (exit 2, nothing started). */
  private static String serveRefuses(String... args) {
    java.io.PrintStream before = System.err;
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    System.setErr(new java.io.PrintStream(captured, true));
    try {
      String[] all = new String[args.length + 1];
      all[0] = "serve";
      System.arraycopy(args, 0, all, 1, args.length);
      assertThat(Main.commandLine(all).execute(all)).isEqualTo(2);
    } finally {
      System.setErr(before);
    }
    return captured.toString();
  }

  @Test
  void statusWithNoEppSaysConnectionRefusedAndWhere() throws Exception {
    int port = LoopbackPorts.free();
    String err = errorsOf("status", "--epp", "127.0.0.1:" + port, "--batch", "127.0.0.1:" + port);
    assertThat(err).contains("connection refused at http://127.0.0.1:" + port).doesNotContain("null");
  }

  /** Issue 32, item 4: status refuses to print a report from a port that is not an EPP's. */
  @Test
  void statusReadingAPortThatIsNotAnEppSaysSoInsteadOfPrintingNonsense() throws Exception {
    for (String body : new String[] {"{\"hello\": 1}", "<html>a dashboard</html>", "{\"pools\": []}"}) {
      com.sun.net.httpserver.HttpServer other = com.sun.net.httpserver.HttpServer.create(
          new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
      other.createContext("/", ex -> {
        byte[] bytes = body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        ex.sendResponseHeaders(200, bytes.length);
        ex.getResponseBody().write(bytes);
        ex.close();
      });
      other.start();
      try {
        String address = "127.0.0.1:" + other.getAddress().getPort();
        String err = errorsOf("status", "--epp", address, "--batch", address);
        assertThat(err).as(body).contains("http://" + address + " is not an EPP's metrics port");
      } finally {
        other.stop(0);
      }
    }
  }

  /** Issue 16, item 5: no API configured (as on CI machines) is one line before anything is tried. */
  @Test
  void clusterModeWithoutAnyKubernetesApiSaysSoAtOnce() {
    java.util.Map<String, String> props = new java.util.HashMap<>();
    System.getProperties().forEach((k, v) -> props.put(k.toString(), v.toString()));
    org.junit.jupiter.api.Assumptions.assumeTrue(KubeAccess.problem(System.getenv(), props,
        java.nio.file.Path.of(System.getProperty("user.home"))) != null,
        "this machine has a Kubernetes API configured");
    java.io.PrintStream before = System.err;
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    System.setErr(new java.io.PrintStream(captured, true));
    try {
      assertThat(Main.commandLine("serve").execute("serve", "--kubernetes")).isEqualTo(2);
    } finally {
      System.setErr(before);
    }
    assertThat(captured.toString()).contains("--kubernetes needs a Kubernetes API").hasLineCount(1);
  }
}
