package io.llmgw.extproc.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.extproc.observe.AdminAccess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * Issue 15, item 2: the metrics/admin port's writes need the admin token and are off without one; with a read token,
 * reads ({@code /metrics} included) need it (or the admin token); a token never comes back in an answer.
 */
class AdminAccessTest {
  static final HttpClient HTTP = HttpClient.newHttpClient();

  static HttpResponse<String> call(EppHarness h, String method, String path, String token) throws Exception {
    HttpRequest.Builder r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + h.epp.metricsPort() + path))
        .method(method, HttpRequest.BodyPublishers.noBody());
    if (token != null) {
      r.header("Authorization", "Bearer " + token);
    }
    return HTTP.send(r.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void withoutTokenFilesReadsAreOpenAndWritesAreOff() throws Exception {
    try (EppHarness h = new EppHarness(1, 231, s -> s)) {
      assertThat(call(h, "GET", "/metrics", null).statusCode()).isEqualTo(200);
      assertThat(call(h, "GET", "/admin/status", null).statusCode()).isEqualTo(200);
      HttpResponse<String> write = call(h, "POST", "/admin/adapters/adapter-a:ensureLoaded", "anything");
      assertThat(write.statusCode()).isEqualTo(403);
      assertThat(write.body()).contains("started without an admin token");
    }
  }

  /** Issue 32, item 6: every answer of the port tells a browser not to sniff, frame or load anything foreign. */
  @Test
  void everyAnswerOfThePortCarriesSecurityHeadersAndThePageRunsOnlyItsOwnScript() throws Exception {
    try (EppHarness h = new EppHarness(1, 233, s -> s)) {
      for (String path : new String[] {"/metrics", "/admin/status", "/admin/pods", "/status", "/no-such-thing"}) {
        HttpResponse<String> r = call(h, "GET", path, null);
        assertThat(r.headers().firstValue("X-Content-Type-Options")).as(path).hasValue("nosniff");
        assertThat(r.headers().firstValue("X-Frame-Options")).as(path).hasValue("DENY");
        assertThat(r.headers().firstValue("Content-Security-Policy")).as(path)
            .hasValueSatisfying(v -> assertThat(v).contains("frame-ancestors 'none'").doesNotContain("unsafe"));
      }
      String page = call(h, "GET", "/status", null).headers().firstValue("Content-Security-Policy").orElseThrow();
      HttpResponse<String> decisions = call(h, "GET", "/admin/decisions?limit=lots&id=%E0%A4", null);
      assertThat(decisions.statusCode()).as("a query that does not read is the default, not an error").isEqualTo(200);
      assertThat(decisions.body()).isEqualTo("{\"decisions\":[]}");
      assertThat(page).contains("script-src 'sha256-", "style-src 'sha256-", "connect-src 'self'");
      assertThat(call(h, "GET", "/admin/status", null).headers().firstValue("Content-Security-Policy"))
          .hasValue("default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
    }
  }

  @Test
  void withTokensReadsNeedTheReadOrAdminTokenAndWritesTheAdminToken() throws Exception {
    AdminAccess access = AdminAccess.of("admin-t0ken", "read-t0ken");
    try (EppHarness h = new EppHarness(1, 232, s -> s.withListen(s.listen().withAdmin(access)))) {
      for (String path : new String[] {"/metrics", "/admin/status", "/admin/load", "/admin/adapters"}) {
        HttpResponse<String> anonymous = call(h, "GET", path, null);
        assertThat(anonymous.statusCode()).as(path).isEqualTo(401);
        assertThat(anonymous.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v)
            .startsWith("Bearer"));
        assertThat(call(h, "GET", path, "wrong").statusCode()).as(path).isEqualTo(401);
        assertThat(call(h, "GET", path, "read-t0ken").statusCode()).as(path).isEqualTo(200);
        assertThat(call(h, "GET", path, "admin-t0ken").statusCode()).as(path).isEqualTo(200);
      }
      h.awaitQueue(0);
      assertThat(call(h, "GET", "/admin/load", "read-t0ken").body())
          .as("issue 27: one idle pod takes the queue limit (5) less the one that saturates, before shedding")
          .contains("\"headroom\":4");
      HttpResponse<String> page = call(h, "GET", "/status", null);
      assertThat(page.statusCode()).as("the page is a fixed file; it asks for the token itself").isEqualTo(200);
      assertThat(page.body()).contains("--read-token-file").doesNotContain("127.0.0.");
      assertThat(call(h, "GET", "/status/../admin/pods", null).statusCode()).isEqualTo(401);
      HttpResponse<String> readTokenWrites = call(h, "POST", "/admin/adapters/nope:ensureLoaded", "read-t0ken");
      assertThat(readTokenWrites.statusCode()).isEqualTo(401);
      assertThat(readTokenWrites.body()).doesNotContain("t0ken");
      assertThat(call(h, "POST", "/admin/adapters/nope:ensureLoaded", "admin-t0ken").statusCode())
          .as("allowed, and answered for what it is: no such adapter").isEqualTo(404);
    }
  }

  /**
   * Issue 32, item 1: a request whose explain header holds the read token gets its decision in a response header; any
   * other value gets none, and the header never reaches the pod, since it may hold the token.
   */
  @Test
  void aRequestHoldingTheReadTokenSeesItsDecisionInAResponseHeaderAndThePodNeverSeesTheToken() throws Exception {
    AdminAccess access = AdminAccess.of("admin-t0ken", "read-t0ken");
    try (EppHarness h = new EppHarness(1, 234, s -> s.withListen(s.listen().withAdmin(access)))) {
      h.awaitQueue(0);
      for (String token : new String[] {"read-t0ken", "guess"}) {
        ExtProcCall call = h.open();
        call.send(ExtProcCall.requestHeaders(java.util.Map.of(":method", "POST", ":path", "/v1/chat/completions",
            io.llmgw.extproc.observe.DecisionLog.ASK_HEADER, token), false,
            io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ProcessingMode.BodySendMode.FULL_DUPLEX_STREAMED,
            null));
        call.send(ExtProcCall.requestBody(ExtProcIntegrationTest.chat("adapter-a"), true));
        var routed = call.next();
        assertThat(routed.getRequestHeaders().getResponse().getHeaderMutation().getRemoveHeadersList())
            .as("the token is not forwarded").contains(io.llmgw.extproc.observe.DecisionLog.ASK_HEADER);
        ExtProcIntegrationTest.drainRequestBody(call); // the body, sent on
        call.send(ExtProcCall.responseHeaders(200, "application/json", null, false));
        var headers = call.next().getResponseHeaders().getResponse().getHeaderMutation().getSetHeadersList();
        var decision = headers.stream().filter(o -> o.getHeader().getKey().equals("x-llmgw-decision")).findFirst();
        if (token.equals("guess")) {
          assertThat(decision).as("a wrong token sees nothing").isEmpty();
        } else {
          assertThat(decision).hasValueSatisfying(o -> assertThat(o.getHeader().getRawValue().toStringUtf8())
              .startsWith("routed to 127.0.0.234:").contains("fresh-metrics-filter kept 1 of 1")
              .doesNotContain("t0ken"));
        }
        call.cancel();
      }
    }
  }

  @Test
  void verdictsNeverShowTheTokens() {
    assertThat(AdminAccess.of("top", "secret").toString()).doesNotContain("top").doesNotContain("secret");
    assertThat(AdminAccess.of("t", null).write("bearer t")).isEqualTo(AdminAccess.Verdict.ALLOWED);
    assertThat(AdminAccess.of("t", null).write("Basic t")).isEqualTo(AdminAccess.Verdict.UNAUTHENTICATED);
    assertThat(AdminAccess.of("t", null).write(null)).isEqualTo(AdminAccess.Verdict.UNAUTHENTICATED);
    assertThat(AdminAccess.of("t", null).write("Bearer")).isEqualTo(AdminAccess.Verdict.UNAUTHENTICATED);
    assertThat(AdminAccess.readOnly().write("Bearer t")).isEqualTo(AdminAccess.Verdict.DISABLED);
  }
}
