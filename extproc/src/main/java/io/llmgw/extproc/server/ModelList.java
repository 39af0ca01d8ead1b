package io.llmgw.extproc.server;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import io.llmgw.extproc.state.Topology;
import java.util.TreeSet;

/** The OpenAI {@code /v1/models} answer: every model name a route declares. */
final class ModelList {
  private ModelList() {}

  static String json(Topology topology) {
    StringBuilder sb = new StringBuilder("{\"object\":\"list\",\"data\":[");
    boolean first = true;
    for (String model : new TreeSet<>(topology.routesByModel().keySet())) {
      if (!first) {
        sb.append(',');
      }
      first = false;
      sb.append("{\"id\":\"").append(JsonStringEncoder.getInstance().quoteAsString(model))
          .append("\",\"object\":\"model\",\"created\":0,\"owned_by\":\"llmgw\"}");
    }
    return sb.append("]}").toString();
  }
}
