package io.llmgw.extproc.server;

import static io.llmgw.extproc.server.ExtProcCall.requestBody;
import static io.llmgw.extproc.server.ExtProcCall.requestHeaders;
import static io.llmgw.extproc.server.ExtProcCall.setHeader;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ProcessingMode.BodySendMode;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.llmgw.api.EppProtocol;
import io.llmgw.extproc.tenancy.controller.TenancySettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 31 through real ext_proc frames: API keys name the tenant (401 in OpenAI's shape otherwise), budgets reserve a
 * request's tokens before admission and settle them from its usage, and what happens over budget — refused with the
 * window's Retry-After, queued until the window has room, demoted — is what the tenant's budget says.
 */
class TenancyIntegrationTest {
  static final String BUDGETS = """
      ---
      apiVersion: inference.x-k8s.io/v1alpha1
      kind: TenantBudget
      metadata: {name: team-a}
      spec: {tokensPerMinute: 3000, overBudget: Refuse}
      ---
      apiVersion: inference.x-k8s.io/v1alpha1
      kind: TenantBudget
      metadata: {name: team-b}
      spec: {routes: [base], tokensPerMinute: 1000000}
      ---
      apiVersion: inference.x-k8s.io/v1alpha1
      kind: TenantBudget
      metadata: {name: team-q}
      spec: {tokensPerMinute: 10000, overBudget: Queue}
      ---
      apiVersion: inference.x-k8s.io/v1alpha1
      kind: TenantBudget
      metadata: {name: team-d}
      spec: {tokensPerMinute: 1100, overBudget: Demote, demotedPriority: -5}
      ---
      apiVersion: inference.x-k8s.io/v1alpha1
      kind: TenantBudget
      metadata: {name: team-z}
      spec: {tokensPerMinute: 0}
      ---
      apiVersion: inference.x-k8s.io/v1alpha1
      kind: TenantBudget
      metadata: {name: team-c}
      spec: {maxConcurrentRequests: 1, overBudget: Refuse}
      """;
  static final Map<String, String> KEYS = Map.of("team-a", "sk-a-0001", "team-b", "sk-b-0002", "team-q", "sk-q-0003",
      "team-d", "sk-d-0004", "team-z", "sk-z-0005", "team-c", "sk-c-0007");
  static final String BATCH_KEY = "sk-batch-0006";
  static EppHarness h;
  static Path keys;

  @BeforeAll
  static void start() throws Exception {
    keys = Files.createTempFile("llmgw-keys", ".yaml");
    StringBuilder file = new StringBuilder("keys:\n");
    KEYS.forEach((tenant, key) -> file.append("  - {tenant: ").append(tenant).append(", sha256: ").append(sha256(key))
        .append("}\n"));
    file.append("  - {tenant: batch-service, sha256: ").append(sha256(BATCH_KEY)).append(", actsForOthers: true}\n");
    Files.writeString(keys, file);
    h = new EppHarness(2, 245, BUDGETS, s -> s.withTenancy(new TenancySettings(keys, null, Duration.ofSeconds(5))));
  }

  @AfterAll
  static void stop() throws Exception {
    h.close();
    Files.deleteIfExists(keys);
  }

  static String sha256(String key) {
    return io.llmgw.api.keys.ApiKeys.sha256(key);
  }

  /** A chat request of about 25 tokens (its bytes / 4) that may generate 1,000: it reserves about 1,025. */
  static String chat(String model) {
    return "{\"model\":\"" + model + "\",\"max_tokens\":1000,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
  }

  /** Sends one request; its first answer (a routing answer, or an immediate response). */
  static ProcessingResponse send(ExtProcCall call, Map<String, String> extra, String body) throws Exception {
    Map<String, String> headers = new HashMap<>(Map.of(":method", "POST", ":path", "/v1/chat/completions"));
    headers.putAll(extra);
    call.send(requestHeaders(headers, false, BodySendMode.FULL_DUPLEX_STREAMED, null));
    call.send(requestBody(body, true));
    return call.next();
  }

  static Map<String, String> key(String tenant) {
    return Map.of("authorization", "Bearer " + KEYS.get(tenant));
  }

  static boolean routed(ProcessingResponse r) {
    return r.hasRequestHeaders() && setHeader(r, EppProtocol.DESTINATION) != null;
  }

  /** The routed request's response ends with this usage: its reservation is settled. */
  static void finish(ExtProcCall call, String usage) throws Exception {
    while (true) { // the body the EPP streams back
      ProcessingResponse r = call.next();
      if (r.getRequestBody().getResponse().getBodyMutation().getStreamedResponse().getEndOfStream()) {
        break;
      }
    }
    call.send(ExtProcCall.responseHeaders(200, "application/json", null, false));
    call.next();
    call.send(ExtProcCall.responseBody("{\"usage\":" + usage + "}", true));
    call.next();
    call.end();
  }

  static void assert400(ProcessingResponse r) {
    assertThat(status(r)).as("an on-behalf-of naming no valid tenant").isEqualTo(400);
    assertThat(r.getImmediateResponse().getBody().toStringUtf8()).contains("invalid_header");
  }

  static int status(ProcessingResponse r) {
    return r.getImmediateResponse().getStatus().getCodeValue();
  }

  static String retryAfter(ProcessingResponse r) {
    return r.getImmediateResponse().getHeaders().getSetHeadersList().stream()
        .filter(o -> o.getHeader().getKey().equals("retry-after")).map(o -> o.getHeader().getRawValue().toStringUtf8())
        .findFirst().orElse(null);
  }

  @Test
  void aRequestWithoutAKnownKeyIsAnswered401InOpenAisShapeAndTheKeyIsNeverEchoed() throws Exception {
    ProcessingResponse none = send(h.open(), Map.of(), chat("base-model"));
    assertThat(status(none)).isEqualTo(401);
    assertThat(ExtProcIntegrationTest.errorField(none.getImmediateResponse().getBody().toStringUtf8(), "code"))
        .isEqualTo("missing_api_key");
    assertThat(ExtProcIntegrationTest.errorField(none.getImmediateResponse().getBody().toStringUtf8(), "type"))
        .isEqualTo("invalid_request_error");
    ProcessingResponse wrong = send(h.open(), Map.of("authorization", "Bearer sk-not-a-key-7777"), chat("base-model"));
    assertThat(status(wrong)).isEqualTo(401);
    assertThat(wrong.getImmediateResponse().getBody().toStringUtf8()).contains("invalid_api_key")
        .doesNotContain("sk-not-a-key-7777");
    ProcessingResponse control = send(h.open(), Map.of("authorization", "Bearer sk-a-0001\u0007"), chat("base-model"));
    assertThat(status(control)).as("a key with a control character names no key").isEqualTo(401);
    ExtProcCall health = h.open();
    health.send(requestHeaders(Map.of(":method", "GET", ":path", "/health"), true, BodySendMode.FULL_DUPLEX_STREAMED,
        null));
    assertThat(status(health.next())).as("the health check needs no key").isEqualTo(200);
    assertThat(h.metricsText()).contains("llmgw_tenant_refusals_total{reason=\"unauthenticated\",tenant=\"\"}");
  }

  @Test
  void aForgedTenantHeaderIsIgnoredAndOnBehalfOfIsHonouredOnlyFromAKeyThatActsForOthers() throws Exception {
    Map<String, String> forged = new HashMap<>(key("team-b"));
    forged.put(EppProtocol.TENANT, "team-z"); // team-z may spend nothing: had it been believed, a 429
    forged.put(EppProtocol.ON_BEHALF_OF, "team-z");
    ExtProcCall call = h.open();
    ProcessingResponse r = send(call, forged, chat("base-model"));
    assertThat(routed(r)).as("team-b's own request").isTrue();
    assertThat(r.getRequestHeaders().getResponse().getHeaderMutation().getRemoveHeadersList())
        .as("the gateway's tenant header never reaches the pod").contains(EppProtocol.ON_BEHALF_OF);
    call.cancel();

    ProcessingResponse forOwner = send(h.open(), Map.of("authorization", "Bearer " + BATCH_KEY,
        EppProtocol.ON_BEHALF_OF, "team-z"), chat("base-model"));
    assertThat(status(forOwner)).as("the batch service's key sends for team-z, charged to team-z").isEqualTo(429);
    assertThat(ExtProcIntegrationTest.errorField(forOwner.getImmediateResponse().getBody().toStringUtf8(), "code"))
        .isEqualTo("insufficient_quota");
    assertThat(retryAfter(forOwner)).as("no window will ever take it").isNull();
    assertThat(LlmdDropInTest.dropReason(forOwner)).as("what the batch service reads").isEqualTo(
        io.llmgw.api.DropReason.TENANT_QUOTA);
    ProcessingResponse garbage = send(h.open(), Map.of("authorization", "Bearer " + BATCH_KEY,
        EppProtocol.ON_BEHALF_OF, "Team Z\u0007"), chat("base-model"));
    assert400(garbage);
  }

  /** Issue 53: the models a tenant lists are those its budget may use, as OpenAI lists what a key may use. */
  @Test
  void aTenantListsOnlyTheModelsItsBudgetMayUse() throws Exception {
    String all = models(key("team-a"), "/v1/models");
    String limited = models(key("team-b"), "/v1/models");
    assertThat(all).contains("\"adapter-a\"");
    assertThat(limited).contains("\"object\":\"list\"").doesNotContain("\"adapter-a\"");
    assertThat(limited.split("\"id\"").length).as("base's model still listed").isGreaterThan(1);
    assertThat(models(key("team-b"), "/v1/models/adapter-a")).contains("model_not_found");
    assertThat(models(key("team-a"), "/v1/models/adapter-a")).contains("\"id\":\"adapter-a\"");
  }

  private static String models(Map<String, String> key, String path) throws Exception {
    ExtProcCall call = h.open();
    Map<String, String> headers = new HashMap<>(Map.of(":method", "GET", ":path", path));
    headers.putAll(key);
    call.send(requestHeaders(headers, true, BodySendMode.FULL_DUPLEX_STREAMED, null));
    String body = call.next().getImmediateResponse().getBody().toStringUtf8();
    call.end();
    return body;
  }

  @Test
  void aRouteTheTenantMayNotUseLooksLikeAModelItCannotSee() throws Exception {
    ProcessingResponse r = send(h.open(), key("team-b"), chat("adapter-a"));
    assertThat(status(r)).isEqualTo(404);
    assertThat(r.getImmediateResponse().getBody().toStringUtf8()).contains("model_not_found",
        "does not exist or you do not have access to it");
  }

  @Test
  void overItsBudgetARefusingTenantGets429WithTheWindowsRetryAfterAndUsageMakesRoomAgain() throws Exception {
    ExtProcCall first = h.open();
    assertThat(routed(send(first, key("team-a"), chat("base-model")))).isTrue();
    ExtProcCall second = h.open();
    assertThat(routed(send(second, key("team-a"), chat("base-model")))).isTrue();
    ProcessingResponse third = send(h.open(), key("team-a"), chat("base-model"));
    assertThat(status(third)).isEqualTo(429);
    assertThat(third.getImmediateResponse().getBody().toStringUtf8()).contains("rate_limit_exceeded",
        "tenant 'team-a' has spent its tokens for the minute");
    assertThat(Integer.parseInt(retryAfter(third))).as("until the first reservations leave the window")
        .isBetween(1, 61);

    finish(first, "{\"prompt_tokens\":10,\"completion_tokens\":5}"); // it used 15 of its ~1,025
    await().atMost(Duration.ofSeconds(5)).until(() -> h.metricsText().contains(
        "llmgw_tenant_tokens_total{kind=\"completion\",tenant=\"team-a\"} 5.0"));
    ExtProcCall again = h.open();
    assertThat(routed(send(again, key("team-a"), chat("base-model")))).as("the settled usage made room").isTrue();
    second.cancel();
    again.cancel();
  }

  @Test
  void aDemotingTenantOverItsBudgetStillRunsAtItsDemotedPriority() throws Exception {
    ExtProcCall first = h.open();
    assertThat(routed(send(first, key("team-d"), chat("base-model")))).isTrue();
    ExtProcCall over = h.open();
    assertThat(routed(send(over, key("team-d"), chat("base-model")))).as("the pool has room: it runs").isTrue();
    assertThat(h.metricsText()).contains("llmgw_tenant_admissions_total{outcome=\"demoted\",tenant=\"team-d\"} 1.0");
    first.cancel();
    over.cancel();
  }

  @Test
  void garbageUsageFromAPodIsNotBelievedAndIsCounted() throws Exception {
    ExtProcCall call = h.open();
    assertThat(routed(send(call, key("team-b"), chat("base-model")))).isTrue();
    finish(call, "{\"prompt_tokens\":-5,\"completion_tokens\":3}");
    await().atMost(Duration.ofSeconds(5)).until(() -> h.metricsText().contains(
        "llmgw_tenant_usage_ignored_total{tenant=\"team-b\"} 1.0"));
  }

  /**
   * The overshoot check: 30 requests at once at the edge of a 10,000-token minute, each reserving about 1,025 tokens.
   * Nine fit; the rest wait (nothing admitted is refused later); as the first nine settle from their usage, the next
   * nine go — and the budget's window never holds more than it allows.
   */
  @Test
  void manyConcurrentRequestsAtTheEdgeOfTheBudgetAdmitNoMoreThanItTakesAndTheRestWaitTheirTurn() throws Exception {
    List<ExtProcCall> calls = new ArrayList<>();
    List<Thread> senders = new ArrayList<>();
    String body = chat("base-model");
    for (int i = 0; i < 30; i++) {
      ExtProcCall call = h.open();
      calls.add(call);
      senders.add(Thread.ofVirtual().start(() -> {
        call.send(requestHeaders(Map.of(":method", "POST", ":path", "/v1/chat/completions", "authorization",
            "Bearer " + KEYS.get("team-q")), false, BodySendMode.FULL_DUPLEX_STREAMED, null));
        call.send(requestBody(body, true));
      }));
    }
    for (Thread t : senders) {
      t.join();
    }
    long reservation = 1000 + body.length() / 4;
    int fit = (int) (10_000 / reservation);
    await().atMost(Duration.ofSeconds(10)).until(() -> h.metricsText().contains(
        "llmgw_tenant_waiting_requests{tenant=\"team-q\"} " + (30 - fit) + ".0"));
    List<ExtProcCall> first = calls.stream().filter(ExtProcCall::answered).toList();
    assertThat(first).hasSize(fit);
    for (ExtProcCall c : first) {
      assertThat(routed(c.next())).as("admitted means routed, never refused afterwards").isTrue();
    }
    assertThat(budgetUsed("team-q")).isLessThanOrEqualTo(1.0);

    for (ExtProcCall c : first) {
      finish(c, "{\"prompt_tokens\":20,\"completion_tokens\":10}");
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> h.metricsText().contains(
        "llmgw_tenant_waiting_requests{tenant=\"team-q\"} " + (30 - 2 * fit) + ".0"));
    assertThat(budgetUsed("team-q")).isLessThanOrEqualTo(1.0);
    List<ExtProcCall> second = calls.stream().filter(c -> !first.contains(c) && c.answered()).toList();
    assertThat(second).hasSize(fit);
    for (ExtProcCall c : second) {
      assertThat(routed(c.next())).isTrue();
    }
    calls.forEach(ExtProcCall::cancel);
    await().atMost(Duration.ofSeconds(10)).until(() -> h.metricsText().contains(
        "llmgw_tenant_waiting_requests{tenant=\"team-q\"} 0.0"));
  }

  static double budgetUsed(String tenant) throws Exception {
    String prefix = "llmgw_tenant_budget_used_ratio{tenant=\"" + tenant + "\",window=\"minute\"} ";
    return h.metricsText().lines().filter(l -> l.startsWith(prefix)).mapToDouble(l -> Double.parseDouble(l.substring(
        prefix.length()))).findFirst().orElseThrow();
  }
}
