package io.llmgw.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.api.FileModeYaml;
import io.llmgw.api.tls.PemFiles;
import io.llmgw.api.tls.Pki;
import io.llmgw.api.tls.ServerTls;
import io.llmgw.extproc.Epp;
import io.llmgw.extproc.EppSettings;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code llmgw status} reads an EPP whose metrics port serves TLS, and refuses one it cannot verify. */
class StatusOverTlsTest {
  @TempDir
  Path dir;

  @Test
  void statusReadsAnHttpsMetricsPortWithTheCaAndRefusesWithoutIt() throws Exception {
    Pki.Issued ca = Pki.authority("status-test-ca");
    Path cert = dir.resolve("tls.crt");
    Path key = dir.resolve("tls.key");
    Path caFile = dir.resolve("ca.crt");
    Pki.write(Pki.server(ca, "epp", List.of("127.0.0.1"), Duration.ofDays(1)), cert, key);
    PemFiles.writeCertificates(caFile, ca.certificate());
    Path config = dir.resolve("pool.yaml");
    Files.writeString(config, FileModeYaml.pool("tls-pool", "sim", 8000) + FileModeYaml.SEPARATOR
        + FileModeYaml.route("base", "tls-pool", "base-model", 0));
    EppSettings s = EppSettings.defaults(config).onLoopbackEphemeralPorts();
    try (Epp epp = Epp.start(s.withListen(s.listen().withTls(new ServerTls(cert, key, null, Duration.ofSeconds(10)),
        true)), Clock.systemUTC())) {
      String https = "https://127.0.0.1:" + epp.metricsPort();
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      CommandLine cl = new CommandLine(new StatusCommand());
      cl.setOut(new PrintWriter(out));
      assertThat(cl.execute("--epp", https, "--ca-file", caFile.toString(), "--batch", "127.0.0.1:1")).isZero();
      assertThat(out.toString()).contains("tls-pool");

      CommandLine unverified = new CommandLine(new StatusCommand());
      unverified.setOut(new PrintWriter(new StringWriter()));
      unverified.setErr(new PrintWriter(err));
      assertThat(unverified.execute("--epp", https, "--batch", "127.0.0.1:1")).as("the JDK's CAs do not know it")
          .isEqualTo(1);
    }
  }
}
