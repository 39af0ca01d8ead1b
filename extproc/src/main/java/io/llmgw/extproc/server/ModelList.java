package io.llmgw.extproc.server;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import io.llmgw.extproc.state.Topology;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.TreeSet;

/**
 * The OpenAI {@code /v1/models} answers: every model name a route declares, or one of them; with tenants, only those
 * the caller's budget may use (another's is "not found", as a request naming it would be).
 */
final class ModelList {
  private ModelList() {}

  /** @param tenant the caller's tenant, whose budget's routes bound what it sees; null with tenants off */
  static String json(Topology topology, String tenant) {
    StringBuilder sb = new StringBuilder("{\"object\":\"list\",\"data\":[");
    boolean first = true;
    for (String model : new TreeSet<>(topology.routesByModel().keySet())) {
      if (!visible(topology, tenant, model)) {
        continue;
      }
      if (!first) {
        sb.append(',');
      }
      first = false;
      model(sb, model);
    }
    return sb.append("]}").toString();
  }

  /** {@code GET /v1/models/{model}}: the model's object, or null when no route declares it. */
  static String one(Topology topology, String tenant, String model) {
    return topology.routesByModel().containsKey(model) && visible(topology, tenant, model)
        ? model(new StringBuilder(), model).toString()
        : null;
  }

  /** A model is the tenant's to see when its budget may use the route serving it (as OpenAI lists what a key may use). */
  private static boolean visible(Topology topology, String tenant, String model) {
    return tenant == null || topology.budget(tenant).mayUse(topology.routesByModel().get(model).route().name());
  }

  /**
   * The model named by a {@code /v1/models/...} path, percent-decoded (SDKs encode a model's slashes), or null when
   * the path names none or does not decode.
   */
  static String modelOf(String path) {
    String rest = path.substring("/v1/models/".length());
    int query = rest.indexOf('?');
    if (query >= 0) {
      rest = rest.substring(0, query);
    }
    try {
      String model = URLDecoder.decode(rest.replace("+", "%2B"), StandardCharsets.UTF_8);
      return model.isEmpty() ? null : model;
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private static StringBuilder model(StringBuilder sb, String model) {
    return sb.append("{\"id\":\"").append(JsonStringEncoder.getInstance().quoteAsString(model))
        .append("\",\"object\":\"model\",\"created\":0,\"owned_by\":\"llmgw\"}");
  }
}
