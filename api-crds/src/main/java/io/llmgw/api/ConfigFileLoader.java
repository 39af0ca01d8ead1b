package io.llmgw.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.llmgw.api.crd.CrdNames;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Loads file mode: one multi-document YAML with the same kinds a cluster holds (InferencePool, LLMRoute,
 * InferenceObjective, TenantBudget, Pod, and llm-d's InferenceModelRewrite). Either the
 * whole file is accepted or a {@link ConfigException} names the first problem, so a bad edit never half-applies.
 */
public final class ConfigFileLoader {
  public static final String POOL_API = CrdNames.POOL_GROUP + "/" + CrdNames.POOL_VERSION;
  public static final String ROUTE_API = CrdNames.ROUTE_GROUP + "/" + CrdNames.ROUTE_VERSION;
  public static final String OBJECTIVE_API = CrdNames.OBJECTIVE_GROUP + "/" + CrdNames.OBJECTIVE_VERSION;
  public static final String LLMD_API = CrdNames.LLMD_GROUP + "/" + CrdNames.LLMD_VERSION;

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private ConfigFileLoader() {}

  public static GatewayConfig load(Path file) throws ConfigException {
    String text;
    try {
      text = Files.readString(file);
    } catch (NoSuchFileException e) {
      throw new ConfigException(file.toString(), 0, "", "no such file");
    } catch (AccessDeniedException e) {
      throw new ConfigException(file.toString(), 0, "", "cannot read: permission denied");
    } catch (IOException e) {
      // the JDK's message is often just the path, which the exception already names
      throw new ConfigException(file.toString(), 0, "", "cannot read: " + (e.getMessage() == null
          || e.getMessage().equals(file.toString()) ? e.getClass().getSimpleName() : e.getMessage()));
    }
    return parse(file.toString(), text);
  }

  private static String what(Throwable e) {
    JsonProcessingException j = e instanceof JsonProcessingException p ? p
        : e.getCause() instanceof JsonProcessingException p ? p : null;
    return j != null ? j.getOriginalMessage() : String.valueOf(e.getMessage());
  }

  public static GatewayConfig parse(String source, String yaml) throws ConfigException {
    try {
      return parseDocuments(source, yaml);
    } catch (ConfigException e) {
      throw e.document() > 0 ? e.locatedIn(yaml) : e;
    }
  }

  private static GatewayConfig parseDocuments(String source, String yaml) throws ConfigException {
    List<Located<InferencePool>> pools = new ArrayList<>();
    List<Located<LLMRoute>> routes = new ArrayList<>();
    List<Located<InferenceObjective>> objectives = new ArrayList<>();
    List<Located<PodInfo>> pods = new ArrayList<>();
    List<Located<TenantBudget>> budgets = new ArrayList<>();
    List<Located<ModelRewrite>> rewrites = new ArrayList<>();
    int doc = 0;
    int withContent = 0;
    try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(yaml)) {
      while (true) {
        doc++;
        JsonNode node;
        try {
          if (!it.hasNextValue()) {
            break;
          }
          node = it.nextValue();
        } catch (JsonProcessingException | RuntimeException e) {
          String tab = YamlLocations.tabIndented(yaml);
          throw new ConfigException(source, doc, "", tab != null
              ? "not valid YAML: " + tab
              : "not valid YAML" + YamlLocations.brokenAt(e) + ": " + firstLine(what(e)));
        }
        if (node == null || node.isNull() || node.isMissingNode() || (node.isObject() && node.isEmpty())) {
          continue;
        }
        withContent++;
        NodeReader r = new NodeReader(source, doc);
        if (!node.isObject()) {
          throw r.error("", "a document must be a mapping with apiVersion and kind");
        }
        String kind = r.string(node, "kind", "kind");
        String api = r.string(node, "apiVersion", "apiVersion");
        switch (kind) {
          case "InferencePool" -> {
            expectApi(r, api, POOL_API);
            pools.add(new Located<>(Documents.pool(r, node), doc));
          }
          case "LLMRoute" -> {
            expectApi(r, api, ROUTE_API);
            routes.add(new Located<>(Documents.route(r, node), doc));
          }
          case "InferenceObjective" -> {
            if (!LlmdDocuments.APIS.contains(api)) {
              expectApi(r, api, OBJECTIVE_API);
            }
            objectives.add(new Located<>(Documents.inferenceObjective(r, node), doc));
          }
          case "InferenceModelRewrite" -> {
            if (!LlmdDocuments.APIS.contains(api)) {
              throw r.error("apiVersion", "'" + api + "' is not supported, expected " + LLMD_API);
            }
            rewrites.add(new Located<>(LlmdDocuments.modelRewrite(r, node), doc));
          }
          case "TenantBudget" -> {
            expectApi(r, api, ROUTE_API);
            budgets.add(new Located<>(TenantDocuments.budget(r, node), doc));
          }
          case "Pod" -> {
            expectApi(r, api, "v1");
            pods.add(new Located<>(Documents.pod(r, node), doc));
          }
          default -> throw r.error("kind", "unknown kind '" + kind
              + "' (expected InferencePool, LLMRoute, InferenceObjective, InferenceModelRewrite, TenantBudget or Pod)");
        }
      }
    } catch (IOException e) {
      throw new ConfigException(source, doc, "", "not valid YAML: " + firstLine(e.getMessage()));
    }
    if (withContent == 0) {
      // a file caught half-written (truncated, then filled) reads as empty: never a configuration to apply
      throw new ConfigException(source, 0, "", "has no documents (an empty file is not a configuration; replace the "
          + "file atomically: write a new one, then rename it over this one)");
    }
    CrossChecks.check(source, pools, routes, objectives, pods);
    CrossChecks.budgets(source, budgets, routes);
    CrossChecks.rewrites(source, rewrites, pools, routes);
    return new GatewayConfig(values(pools), values(routes), values(objectives), values(pods), values(budgets),
        values(rewrites));
  }

  private static <T> List<T> values(List<Located<T>> located) {
    return located.stream().map(Located::value).toList();
  }

  private static void expectApi(NodeReader r, String actual, String expected) throws ConfigException {
    if (!expected.equals(actual)) {
      throw r.error("apiVersion", "'" + actual + "' is not supported, expected " + expected);
    }
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "unknown error";
    }
    int nl = message.indexOf('\n');
    return nl < 0 ? message : message.substring(0, nl);
  }
}
