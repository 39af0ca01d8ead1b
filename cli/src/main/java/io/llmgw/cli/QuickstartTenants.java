package io.llmgw.cli;

import io.llmgw.api.FileModeYaml;
import io.llmgw.api.keys.ApiKeys;
import io.llmgw.loadgen.Workload;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The quickstart's tenants ({@code --tenants}): two example tenants and the batch service's own key, fresh keys each
 * run (printed once, kept only as their SHA-256 in a keys file the EPP and the batch service read), a budget for each
 * beside the routes, and the demonstration's routes shared out between them.
 *
 * @param keys each tenant's key, by tenant, the batch service's under {@link #BATCH_SERVICE}
 */
record QuickstartTenants(Path keysFile, Map<String, String> keys) {
  static final String HEAVY = "team-a";
  static final String LIGHT = "team-b";
  static final String BATCH_SERVICE = "batch-service";

  /** team-a weighs twice team-b in a band; team-b waits once it has spent 40,000 tokens in a minute. */
  static final String BUDGETS = """
      apiVersion: inference.x-k8s.io/v1alpha1
      kind: TenantBudget
      metadata: {name: team-a}
      spec: {weight: 2, maxConcurrentRequests: 64}
      ---
      apiVersion: inference.x-k8s.io/v1alpha1
      kind: TenantBudget
      metadata: {name: team-b}
      spec: {tokensPerMinute: 40000, overBudget: Queue}
      """;

  /** Writes the keys file into {@code dir} and the budgets at the end of {@code config}. */
  static QuickstartTenants create(Path dir, Path config) throws IOException {
    SecureRandom random = new SecureRandom();
    Map<String, String> keys = new HashMap<>();
    StringBuilder file = new StringBuilder("keys:\n");
    for (String tenant : List.of(HEAVY, LIGHT, BATCH_SERVICE)) {
      byte[] secret = new byte[24];
      random.nextBytes(secret);
      String key = "sk-llmgw-" + Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
      keys.put(tenant, key);
      file.append("  - {tenant: ").append(tenant).append(", sha256: ").append(ApiKeys.sha256(key))
          .append(tenant.equals(BATCH_SERVICE) ? ", actsForOthers: true" : "").append("}\n");
    }
    Path keysFile = Files.writeString(dir.resolve("keys.yaml"), file);
    Files.writeString(config, FileModeYaml.SEPARATOR + BUDGETS, StandardOpenOption.APPEND);
    return new QuickstartTenants(keysFile, Map.copyOf(keys));
  }

  String key(String tenant) {
    return keys.get(tenant);
  }

  /** The demonstration's routes shared out: the busiest (the first) to team-a, then alternately. */
  Workload share(Workload w) {
    Map<String, Map<String, String>> headers = new HashMap<>();
    for (int i = 0; i < w.models().size(); i++) {
      headers.put(w.models().get(i), Map.of("authorization", "Bearer " + key(i % 2 == 0 ? HEAVY : LIGHT)));
    }
    return new Workload(w.name(), w.models(), w.cumulative(), w.prefixesPerModel(), w.systemTokens(),
        w.userTokensMin(), w.userTokensMax(), w.outputTokensMin(), w.outputTokensMax(), headers, w.turnsMin(),
        w.turnsMax());
  }

  /** Which tenant asks for each of the workload's models. */
  String tenantOf(Workload w, String model) {
    return w.models().indexOf(model) % 2 == 0 ? HEAVY : LIGHT;
  }

  void print(PrintStream out, Workload w) {
    out.printf("  tenants (keys shown once; the EPP and the batch service read only their SHA-256 from %s):%n",
        keysFile);
    for (String tenant : List.of(HEAVY, LIGHT)) {
      List<String> models = w.models().stream().filter(m -> tenantOf(w, m).equals(tenant)).toList();
      out.printf("    %s  %s  (%s; demonstration routes %s)%n", tenant, key(tenant),
          tenant.equals(HEAVY) ? "weight 2" : "40,000 tokens a minute, then waits", models);
    }
    out.printf("    %s  (the batch service's own key: it sends each line for the tenant who submitted it)%n",
        BATCH_SERVICE);
  }
}
