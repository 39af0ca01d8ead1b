package io.llmgw.api.deploy;

import io.fabric8.kubernetes.api.model.KubernetesResource;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Fields a typed fabric8 object received that its Kubernetes type does not declare (fabric8 keeps them aside instead
 * of failing) — what strict server-side validation would reject, e.g. a misspelt {@code readinesProbe}.
 */
final class UnknownFields {
  private UnknownFields() {}

  static List<String> in(Object root) {
    List<String> out = new ArrayList<>();
    walk(root, "", out, new IdentityHashMap<>());
    return out;
  }

  private static void walk(Object o, String path, List<String> out, Map<Object, Boolean> seen) {
    if (o == null || seen.put(o, true) != null) {
      return;
    }
    if (o instanceof Collection<?> c) {
      int i = 0;
      for (Object item : c) {
        walk(item, path + "[" + i++ + "]", out, seen);
      }
      return;
    }
    if (!(o instanceof KubernetesResource)) {
      return;
    }
    for (Method m : o.getClass().getMethods()) {
      if (m.getParameterCount() != 0 || !m.getName().startsWith("get") || m.getDeclaringClass() == Object.class) {
        continue;
      }
      Object value;
      try {
        value = m.invoke(o);
      } catch (ReflectiveOperationException e) {
        continue;
      }
      if (m.getName().equals("getAdditionalProperties") && value instanceof Map<?, ?> extra) {
        extra.keySet().forEach(k -> out.add(path + "." + k));
      } else {
        walk(value, path + "." + m.getName().substring(3), out, seen);
      }
    }
  }
}
