package io.llmgw.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.errors.NotFoundException;
import com.openai.errors.UnauthorizedException;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.llmgw.devproxy.ProxySettings;
import io.llmgw.extproc.EppSettings;
import io.llmgw.extproc.tenancy.controller.TenancySettings;
import io.llmgw.loadgen.Rig;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.http.SimPods;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 31 end to end: simulated pods, the EPP with API keys and budgets, the dev proxy, and the official OpenAI Java SDK
 * with its defaults (its own retries on). A tenant's key works, a wrong key is the SDK's 401, a route its budget does
 * not list is the SDK's 404; what the tenant spent shows in {@code /admin/status}, {@code llmgw status} and on the
 * status page.
 */
class TenantsEndToEndTest {
  static final String BUDGETS = """
      ---
      apiVersion: inference.x-k8s.io/v1alpha1
      kind: TenantBudget
      metadata: {name: team-a}
      spec: {tokensPerMinute: 100000, maxConcurrentRequests: 8}
      ---
      apiVersion: inference.x-k8s.io/v1alpha1
      kind: TenantBudget
      metadata: {name: team-b}
      spec: {routes: [route-1]}
      """;

  @TempDir
  Path dir;

  static String sha256(String key) {
    return io.llmgw.api.keys.ApiKeys.sha256(key);
  }

  static OpenAIClient sdk(int port, String key) {
    return OpenAIOkHttpClient.builder().baseUrl("http://127.0.0.1:" + port + "/v1").apiKey(key)
        .timeout(Duration.ofSeconds(30)).build();
  }

  @Test
  void aTenantsKeyWorksAWrongOneIs401AndWhatItSpentShows() throws Exception {
    Path keys = dir.resolve("keys.yaml");
    Files.writeString(keys, "keys:\n  - {tenant: team-a, sha256: " + sha256("sk-team-a") + "}\n"
        + "  - {tenant: team-b, sha256: " + sha256("sk-team-b") + "}\n");
    SimPods pods = SimPods.start(SimConfig.builder().adapters(Gateways.ADAPTERS).loras(2, 2).build(), 1,
        "127.0.0.236", 8000);
    Path config = Rig.writeConfig(dir.resolve("gateway.yaml"), pods, List.of(Gateways.BASE, "sql-lora", "chat-lora"));
    Files.writeString(config, Files.readString(config) + "\n" + BUDGETS);
    try (Rig rig = Rig.start(pods, EppSettings.defaults(config).onLoopbackEphemeralPorts()
        .withTenancy(new TenancySettings(keys, null, Duration.ofSeconds(5))),
        ProxySettings.defaults().withListener("127.0.0.1", 0))) {
      OpenAIClient teamA = sdk(rig.proxyPort(), "sk-team-a");
      var answer = teamA.chat().completions().create(ChatCompletionCreateParams.builder().model(Gateways.BASE)
          .addUserMessage("Which tables hold orders?").maxCompletionTokens(16).build());
      assertThat(answer.choices()).isNotEmpty();
      long used = answer.usage().orElseThrow().totalTokens();

      assertThatThrownBy(() -> sdk(rig.proxyPort(), "sk-wrong").chat().completions().create(
          ChatCompletionCreateParams.builder().model(Gateways.BASE).addUserMessage("hi").build()))
          .isInstanceOf(UnauthorizedException.class).hasMessageContaining("Incorrect API key provided");
      assertThatThrownBy(() -> sdk(rig.proxyPort(), "sk-team-b").chat().completions().create(
          ChatCompletionCreateParams.builder().model(Gateways.BASE).addUserMessage("hi").build()))
          .as("team-b may use route-1 (sql-lora) only").isInstanceOf(NotFoundException.class);
      assertThat(sdk(rig.proxyPort(), "sk-team-b").chat().completions().create(ChatCompletionCreateParams.builder()
          .model("sql-lora").addUserMessage("hi").maxCompletionTokens(8).build()).choices()).isNotEmpty();

      String status = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
          + rig.epp().metricsPort() + "/admin/status")).build(), HttpResponse.BodyHandlers.ofString()).body();
      assertThat(status).as("settled from the usage the SDK saw").contains("\"tenant\":\"team-a\",\"lastMinute\":"
          + used + ",\"perMinute\":100000");
      String printed = io.llmgw.cli.StatusCommandAccess.run("127.0.0.1:" + rig.epp().metricsPort());
      assertThat(printed).contains("TENANT", "budgets +team-a +team-b")
          .containsPattern("team-a\\s+" + used + "/100000\\s+" + used
              + "\\s+0/8\\s+0");
      if (Gateways.onPath("chromium")) {
        assertThat(StatusPageTest.dom("http://127.0.0.1:" + rig.epp().metricsPort() + "/status", 2500))
            .containsPattern("(?s)<table id=\"tenants\">.*<td>team-a</td><td class=\"num\">" + used + " of 100000");
      }
    }
  }
}
