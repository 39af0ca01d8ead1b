package io.llmgw.extproc.server;

import static io.llmgw.extproc.server.TenancyIntegrationTest.chat;
import static io.llmgw.extproc.server.TenancyIntegrationTest.routed;
import static io.llmgw.extproc.server.TenancyIntegrationTest.send;
import static io.llmgw.extproc.server.TenancyIntegrationTest.status;
import static org.assertj.core.api.Assertions.assertThat;

import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.llmgw.api.EppProtocol;
import io.llmgw.extproc.tenancy.controller.TenancySettings;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 31, the operator's own authentication: with {@code --tenant-header} the EPP takes the tenant from the header
 * the proxy set (every shipped proxy removes a client's first) and checks no key itself.
 */
class TrustedTenantHeaderTest {
  static EppHarness h;

  @BeforeAll
  static void start() throws Exception {
    h = new EppHarness(1, 247, TenancyIntegrationTest.BUDGETS,
        s -> s.withTenancy(new TenancySettings(null, EppProtocol.TENANT, Duration.ofSeconds(5))));
  }

  @AfterAll
  static void stop() throws Exception {
    h.close();
  }

  @Test
  void theTrustedHeaderNamesTheTenantAndItsAbsenceIsA401() throws Exception {
    ProcessingResponse zero = send(h.open(), Map.of(EppProtocol.TENANT, "team-z"), chat("base-model"));
    assertThat(status(zero)).as("team-z may spend nothing").isEqualTo(429);
    ExtProcCall call = h.open();
    ProcessingResponse b = send(call, Map.of(EppProtocol.TENANT, "team-b"), chat("base-model"));
    assertThat(routed(b)).isTrue();
    assertThat(b.getRequestHeaders().getResponse().getHeaderMutation().getRemoveHeadersList())
        .as("the pod never sees who the gateway's authentication named").contains(EppProtocol.TENANT);
    call.cancel();
    ProcessingResponse none = send(h.open(), Map.of("authorization", "Bearer anything"), chat("base-model"));
    assertThat(status(none)).isEqualTo(401);
    assertThat(none.getImmediateResponse().getBody().toStringUtf8()).contains("missing_tenant");
    ProcessingResponse bad = send(h.open(), Map.of(EppProtocol.TENANT, "Team B!"), chat("base-model"));
    assertThat(status(bad)).isEqualTo(401);
    assertThat(bad.getImmediateResponse().getBody().toStringUtf8()).contains("invalid_tenant");
    ProcessingResponse unbudgeted = send(h.open(), Map.of(EppProtocol.TENANT, "team-new"), chat("base-model"));
    assertThat(routed(unbudgeted)).as("a tenant without a budget has no limits").isTrue();
    assertThat(h.metricsText()).as("a name no configuration gives is labelled other")
        .contains("llmgw_tenant_admissions_total{outcome=\"admitted\",tenant=\"team-b\"}")
        .contains("llmgw_tenant_admissions_total{outcome=\"admitted\",tenant=\"other\"} 1.0")
        .doesNotContain("tenant=\"team-new\"");
  }
}
