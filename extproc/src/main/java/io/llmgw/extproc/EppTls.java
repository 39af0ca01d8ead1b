package io.llmgw.extproc;

import io.grpc.ServerCredentials;
import io.grpc.TlsServerCredentials;
import io.llmgw.api.tls.ReloadingIdentity;
import io.llmgw.api.tls.ServerTls;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;

/** The EPP's server certificate as gRPC and the metrics port take it, and how a log line names it. */
final class EppTls {
  private EppTls() {}

  static String describe(ServerTls tls) {
    if (tls == null) {
      return "plaintext";
    }
    return (tls.mutual() ? "mutual TLS" : "TLS") + (tls.isSelfSigned() ? ", self-signed" : "");
  }

  /** Names a self-signed certificate is made for: loopback, the bind address, the pod's name. No lookups. */
  static List<String> certificateNames(ListenSettings l) {
    List<String> names = new ArrayList<>(List.of("localhost", "127.0.0.1"));
    if (!l.bindHost().equals("0.0.0.0") && !names.contains(l.bindHost())) {
      names.add(l.bindHost());
    }
    String pod = System.getenv("HOSTNAME");
    if (pod != null && pod.matches("[A-Za-z0-9.-]{1,253}")) {
      names.add(pod);
    }
    return names;
  }

  static ServerCredentials credentials(ReloadingIdentity id) {
    TlsServerCredentials.Builder b = TlsServerCredentials.newBuilder().keyManager(id.keyManager());
    if (id.trustManager() != null) {
      b.trustManager(id.trustManager()).clientAuth(TlsServerCredentials.ClientAuth.REQUIRE);
    }
    return b.build();
  }

  static SSLContext sslContext(ReloadingIdentity id) throws IOException {
    try {
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(new KeyManager[] {id.keyManager()}, null, null);
      return ctx;
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot serve the metrics port over TLS: " + e.getMessage(), e);
    }
  }
}
