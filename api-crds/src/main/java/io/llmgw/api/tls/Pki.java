package io.llmgw.api.tls;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Certificates made in process with BouncyCastle (ECDSA P-256): the self-signed one an EPP serves when TLS is on and
 * no certificate is given, and the certificate authorities, servers and clients that tests build. Uses the JDK's
 * providers; BouncyCastle only assembles and signs the certificate structure.
 */
public final class Pki {
  private static final SecureRandom RANDOM = new SecureRandom();

  private Pki() {}

  /** A certificate with its key; {@code chain()} is what a server or client presents. */
  public record Issued(X509Certificate certificate, KeyPair keys) {
    public X509Certificate[] chain() {
      return new X509Certificate[] {certificate};
    }
  }

  /** A certificate authority that signs the others. */
  public static Issued authority(String commonName) {
    KeyPair keys = keyPair();
    return sign(commonName, keys, commonName, keys, List.of(), Duration.ofDays(3650), Use.AUTHORITY);
  }

  /** A server's certificate for these names (DNS names or IP literals), signed by {@code ca}. */
  public static Issued server(Issued ca, String commonName, List<String> names, Duration validity) {
    return sign(commonName, keyPair(), subject(ca), ca.keys(), names, validity, Use.SERVER);
  }

  /** A client's certificate for mutual TLS, signed by {@code ca}. */
  public static Issued client(Issued ca, String commonName, Duration validity) {
    return sign(commonName, keyPair(), subject(ca), ca.keys(), List.of(), validity, Use.CLIENT);
  }

  /** A server certificate signed by its own key, as the EPP serves when TLS is on and none is given. */
  public static Issued selfSigned(String commonName, List<String> names, Duration validity) {
    KeyPair keys = keyPair();
    return sign(commonName, keys, commonName, keys, names, validity, Use.SERVER);
  }

  private enum Use { AUTHORITY, SERVER, CLIENT }

  private static String subject(Issued ca) {
    return ca.certificate().getSubjectX500Principal().getName().replaceFirst("^CN=", "");
  }

  private static Issued sign(String commonName, KeyPair keys, String issuerName, KeyPair issuerKeys,
      List<String> names, Duration validity, Use use) {
    Instant now = Instant.now();
    try {
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(new X500Name("CN=" + issuerName),
          new BigInteger(127, RANDOM), Date.from(now.minus(Duration.ofMinutes(5))), Date.from(now.plus(validity)),
          new X500Name("CN=" + commonName), keys.getPublic())
          .addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(keys.getPublic()))
          .addExtension(Extension.authorityKeyIdentifier, false,
              ext.createAuthorityKeyIdentifier(issuerKeys.getPublic()));
      switch (use) {
        case AUTHORITY -> b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
            .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
        case SERVER -> usage(b, KeyPurposeId.id_kp_serverAuth);
        case CLIENT -> usage(b, KeyPurposeId.id_kp_clientAuth);
      }
      if (!names.isEmpty()) {
        b.addExtension(Extension.subjectAlternativeName, false, alternativeNames(names));
      }
      var signer = new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKeys.getPrivate());
      X509Certificate cert = new JcaX509CertificateConverter().getCertificate(b.build(signer));
      return new Issued(cert, keys);
    } catch (GeneralSecurityException | OperatorCreationException | CertIOException e) {
      throw new IllegalStateException("cannot make a certificate for " + commonName + ": " + e.getMessage(), e);
    }
  }

  private static void usage(X509v3CertificateBuilder b, KeyPurposeId purpose) throws CertIOException {
    b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
        .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment))
        .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
  }

  private static GeneralNames alternativeNames(List<String> names) {
    List<GeneralName> out = new ArrayList<>();
    for (String n : names) {
      boolean ip = n.matches("[0-9.]+") || n.contains(":");
      out.add(new GeneralName(ip ? GeneralName.iPAddress : GeneralName.dNSName, n));
    }
    return new GeneralNames(out.toArray(GeneralName[]::new));
  }

  private static KeyPair keyPair() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
      return g.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK cannot make EC keys: " + e.getMessage(), e);
    }
  }

  /** Writes the certificate (and its issuers, if given) and the key as PEM, the way a Kubernetes TLS Secret holds them. */
  public static void write(Issued issued, Path certFile, Path keyFile) throws IOException {
    PemFiles.writeCertificates(certFile, issued.chain());
    PemFiles.writeKey(keyFile, issued.keys().getPrivate());
  }
}
