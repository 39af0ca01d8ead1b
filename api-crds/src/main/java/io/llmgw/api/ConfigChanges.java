package io.llmgw.api;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * What an edit changed, kind by kind: which pools, routes, objectives, tenants' budgets and pods were added, removed or changed, by
 * name. What an operator wants from a reload's log line, where counts alone ("1 pools, 4 routes") say nothing.
 */
public record ConfigChanges(List<Kind> kinds) {
  /** How many names of one kind a description lists. */
  static final int NAMED = 12;

  /** One kind's changes, each list sorted as the file lists them. */
  public record Kind(String name, List<String> added, List<String> removed, List<String> changed) {
    boolean isEmpty() {
      return added.isEmpty() && removed.isEmpty() && changed.isEmpty();
    }

    /** At most {@link #NAMED} names, then how many more: a cluster's first list adds hundreds of pods. */
    String describe() {
      List<String> parts = new ArrayList<>();
      added.forEach(n -> parts.add("+" + n));
      removed.forEach(n -> parts.add("-" + n));
      changed.forEach(n -> parts.add("~" + n));
      int more = parts.size() - NAMED;
      return name + " " + String.join(" ", more > 0 ? parts.subList(0, NAMED) : parts)
          + (more > 0 ? " and " + more + " more" : "");
    }
  }

  public static ConfigChanges between(GatewayConfig before, GatewayConfig after) {
    return new ConfigChanges(List.of(
        kind("pools", before.pools(), after.pools(), p -> p.key().toString()),
        kind("routes", before.routes(), after.routes(), r -> r.key().toString()),
        kind("objectives", before.objectives(), after.objectives(), o -> o.key().toString()),
        kind("budgets", before.budgets(), after.budgets(), TenantBudget::name),
        kind("rewrites", before.rewrites(), after.rewrites(), w -> w.namespace() + "/" + w.name()),
        kind("pods", before.pods(), after.pods(), p -> p.namespace() + "/" + p.name())));
  }

  private static <T> Kind kind(String name, List<T> before, List<T> after, Function<T, String> key) {
    Map<String, T> old = new LinkedHashMap<>();
    before.forEach(t -> old.put(key.apply(t), t));
    List<String> added = new ArrayList<>();
    List<String> changed = new ArrayList<>();
    for (T t : after) {
      String k = key.apply(t);
      T was = old.remove(k);
      if (was == null) {
        added.add(k);
      } else if (!Objects.equals(was, t)) {
        changed.add(k);
      }
    }
    return new Kind(name, added, List.copyOf(old.keySet()), changed);
  }

  public boolean isEmpty() {
    return kinds.stream().allMatch(Kind::isEmpty);
  }

  /** {@code routes +default/chat-2 -default/sql ~default/base; pods +default/pod-5}, or {@code no changes}. */
  public String describe() {
    List<String> out = new ArrayList<>();
    for (Kind k : kinds) {
      if (!k.isEmpty()) {
        out.add(k.describe());
      }
    }
    return out.isEmpty() ? "no changes" : String.join("; ", out);
  }
}
