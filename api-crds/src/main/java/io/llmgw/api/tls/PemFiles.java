package io.llmgw.api.tls;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.edec.EdECObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x9.X9ObjectIdentifiers;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;

/**
 * PEM certificates and keys as Kubernetes Secrets and cert-manager hold them: certificate chains, and keys in PKCS#8,
 * PKCS#1 (RSA) or SEC 1 (EC). Errors name the file and what was wrong, never the key's content.
 */
public final class PemFiles {
  private PemFiles() {}

  /** Every certificate in the file, in order; at least one. */
  public static X509Certificate[] certificates(Path file) throws IOException {
    List<X509Certificate> out = new ArrayList<>();
    try (PEMParser p = new PEMParser(new StringReader(text(file)))) {
      for (Object o = p.readObject(); o != null; o = p.readObject()) {
        if (o instanceof X509CertificateHolder h) {
          out.add(new JcaX509CertificateConverter().getCertificate(h));
        }
      }
    } catch (CertificateException | RuntimeException e) {
      throw new IOException(file + " holds a certificate that cannot be read: " + e.getMessage());
    }
    if (out.isEmpty()) {
      throw new IOException(file + " holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
    }
    return out.toArray(X509Certificate[]::new);
  }

  /** The first private key in the file. */
  public static PrivateKey privateKey(Path file) throws IOException {
    String text = text(file);
    try (PEMParser p = new PEMParser(new StringReader(text))) {
      for (Object o = p.readObject(); o != null; o = p.readObject()) {
        if (o instanceof PrivateKeyInfo info) {
          return jdkKey(info);
        }
        if (o instanceof PEMKeyPair pair) {
          return jdkKey(pair.getPrivateKeyInfo());
        }
      }
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      throw new IOException(file + " holds a private key that cannot be read (" + e.getClass().getSimpleName()
          + "; encrypted keys are not supported)");
    }
    throw new IOException(file + " holds no PEM private key (-----BEGIN PRIVATE KEY-----, RSA or EC)");
  }

  /** Through the JDK's own key factories, so no BouncyCastle provider has to be installed. */
  private static PrivateKey jdkKey(PrivateKeyInfo info) throws IOException, GeneralSecurityException {
    ASN1ObjectIdentifier alg = info.getPrivateKeyAlgorithm().getAlgorithm();
    String name = alg.equals(X9ObjectIdentifiers.id_ecPublicKey) ? "EC"
        : alg.equals(PKCSObjectIdentifiers.rsaEncryption) ? "RSA"
        : alg.equals(EdECObjectIdentifiers.id_Ed25519) ? "Ed25519" : null;
    if (name == null) {
      throw new GeneralSecurityException("unsupported key algorithm " + alg);
    }
    return KeyFactory.getInstance(name).generatePrivate(new PKCS8EncodedKeySpec(info.getEncoded()));
  }

  private static String text(Path file) throws IOException {
    if (!Files.isRegularFile(file)) {
      throw new IOException(file + " is not a readable file");
    }
    return Files.readString(file, StandardCharsets.ISO_8859_1);
  }

  public static void writeCertificates(Path file, X509Certificate... certs) throws IOException {
    replace(file, pem(certs));
  }

  /** In PKCS#8 ({@code BEGIN PRIVATE KEY}), which every reader takes. */
  public static void writeKey(Path file, PrivateKey key) throws IOException {
    replace(file, pem(new JcaPKCS8Generator(key, null)));
  }

  private static String pem(Object... objects) throws IOException {
    StringWriter s = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(s)) {
      for (Object o : objects) {
        w.writeObject(o);
      }
    }
    return s.toString();
  }

  /** Replaced whole, as a Secret mount swaps its files, so a reader never sees half a file. */
  private static void replace(Path file, String content) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.writeString(tmp, content, StandardCharsets.US_ASCII);
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
