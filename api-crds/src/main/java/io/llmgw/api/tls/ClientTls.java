package io.llmgw.api.tls;

import io.grpc.ChannelCredentials;
import io.grpc.TlsChannelCredentials;
import io.grpc.util.AdvancedTlsX509KeyManager;
import io.grpc.util.AdvancedTlsX509TrustManager;
import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;

/**
 * How a client (the dev proxy, {@code llmgw status}, the batch service) reaches a TLS port of the EPP.
 *
 * @param caFile PEM authorities to verify the server against; null with {@code insecure} to accept any certificate (a
 *     self-signed EPP), null without it for the JDK's default authorities
 * @param certFile the client certificate for mutual TLS, or null
 * @param keyFile its key
 * @param insecure accept any server certificate, as Envoy does with no validation context
 */
public record ClientTls(Path caFile, Path certFile, Path keyFile, boolean insecure) {
  public ClientTls {
    if ((certFile == null) != (keyFile == null)) {
      throw new IllegalArgumentException("a client certificate needs its key, and a key its certificate");
    }
    if (insecure && caFile != null) {
      throw new IllegalArgumentException("give a CA file to verify the server, or skip verification, not both");
    }
  }

  public ChannelCredentials grpc() throws IOException {
    TlsChannelCredentials.Builder b = TlsChannelCredentials.newBuilder().trustManager(trustManager());
    KeyManager km = keyManager();
    if (km != null) {
      b.keyManager(km);
    }
    return b.build();
  }

  public SSLContext https() throws IOException {
    try {
      SSLContext ctx = SSLContext.getInstance("TLS");
      KeyManager km = keyManager();
      ctx.init(km == null ? null : new KeyManager[] {km}, new TrustManager[] {trustManager()}, null);
      return ctx;
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot set up TLS: " + e.getMessage(), e);
    }
  }

  private TrustManager trustManager() throws IOException {
    try {
      AdvancedTlsX509TrustManager tm = AdvancedTlsX509TrustManager.newBuilder().setVerification(insecure
          ? AdvancedTlsX509TrustManager.Verification.INSECURELY_SKIP_ALL_VERIFICATION
          : AdvancedTlsX509TrustManager.Verification.CERTIFICATE_AND_HOST_NAME_VERIFICATION).build();
      if (caFile != null) {
        tm.updateTrustCredentials(PemFiles.certificates(caFile));
      } else if (!insecure) {
        tm.useSystemDefaultTrustCerts();
      }
      return tm;
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot trust " + caFile + ": " + e.getMessage(), e);
    }
  }

  private KeyManager keyManager() throws IOException {
    if (certFile == null) {
      return null;
    }
    var chain = PemFiles.certificates(certFile);
    var key = PemFiles.privateKey(keyFile);
    if (!Keys.match(chain[0], key)) {
      throw new IOException(keyFile + " is not the key of the certificate in " + certFile);
    }
    AdvancedTlsX509KeyManager km = new AdvancedTlsX509KeyManager();
    km.updateIdentityCredentials(chain, key);
    return km;
  }
}
