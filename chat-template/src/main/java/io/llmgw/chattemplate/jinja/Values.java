package io.llmgw.chattemplate.jinja;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Java values as the template sees them: every integer a {@link Long}, every other number a {@link Double}. */
final class Values {
  private Values() {
  }

  static Object fromJava(Object v) {
    return switch (v) {
      case null -> null;
      case Integer i -> i.longValue();
      case Short s -> s.longValue();
      case BigInteger b -> b.bitLength() < 64 ? b.longValue() : b.doubleValue();
      case Float f -> f.doubleValue();
      case BigDecimal d -> d.doubleValue();
      case Map<?, ?> m -> {
        Map<Object, Object> copy = new LinkedHashMap<>();
        m.forEach((k, x) -> copy.put(fromJava(k), fromJava(x)));
        yield copy;
      }
      case List<?> l -> {
        List<Object> copy = new ArrayList<>(l.size());
        l.forEach(x -> copy.add(fromJava(x)));
        yield copy;
      }
      default -> v;
    };
  }
}
