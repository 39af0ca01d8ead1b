package io.llmgw.api.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import org.bouncycastle.asn1.ASN1Primitive;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.sec.ECPrivateKey;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.util.io.pem.PemObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Keys in the encodings Secrets hold: cert-manager writes PKCS#1 RSA by default, openssl SEC 1 for EC. */
class PemFilesTest {
  @TempDir
  Path dir;

  /** PKCS#1 for RSA; for EC, SEC 1 with its curve named, as openssl writes it. */
  private Path legacyPem(KeyPair keys) throws IOException {
    StringWriter s = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(s)) {
      if (keys.getPrivate().getAlgorithm().equals("EC")) {
        PrivateKeyInfo pkcs8 = PrivateKeyInfo.getInstance(keys.getPrivate().getEncoded());
        ECPrivateKey inner = ECPrivateKey.getInstance(pkcs8.parsePrivateKey());
        ASN1Primitive curve = pkcs8.getPrivateKeyAlgorithm().getParameters().toASN1Primitive();
        w.writeObject(new PemObject("EC PRIVATE KEY",
            new ECPrivateKey(256, inner.getKey(), curve).getEncoded()));
      } else {
        w.writeObject(keys);
      }
    }
    Path f = dir.resolve("legacy.key");
    Files.writeString(f, s.toString());
    return f;
  }

  @Test
  void pkcs1RsaAndSec1EcKeysAreRead() throws Exception {
    for (String alg : new String[] {"EC", "RSA"}) {
      KeyPairGenerator g = KeyPairGenerator.getInstance(alg);
      g.initialize(alg.equals("EC") ? 256 : 2048);
      KeyPair keys = g.generateKeyPair();
      Path f = legacyPem(keys);
      assertThat(Files.readString(f)).startsWith("-----BEGIN " + alg + " PRIVATE KEY-----");
      assertThat(secret(PemFiles.privateKey(f))).as(alg).isEqualTo(secret(keys.getPrivate()));
    }
  }

  private static java.math.BigInteger secret(java.security.PrivateKey k) {
    return k instanceof java.security.interfaces.ECPrivateKey ec ? ec.getS()
        : ((java.security.interfaces.RSAPrivateKey) k).getPrivateExponent();
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
