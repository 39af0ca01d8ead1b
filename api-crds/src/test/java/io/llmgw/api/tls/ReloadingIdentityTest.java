package io.llmgw.api.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The files a Secret mount holds, read again on demand: whole changes are taken, broken ones are not. */
class ReloadingIdentityTest {
  @TempDir
  Path dir;
  // a period no test waits for: every reload here is asked for with reloadNow()
  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  private final Pki.Issued ca = Pki.authority("test-ca");

  @AfterEach
  void stop() {
    scheduler.shutdownNow();
  }

  private ServerTls files(boolean mutual) {
    return new ServerTls(dir.resolve("tls.crt"), dir.resolve("tls.key"), mutual ? dir.resolve("ca.crt") : null,
        Duration.ofDays(1));
  }

  private Pki.Issued writeServer(String name) throws IOException {
    Pki.Issued s = Pki.server(ca, name, List.of("127.0.0.1"), Duration.ofDays(1));
    Pki.write(s, dir.resolve("tls.crt"), dir.resolve("tls.key"));
    return s;
  }

  @Test
  void aRotatedCertificateIsServedAfterTheNextReloadAndAnUnchangedOneIsNotReloaded() throws Exception {
    Pki.Issued first = writeServer("one");
    try (ReloadingIdentity id = ReloadingIdentity.start(files(false), List.of(), scheduler)) {
      assertThat(id.certificate()).isEqualTo(first.certificate());
      assertThat(id.reloadNow()).as("nothing changed").isFalse();
      assertThat(id.failedReloads()).as("nothing changed is no failure").isZero();
      Pki.Issued second = writeServer("two");
      assertThat(id.reloadNow()).isTrue();
      assertThat(id.certificate()).isEqualTo(second.certificate());
      String alias = id.keyManager().chooseServerAlias("EC", null, null);
      assertThat(id.keyManager().getCertificateChain(alias)[0]).isEqualTo(second.certificate());
    }
  }

  @Test
  void aCertificateCaughtWithoutItsNewKeyKeepsThePreviousPairServing() throws Exception {
    Pki.Issued first = writeServer("one");
    try (ReloadingIdentity id = ReloadingIdentity.start(files(false), List.of(), scheduler)) {
      Pki.Issued second = Pki.server(ca, "two", List.of("127.0.0.1"), Duration.ofDays(1));
      PemFiles.writeCertificates(dir.resolve("tls.crt"), second.chain()); // the key is not written yet
      assertThat(id.reloadNow()).isFalse();
      assertThat(id.certificate()).isEqualTo(first.certificate());
      PemFiles.writeKey(dir.resolve("tls.key"), second.keys().getPrivate());
      assertThat(id.reloadNow()).isTrue();
      assertThat(id.certificate()).isEqualTo(second.certificate());
    }
  }

  @Test
  void garbageOrAMissingFileKeepsThePreviousCertificate() throws Exception {
    Pki.Issued first = writeServer("one");
    try (ReloadingIdentity id = ReloadingIdentity.start(files(false), List.of(), scheduler)) {
      Files.writeString(dir.resolve("tls.crt"), "-----BEGIN CERTIFICATE-----\nnot base64 at all\n");
      assertThat(id.reloadNow()).isFalse();
      assertThat(id.failedReloads()).as("issue 32: what an operator alerts on").isEqualTo(1);
      Files.delete(dir.resolve("tls.key"));
      assertThat(id.reloadNow()).isFalse();
      assertThat(id.certificate()).isEqualTo(first.certificate());
      assertThat(id.failedReloads()).isEqualTo(2);
    }
  }

  @Test
  void atStartABadFileIsAnErrorNamingTheFileAndNeverTheKey() throws Exception {
    writeServer("one");
    Files.writeString(dir.resolve("tls.key"), "secret-looking-text");
    assertThatThrownBy(() -> ReloadingIdentity.start(files(false), List.of(), scheduler))
        .isInstanceOf(IOException.class).hasMessageContaining("tls.key").hasMessageNotContaining("secret-looking");
    Pki.Issued other = Pki.server(ca, "other", List.of(), Duration.ofDays(1));
    PemFiles.writeKey(dir.resolve("tls.key"), other.keys().getPrivate());
    assertThatThrownBy(() -> ReloadingIdentity.start(files(false), List.of(), scheduler))
        .hasMessageContaining("is not the key of the certificate");
  }

  @Test
  void clientAuthoritiesAreReloadedToo() throws Exception {
    writeServer("one");
    PemFiles.writeCertificates(dir.resolve("ca.crt"), ca.certificate());
    try (ReloadingIdentity id = ReloadingIdentity.start(files(true), List.of(), scheduler)) {
      assertThat(id.trustManager().getAcceptedIssuers()).containsExactly(ca.certificate());
      Pki.Issued next = Pki.authority("next-ca");
      PemFiles.writeCertificates(dir.resolve("ca.crt"), ca.certificate(), next.certificate());
      assertThat(id.reloadNow()).isTrue();
      assertThat(id.trustManager().getAcceptedIssuers()).containsExactlyInAnyOrder(ca.certificate(),
          next.certificate());
    }
  }

  @Test
  void withoutFilesASelfSignedCertificateForTheGivenNames() throws Exception {
    try (ReloadingIdentity id = ReloadingIdentity.start(ServerTls.selfSigned(), List.of("localhost", "127.0.0.1"),
        scheduler)) {
      var cert = id.certificate();
      assertThat(cert.getIssuerX500Principal()).isEqualTo(cert.getSubjectX500Principal());
      cert.verify(cert.getPublicKey());
      assertThat(cert.getSubjectAlternativeNames()).extracting(n -> (Object) n.get(1)).contains("localhost",
          "127.0.0.1");
      assertThat(id.reloadNow()).isFalse();
    }
  }

  @Test
  void halfATlsSettingIsRefused() {
    assertThatThrownBy(() -> new ServerTls(dir.resolve("tls.crt"), null, null, Duration.ofSeconds(1)))
        .hasMessageContaining("tls.certFile and tls.keyFile go together");
  }
}
