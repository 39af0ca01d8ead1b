package io.llmgw.api.tls;

import java.nio.charset.StandardCharsets;

import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;

/** Whether a private key belongs to a certificate: it signs, and the certificate's public key verifies. */
final class Keys {
  private static final byte[] PROBE = "llmgw key check".getBytes(StandardCharsets.US_ASCII);

  private Keys() {}

  static boolean match(X509Certificate cert, PrivateKey key) {
    String algorithm = switch (key.getAlgorithm()) {
      case "EC" -> "SHA256withECDSA";
      case "RSA" -> "SHA256withRSA";
      case "Ed25519", "EdDSA" -> "Ed25519";
      default -> null;
    };
    return algorithm != null && verify(cert, key, algorithm);
  }

  private static boolean verify(X509Certificate cert, PrivateKey key, String algorithm) {
    try {
      Signature s = Signature.getInstance(algorithm);
      s.initSign(key);
      s.update(PROBE);
      byte[] signed = s.sign();
      Signature v = Signature.getInstance(algorithm);
      v.initVerify(cert.getPublicKey());
      v.update(PROBE);
      return v.verify(signed);
    } catch (GeneralSecurityException | RuntimeException e) {
      return false;
    }
  }
}
