package io.llmgw.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Loads file mode: one multi-document YAML with the same kinds a cluster holds (InferencePool, LLMRoute, Pod). Either the
 * whole file is accepted or a {@link ConfigException} names the first problem, so a bad edit never half-applies.
 */
public final class ConfigFileLoader {
  public static final String POOL_API = "inference.networking.k8s.io/v1";
  public static final String ROUTE_API = "inference.x-k8s.io/v1alpha1";

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private ConfigFileLoader() {}

  public static GatewayConfig load(Path file) throws ConfigException {
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException e) {
      throw new ConfigException(file.toString(), 0, "", "cannot read: " + e.getMessage());
    }
    return parse(file.toString(), text);
  }

  public static GatewayConfig parse(String source, String yaml) throws ConfigException {
    List<InferencePool> pools = new ArrayList<>();
    List<LLMRoute> routes = new ArrayList<>();
    List<PodInfo> pods = new ArrayList<>();
    Map<String, Integer> routeDocs = new HashMap<>();
    int doc = 0;
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
          throw new ConfigException(source, doc, "", "not valid YAML: " + firstLine(e.getMessage()));
        }
        if (node == null || node.isNull() || node.isMissingNode() || (node.isObject() && node.isEmpty())) {
          continue;
        }
        NodeReader r = new NodeReader(source, doc);
        if (!node.isObject()) {
          throw r.error("", "a document must be a mapping with apiVersion and kind");
        }
        String kind = r.string(node, "kind", "kind");
        String api = r.string(node, "apiVersion", "apiVersion");
        switch (kind) {
          case "InferencePool" -> {
            expectApi(r, api, POOL_API);
            pools.add(Documents.pool(r, node));
          }
          case "LLMRoute" -> {
            expectApi(r, api, ROUTE_API);
            LLMRoute route = Documents.route(r, node);
            routes.add(route);
            routeDocs.put(route.namespace() + "/" + route.name(), doc);
          }
          case "Pod" -> {
            expectApi(r, api, "v1");
            pods.add(Documents.pod(r, node));
          }
          default -> throw r.error("kind", "unknown kind '" + kind + "' (expected InferencePool, LLMRoute or Pod)");
        }
      }
    } catch (IOException e) {
      throw new ConfigException(source, doc, "", "not valid YAML: " + firstLine(e.getMessage()));
    }
    CrossChecks.check(source, pools, routes, pods, routeDocs);
    return new GatewayConfig(pools, routes, pods);
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
