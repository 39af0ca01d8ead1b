package io.llmgw.chattemplate.jinja;

import java.util.HashMap;
import java.util.Map;

/** Variables of one Jinja scope: the template's, a loop's or a macro call's, each seeing its parents'. */
final class Scope {
  private final Map<String, Object> vars = new HashMap<>();
  private final Scope parent;

  Scope(Scope parent) {
    this.parent = parent;
  }

  boolean has(String name) {
    return vars.containsKey(name) || (parent != null && parent.has(name));
  }

  Object get(String name) {
    for (Scope s = this; s != null; s = s.parent) {
      if (s.vars.containsKey(name)) {
        return s.vars.get(name);
      }
    }
    return new Undefined(name);
  }

  void set(String name, Object value) {
    vars.put(name, value);
  }
}
