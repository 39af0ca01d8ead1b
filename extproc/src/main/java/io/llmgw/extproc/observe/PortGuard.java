package io.llmgw.extproc.observe;

import com.sun.net.httpserver.Authenticator;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpPrincipal;

/**
 * Stands before every answer of the metrics/admin port ({@code /metrics} included), the one place every context
 * passes: it sets the {@link SecurityHeaders}, then guards reads with {@link AdminAccess}'s read token when one is
 * configured. Other methods pass here: {@link AdminHandler} decides on writes, so that it can say why one is refused.
 * The status page itself passes too: it is a fixed file holding no data, and a browser cannot send a bearer token with
 * a page load, so the page asks for the token and sends it with each read of the data.
 */
final class PortGuard extends Authenticator {
  private static final HttpPrincipal ADMIN = new HttpPrincipal("admin", "llmgw");

  private final AdminAccess access;

  PortGuard(AdminAccess access) {
    this.access = access;
  }

  @Override
  public Result authenticate(HttpExchange ex) {
    SecurityHeaders.apply(ex.getResponseHeaders());
    if (!access.readsProtected()) {
      return new Success(ADMIN);
    }
    String method = ex.getRequestMethod();
    boolean read = method.equals("GET") || method.equals("HEAD");
    if (!read || AdminHandler.isStatusPage(ex.getRequestURI().getPath())
        || access.read(ex.getRequestHeaders().getFirst("Authorization")) == AdminAccess.Verdict.ALLOWED) {
      return new Success(ADMIN);
    }
    ex.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"llmgw\"");
    return new Retry(401);
  }
}
