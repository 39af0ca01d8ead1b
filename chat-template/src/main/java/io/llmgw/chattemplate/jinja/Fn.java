package io.llmgw.chattemplate.jinja;

import java.util.List;
import java.util.Map;

/** Something a template can call: a global function, a macro, or a method bound to its value. */
@FunctionalInterface
interface Fn {
  Object call(List<Object> args, Map<String, Object> kwargs);
}
