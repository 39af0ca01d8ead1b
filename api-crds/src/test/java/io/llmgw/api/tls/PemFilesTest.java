package io.llmgw.api.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Keys in the encodings Secrets hold: cert-manager writes PKCS#1 RSA by default, openssl SEC 1 for EC. */
class PemFilesTest {
  @TempDir Path dir;

  private Path legacyPem(KeyPair keys) throws IOException {
    StringWriter s = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(s)) {
      w.writeObject(keys); // "RSA PRIVATE KEY" / "EC PRIVATE KEY"
    }
    Path f = dir.resolve("legacy.key");
    Files.writeString(f, s.toString());
    return f;
  }

  @Test
  void pkcs1RsaAndSec1EcKeysAreRead() throws Exception {
    for (String alg : new String[] {"RSA", "EC"}) {
      KeyPair keys = KeyPairGenerator.getInstance(alg).generateKeyPair();
      Path f = legacyPem(keys);
      assertThat(Files.readString(f)).startsWith("-----BEGIN " + alg + " PRIVATE KEY-----");
      assertThat(PemFiles.privateKey(f).getEncoded()).isEqualTo(keys.getPrivate().getEncoded());
    }
  }

  @Test
  void aCertificateFileWithoutCertificatesIsNamed() throws Exception {
    Path f = dir.resolve("empty.crt");
    Files.writeString(f, "nothing here\n");
    assertThatThrownBy(() -> PemFiles.certificates(f)).hasMessageContaining("empty.crt holds no PEM certificate");
    assertThatThrownBy(() -> PemFiles.privateKey(dir.resolve("absent.key")))
        .hasMessageContaining("absent.key is not a readable file");
  }
}
