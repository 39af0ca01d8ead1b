package io.llmgw.api.tls;

import io.llmgw.api.SettingException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * TLS for a listening port.
 *
 * @param certFile PEM certificate chain; null with {@code keyFile} null for a self-signed certificate made at start
 * @param keyFile PEM private key of the chain's first certificate
 * @param clientCaFile PEM certificate authorities whose clients are let in (mutual TLS); null: no client certificate
 *     asked for
 * @param reloadPeriod how often the files are read again for a rotated certificate
 */
public record ServerTls(Path certFile, Path keyFile, Path clientCaFile, Duration reloadPeriod) {
  public ServerTls {
    if ((certFile == null) != (keyFile == null)) {
      throw new SettingException("tls.certFile", "and tls.keyFile go together: a TLS certificate needs its key, and "
          + "a key its certificate");
    }
    if (reloadPeriod == null || reloadPeriod.isNegative() || reloadPeriod.isZero()) {
      throw new IllegalArgumentException("the TLS reload period must be positive");
    }
  }

  public static ServerTls selfSigned() {
    return new ServerTls(null, null, null, Duration.ofSeconds(10));
  }

  public boolean isSelfSigned() {
    return certFile == null;
  }

  public boolean mutual() {
    return clientCaFile != null;
  }
}
