package io.llmgw.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The quickstart's configuration moved to other pod addresses ({@code --first-ip}, {@code --pod-port},
 * {@code --ephemeral-ports}): the same documents, with the ready pods at consecutive addresses from the first IP and the
 * pool's target port changed, written to a file of its own that the EPP then watches.
 */
final class QuickstartAddresses {
  private static final YAMLMapper YAML = new YAMLMapper(new YAMLFactory()
      .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER).enable(YAMLGenerator.Feature.MINIMIZE_QUOTES));

  private QuickstartAddresses() {}

  /** Consecutive addresses from {@code first} (127.0.0.N), {@code count} of them, all on loopback. */
  static List<String> from(String first, int count) {
    if (!first.matches("127\\.0\\.0\\.([1-9][0-9]?|1[0-9][0-9]|2[0-4][0-9]|25[0-4])")) {
      throw new IllegalArgumentException("--first-ip takes a loopback address 127.0.0.1..127.0.0.254, not '" + first
          + "'");
    }
    int n = Integer.parseInt(first.substring(first.lastIndexOf('.') + 1));
    if (n + count - 1 > 254) {
      throw new IllegalArgumentException("--first-ip " + first + " leaves no room for " + count + " pods below "
          + "127.0.0.255");
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      out.add("127.0.0." + (n + i));
    }
    return out;
  }

  /** Writes {@code source}'s documents to {@code target} with the ready pods at {@code ips} and the pool on port. */
  static Path relocate(Path source, Path target, List<String> ips, int port) throws IOException {
    StringBuilder out = new StringBuilder();
    int pod = 0;
    try (MappingIterator<JsonNode> docs = YAML.readerFor(JsonNode.class).readValues(source.toFile())) {
      while (docs.hasNextValue()) {
        JsonNode doc = docs.nextValue();
        if (doc == null || !doc.isObject()) {
          continue;
        }
        String kind = doc.path("kind").asText();
        if (kind.equals("Pod") && doc.path("status").hasNonNull("podIP") && pod < ips.size()) {
          ((ObjectNode) doc.get("status")).put("podIP", ips.get(pod++));
        } else if (kind.equals("InferencePool") && doc.path("spec").path("targetPorts").size() == 1) {
          ((ObjectNode) doc.path("spec").path("targetPorts").get(0)).put("number", port);
        }
        out.append(out.isEmpty() ? "" : "---\n").append(YAML.writeValueAsString(doc));
      }
    }
    Files.writeString(target, out);
    return target;
  }
}
