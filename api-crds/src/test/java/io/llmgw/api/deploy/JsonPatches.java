package io.llmgw.api.deploy;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** The one JSON-patch operation the overlays' HTTPRoute patches use, applied as kustomize applies it. */
final class JsonPatches {
  private JsonPatches() {}

  static void replace(JsonNode doc, String path, JsonNode value) {
    JsonPointer pointer = JsonPointer.compile(path);
    JsonNode parent = doc.at(pointer.head());
    String last = pointer.last().getMatchingProperty();
    if (parent instanceof ArrayNode array) {
      array.set(Integer.parseInt(last), value);
    } else {
      ((ObjectNode) parent).set(last, value);
    }
  }
}
