package io.llmgw.cli;

import static io.llmgw.cli.MainTest.run;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 32, item 3: a configuration is checked before it ships, with the EPP's own checks. */
class ValidateCommandTest {
  @TempDir
  Path dir;

  static Path examples(String name) {
    return Path.of(System.getProperty("user.dir")).getParent().resolve("examples").resolve(name);
  }

  @Test
  void theShippedExamplesAreValidGatewayAndPluginFiles() {
    MainTest.Run r = run("validate", examples("pool.yaml").toString(), examples("quickstart.yaml").toString(),
        examples("plugins-scorers.yaml").toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("pool.yaml: valid (1 pools, ").contains("plugins-scorers.yaml: valid "
        + "EndpointPickerConfig; lifecycle resolve: ").contains("queue-scorer");
  }

  @Test
  void aBrokenFileIsExit1NamingFileDocumentFieldLineAndColumn() throws Exception {
    String good = Files.readString(examples("pool.yaml"));
    String text = good.replaceFirst("priority: -?\\d+", "priority: 99999999999");
    Path broken = Files.writeString(dir.resolve("broken.yaml"), text);
    List<String> lines = text.lines().toList();
    int line = 0;
    while (!lines.get(line).contains("priority: 99999999999")) {
      line++;
    }
    int column = lines.get(line).indexOf("priority") + 1;
    MainTest.Run r = run("validate", broken.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).contains("broken.yaml: document ", "field spec.adapter.priority (line " + (line + 1)
        + ", column " + column + "): 99999999999 is out of range");
    MainTest.Run missing = run("validate", dir.resolve("nope.yaml").toString());
    assertThat(missing.code()).isEqualTo(1);
    assertThat(missing.err()).contains("nope.yaml", "no such file");
  }

  @Test
  void aPluginFileNamingAnUnknownPluginOrABadParameterIsRefusedNamingIt() throws Exception {
    Path plugins = Files.writeString(dir.resolve("plugins.yaml"), Files.readString(examples("plugins-scorers.yaml"))
        .replace("maxPrefixBlocksToMatch: 256", "maxPrefixBlocksToMatch: lots"));
    MainTest.Run r = run("validate", plugins.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).contains("plugins.yaml", "maxPrefixBlocksToMatch", "(line ");
    Path unknown = Files.writeString(dir.resolve("unknown.yaml"), Files.readString(examples("plugins-scorers.yaml"))
        .replace("type: queue-scorer", "type: fastest-scorer"));
    assertThat(run("validate", unknown.toString()).err()).contains("fastest-scorer");
  }

  @Test
  void againstTheRunningFileItSaysWhatWouldChange() throws Exception {
    String good = Files.readString(examples("pool.yaml"));
    Path running = Files.writeString(dir.resolve("running.yaml"), good);
    Path edited = Files.writeString(dir.resolve("edited.yaml"), good.replaceFirst("priority: (-?\\d+)",
        "priority: 77"));
    MainTest.Run r = run("validate", "--against", running.toString(), edited.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("against " + running + ": routes ~");
    assertThat(run("validate", "--against", running.toString(), running.toString()).out()).contains("no changes");
  }

  static final String KEYS = """
      keys:
        - {tenant: team-a, sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08}
        - {tenant: batch-service, sha256: 60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752, actsForOthers: true}
      """;

  /**
   * Issue 53: a deployment's files checked together. Each may be valid alone and the whole not work: the batch
   * service's objective missing on a pool or not sheddable, no key to act for tenants, a budget nobody can spend.
   */
  @Test
  void aDeploymentsFilesAreCheckedTogether() throws Exception {
    Path keys = Files.writeString(dir.resolve("keys.yaml"), KEYS);
    Path gateway = Files.writeString(dir.resolve("gateway.yaml"), Files.readString(examples("quickstart.yaml"))
        + """
            ---
            apiVersion: inference.x-k8s.io/v1alpha1
            kind: TenantBudget
            metadata: {name: team-z}
            spec: {tokensPerMinute: 1000}
            """);
    MainTest.Run ok = run("validate", gateway.toString(), keys.toString(), "--batch-objective", "batch");
    assertThat(ok.code()).as(ok.err()).isZero();
    assertThat(ok.out()).contains("keys.yaml: valid keys file (2 keys for tenants [batch-service, team-a]; one acts "
        + "for others)", "note: TenantBudget team-z names a tenant no key in the keys file names",
        "together: consistent, the batch objective 'batch' sheddable on every pool");

    Path alone = Files.writeString(dir.resolve("alone.yaml"), KEYS.replace(", actsForOthers: true", ""));
    MainTest.Run noServiceKey = run("validate", gateway.toString(), alone.toString(), "--batch-objective", "batch");
    assertThat(noServiceKey.code()).isEqualTo(1);
    assertThat(noServiceKey.err()).contains("no key in the keys file acts for others", "401");

    MainTest.Run unknown = run("validate", gateway.toString(), "--batch-objective", "overnight");
    assertThat(unknown.code()).isEqualTo(1);
    assertThat(unknown.err()).contains("pool quickstart-pool defines no InferenceObjective 'overnight'",
        "unknown_objective");

    Path urgent = Files.writeString(dir.resolve("urgent.yaml"), Files.readString(gateway)
        .replace("priority: -100", "priority: 5"));
    assertThat(run("validate", urgent.toString(), "--batch-objective", "batch").err())
        .contains("has priority 5", "compete with interactive traffic");

    Path badKey = Files.writeString(dir.resolve("bad-keys.yaml"), KEYS.replace("9f86d0", "XYZ"));
    MainTest.Run bad = run("validate", badKey.toString());
    assertThat(bad.code()).isEqualTo(1);
    assertThat(bad.err()).contains("bad-keys.yaml: 1 entry would be left out");
  }
}
