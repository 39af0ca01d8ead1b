package io.llmgw.extproc.request.prepare;

import io.llmgw.picker.Plugin;
import io.llmgw.picker.PluginId;
import io.llmgw.picker.attributes.AttributeKey;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Orders the producers a configuration needs: every attribute some plugin consumes has exactly one producer, added
 * with its defaults when the configuration lists none ({@link AttributeKey#defaultProducer()}), and producers run
 * after the producers of what they consume. Producers whose attributes nobody consumes are kept (an operator listed
 * them). Otherwise the listed ones run in their order, then the defaults added.
 */
public final class Producers {
  private Producers() {}

  /**
   * @param listed the producers the configuration lists, in its order
   * @param consumers every other plugin of the configuration
   * @param byDefault builds a producer of a type with its default parameters; null for a type it cannot build
   * @return the producers in running order
   * @throws IllegalArgumentException for an attribute consumed and made by nobody (naming consumer and attribute), made
   *     by two producers, or producers that consume each other's attributes in a circle
   */
  public static List<Producer> order(List<Producer> listed, Collection<? extends Plugin> consumers,
      Function<String, Producer> byDefault) {
    Map<AttributeKey<?>, Producer> maker = new LinkedHashMap<>();
    for (Producer p : listed) {
      for (AttributeKey<?> key : p.produces()) {
        Producer other = maker.put(key, p);
        if (other != null) {
          throw new IllegalArgumentException("attribute " + key + " is made by two producers, " + PluginId.of(other)
              + " and " + PluginId.of(p) + "; list one");
        }
      }
    }
    List<Producer> all = new ArrayList<>(listed);
    List<Plugin> needing = new ArrayList<>(consumers);
    needing.addAll(listed);
    for (int i = 0; i < needing.size(); i++) { // grows as default producers join, with their own needs
      Plugin consumer = needing.get(i);
      for (AttributeKey<?> key : byName(consumer.consumes())) {
        if (maker.containsKey(key)) {
          continue;
        }
        Producer made = key.defaultProducer() == null ? null : byDefault.apply(key.defaultProducer());
        if (made == null) {
          throw new IllegalArgumentException("plugin " + PluginId.of(consumer) + " consumes attribute " + key
              + ", which no producer makes" + (key.defaultProducer() == null ? "; list a producer of it"
                  : "; its producer " + key.defaultProducer() + " is not known"));
        }
        made.produces().forEach(k -> maker.putIfAbsent(k, made));
        all.add(made);
        needing.add(made);
      }
    }
    return sorted(all, maker);
  }

  /** Declared as sets: read in a fixed order, so the running order is the same on every start. */
  private static List<AttributeKey<?>> byName(Set<AttributeKey<?>> keys) {
    List<AttributeKey<?>> out = new ArrayList<>(keys);
    out.sort(Comparator.comparing(AttributeKey::name));
    return out;
  }

  /** Producers after the producers of what they consume; otherwise in the order given. */
  private static List<Producer> sorted(List<Producer> all, Map<AttributeKey<?>, Producer> maker) {
    List<Producer> out = new ArrayList<>(all.size());
    Set<Producer> done = new LinkedHashSet<>();
    Map<Producer, Boolean> visiting = new HashMap<>();
    for (Producer p : all) {
      visit(p, maker, done, visiting, out);
    }
    return out;
  }

  private static void visit(Producer p, Map<AttributeKey<?>, Producer> maker, Set<Producer> done,
      Map<Producer, Boolean> visiting, List<Producer> out) {
    if (done.contains(p)) {
      return;
    }
    if (visiting.put(p, Boolean.TRUE) != null) {
      throw new IllegalArgumentException("producer " + PluginId.of(p) + " consumes, through others, what it makes");
    }
    for (AttributeKey<?> key : byName(p.consumes())) {
      Producer before = maker.get(key);
      if (before != null && before != p) {
        visit(before, maker, done, visiting, out);
      }
    }
    visiting.remove(p);
    done.add(p);
    out.add(p);
  }
}
