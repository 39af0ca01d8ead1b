package io.llmgw.api.tls;

import io.grpc.util.AdvancedTlsX509KeyManager;
import io.grpc.util.AdvancedTlsX509TrustManager;
import java.io.IOException;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The certificate a server presents and the authorities it trusts for client certificates, both read again from their
 * files every reload period. A change is taken only whole: a certificate whose key does not match (a rotation caught
 * half-written) or a file that cannot be read keeps the previous pair serving, with one log line per distinct problem.
 * New handshakes see the new certificate; connections already open keep theirs.
 */
public final class ReloadingIdentity implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ReloadingIdentity.class);

  private final ServerTls settings;
  private final AdvancedTlsX509KeyManager keyManager = new AdvancedTlsX509KeyManager();
  private final AdvancedTlsX509TrustManager trustManager;
  private byte[] lastIdentity = new byte[0];
  private byte[] lastTrust = new byte[0];
  private String lastProblem;
  private final AtomicLong failedReloads = new AtomicLong();
  private volatile X509Certificate serving;
  private ScheduledFuture<?> reload;

  private ReloadingIdentity(ServerTls settings) throws GeneralSecurityException {
    this.settings = settings;
    this.trustManager = settings.mutual() ? AdvancedTlsX509TrustManager.newBuilder()
        .setVerification(AdvancedTlsX509TrustManager.Verification.CERTIFICATE_ONLY_VERIFICATION).build() : null;
  }

  /**
   * Reads the files once (failing on any problem, so a bad certificate stops start-up) and then every reload period on
   * {@code scheduler}; with no files, a self-signed certificate for {@code names} with a log line saying so.
   */
  public static ReloadingIdentity start(ServerTls settings, List<String> names, ScheduledExecutorService scheduler)
      throws IOException {
    ReloadingIdentity id;
    try {
      id = new ReloadingIdentity(settings);
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot set up TLS: " + e.getMessage(), e);
    }
    if (settings.isSelfSigned()) {
      Pki.Issued self = Pki.selfSigned("llmgw-epp", names, Duration.ofDays(365));
      id.keyManager.updateIdentityCredentials(self.chain(), self.keys().getPrivate());
      id.serving = self.certificate();
      LOG.warn(
          "TLS: no certificate given (--tls-cert-file, --tls-key-file); serving a self-signed one for {}, valid one "
              + "year. Clients must skip verification or trust it; give a certificate for anything but a trial",
          names);
    } else {
      id.reloadIdentity();
    }
    if (settings.mutual()) {
      id.reloadTrust();
    }
    if (!settings.isSelfSigned() || settings.mutual()) {
      long every = settings.reloadPeriod().toMillis();
      id.reload = scheduler.scheduleWithFixedDelay(id::reloadNow, every, every, TimeUnit.MILLISECONDS);
    }
    return id;
  }

  public AdvancedTlsX509KeyManager keyManager() {
    return keyManager;
  }

  /** The client authorities' trust manager under mutual TLS; null otherwise. */
  public AdvancedTlsX509TrustManager trustManager() {
    return trustManager;
  }

  /** Reloads that found a problem and kept the previous certificate: what an operator alerts on. */
  public long failedReloads() {
    return failedReloads.get();
  }

  /** The certificate new handshakes are given. */
  public X509Certificate certificate() {
    return serving;
  }

  /**
   * Reads the files again (what the reload period does); whether anything new is served now. A problem keeps what
   * was served and is logged once until it changes.
   */
  public synchronized boolean reloadNow() {
    try {
      boolean changed = !settings.isSelfSigned() && reloadIdentity();
      changed |= settings.mutual() && reloadTrust();
      lastProblem = null;
      return changed;
    } catch (IOException | RuntimeException e) {
      String problem = String.valueOf(e.getMessage());
      failedReloads.incrementAndGet();
      if (!problem.equals(lastProblem)) {
        LOG.warn("TLS: keeping the previous certificate: {}", problem);
        lastProblem = problem;
      }
      return false;
    }
  }

  private boolean reloadIdentity() throws IOException {
    byte[] now = concat(Files.readAllBytes(settings.certFile()), Files.readAllBytes(settings.keyFile()));
    if (Arrays.equals(now, lastIdentity)) {
      return false;
    }
    X509Certificate[] chain = PemFiles.certificates(settings.certFile());
    PrivateKey key = PemFiles.privateKey(settings.keyFile());
    if (!Keys.match(chain[0], key)) {
      throw new IOException(settings.keyFile() + " is not the key of the certificate in " + settings.certFile());
    }
    keyManager.updateIdentityCredentials(chain, key);
    serving = chain[0];
    boolean first = lastIdentity.length == 0;
    lastIdentity = now;
    LOG.info("TLS: {} certificate {} from {} (expires {})", first ? "serving" : "reloaded",
        chain[0].getSubjectX500Principal().getName(), settings.certFile(), chain[0].getNotAfter().toInstant());
    return true;
  }

  private boolean reloadTrust() throws IOException {
    byte[] now = Files.readAllBytes(settings.clientCaFile());
    if (Arrays.equals(now, lastTrust)) {
      return false;
    }
    X509Certificate[] cas = PemFiles.certificates(settings.clientCaFile());
    try {
      trustManager.updateTrustCredentials(cas);
    } catch (GeneralSecurityException e) {
      throw new IOException(settings.clientCaFile() + " cannot be trusted: " + e.getMessage());
    }
    boolean first = lastTrust.length == 0;
    lastTrust = now;
    LOG.info("TLS: {} {} client certificate authorit{} from {}", first ? "trusting" : "reloaded", cas.length,
        cas.length == 1 ? "y" : "ies", settings.clientCaFile());
    return true;
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  @Override
  public void close() {
    if (reload != null) {
      reload.cancel(false);
    }
  }
}
