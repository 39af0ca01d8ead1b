package io.llmgw.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Issue 16, item 5: every flag a kustomization in deploy/ adds to the EPP's container is one `llmgw serve` takes, with
 * a value it accepts (kubectl would apply a typo happily; the pod would crash-loop).
 */
class DeployOptionsTest {
  private static final YAMLMapper YAML = new YAMLMapper();

  @Test
  void everyFlagTheKustomizationsAddToTheEppIsOneServeAccepts() throws Exception {
    List<String> checked = new ArrayList<>();
    try (Stream<Path> files = Files.walk(Path.of("..", "deploy"))) {
      for (Path k : files.filter(p -> p.getFileName().toString().equals("kustomization.yaml")).toList()) {
        for (JsonNode patch : YAML.readTree(k.toFile()).path("patches")) {
          if (!patch.path("target").path("name").asText().equals("llmgw-epp")) {
            continue;
          }
          List<String> args = new ArrayList<>(List.of("serve", "--kubernetes"));
          JsonNode ops = YAML.readTree(patch.path("patch").asText());
          for (JsonNode op : ops.isArray() ? ops : YAML.createArrayNode()) {
            if (op.path("path").asText().endsWith("/args/-")) {
              args.add(op.path("value").asText());
            }
          }
          if (args.size() > 2) {
            String[] line = args.toArray(String[]::new);
            Main.commandLine(line).parseArgs(line); // throws on a flag serve refuses
            checked.add(k.getParent().getFileName() + ": " + args.subList(2, args.size()));
          }
        }
      }
    }
    assertThat(checked).as("the overlays that set EPP flags").hasSizeGreaterThanOrEqualTo(5);
  }
}
