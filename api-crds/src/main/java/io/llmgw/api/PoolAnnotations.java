package io.llmgw.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;

/** The capacity planner's annotations on an InferencePool, each refused with its name when it cannot be meant. */
final class PoolAnnotations {
  private PoolAnnotations() {}

  static PoolCapacity capacity(NodeReader r, JsonNode meta) throws ConfigException {
    JsonNode a = meta.path("annotations");
    double cost = Double.NaN;
    String costText = text(a, PoolCapacity.COST_PER_POD_HOUR);
    if (costText != null) {
      try {
        cost = Double.parseDouble(costText);
      } catch (NumberFormatException e) {
        cost = Double.NaN;
      }
      if (!(cost >= 0 && cost <= PoolCapacity.COST_LIMIT)) {
        throw r.error(path(PoolCapacity.COST_PER_POD_HOUR),
            "must be a price from 0 to " + (long) PoolCapacity.COST_LIMIT
                + " per pod-hour, got " + ClientText.quote(costText));
      }
    }
    Duration load = null;
    String loadText = text(a, PoolCapacity.LOAD_TIME);
    if (loadText != null) {
      load = Durations.parse(loadText);
      if (load == null || load.isZero() || load.compareTo(PoolCapacity.LOAD_TIME_LIMIT) > 0) {
        throw r.error(path(PoolCapacity.LOAD_TIME), "must be a duration above 0s and at most 2h (such as 90s or "
            + "5m), got " + ClientText.quote(loadText));
      }
    }
    int min = replicas(r, a, PoolCapacity.MIN_REPLICAS, 1);
    int max = replicas(r, a, PoolCapacity.MAX_REPLICAS, PoolCapacity.REPLICAS_LIMIT);
    if (max < Math.max(1, min)) {
      throw r.error(path(PoolCapacity.MAX_REPLICAS), "is " + max + ", below " + PoolCapacity.MIN_REPLICAS + " ("
          + min + ") or 1");
    }
    return new PoolCapacity(cost, load, min, max, scaleTarget(r, a), maxBatch(r, a));
  }

  private static String scaleTarget(NodeReader r, JsonNode annotations) throws ConfigException {
    String t = text(annotations, PoolCapacity.SCALE_TARGET);
    if (t == null) {
      return null;
    }
    int slash = t.indexOf('/');
    String kind = slash < 0 ? "" : t.substring(0, slash);
    if (!kind.equals("Deployment") && !kind.equals("StatefulSet")) {
      throw r.error(path(PoolCapacity.SCALE_TARGET), "must be Deployment/NAME or StatefulSet/NAME, got "
          + ClientText.quote(t));
    }
    r.name(t.substring(slash + 1), path(PoolCapacity.SCALE_TARGET));
    return t;
  }

  private static int maxBatch(NodeReader r, JsonNode annotations) throws ConfigException {
    String t = text(annotations, PoolCapacity.MAX_BATCH);
    if (t == null) {
      return 0;
    }
    try {
      int n = Integer.parseInt(t);
      if (n >= 1 && n <= PoolCapacity.MAX_BATCH_LIMIT) {
        return n;
      }
    } catch (NumberFormatException e) {
      // named below
    }
    throw r.error(path(PoolCapacity.MAX_BATCH), "must be the pods' --max-num-seqs, a whole number from 1 to "
        + PoolCapacity.MAX_BATCH_LIMIT + ", got " + ClientText.quote(t));
  }

  private static int replicas(NodeReader r, JsonNode annotations, String name, int dflt) throws ConfigException {
    String t = text(annotations, name);
    if (t == null) {
      return dflt;
    }
    try {
      int n = Integer.parseInt(t);
      if (n >= 0 && n <= PoolCapacity.REPLICAS_LIMIT) {
        return n;
      }
    } catch (NumberFormatException e) {
      // named below
    }
    throw r.error(path(name), "must be a whole number from 0 to " + PoolCapacity.REPLICAS_LIMIT + ", got "
        + ClientText.quote(t));
  }

  private static String text(JsonNode annotations, String name) {
    JsonNode v = annotations.path(name);
    return v.isMissingNode() || v.isNull() ? null : v.asText().trim();
  }

  private static String path(String name) {
    return "metadata.annotations[" + name + "]";
  }
}
