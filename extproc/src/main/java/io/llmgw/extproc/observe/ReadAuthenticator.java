package io.llmgw.extproc.observe;

import com.sun.net.httpserver.Authenticator;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpPrincipal;

/**
 * Guards every read of the metrics/admin port ({@code /metrics} included) with {@link AdminAccess}'s read token. Other
 * methods pass here: {@link AdminHandler} decides on writes, so that it can say why one is refused. The status page
 * itself passes too: it is a fixed file holding no data, and a browser cannot send a bearer token with a page load, so
 * the page asks for the token and sends it with each read of the data.
 */
final class ReadAuthenticator extends Authenticator {
  private final AdminAccess access;

  ReadAuthenticator(AdminAccess access) {
    this.access = access;
  }

  @Override
  public Result authenticate(HttpExchange ex) {
    String method = ex.getRequestMethod();
    boolean read = method.equals("GET") || method.equals("HEAD");
    if (!read || AdminHandler.isStatusPage(ex.getRequestURI().getPath())
        || access.read(ex.getRequestHeaders().getFirst("Authorization")) == AdminAccess.Verdict.ALLOWED) {
      return new Success(new HttpPrincipal("admin", "llmgw"));
    }
    ex.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"llmgw\"");
    return new Retry(401);
  }

  /** The port's authenticator, or null when reads are open. */
  static Authenticator forAccess(AdminAccess access) {
    return access.readsProtected() ? new ReadAuthenticator(access) : null;
  }
}
