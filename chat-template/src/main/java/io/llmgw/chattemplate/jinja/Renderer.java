package io.llmgw.chattemplate.jinja;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Runs parsed statements into text, bounded in output, in steps and in macro depth. */
final class Renderer {
  private enum Flow {
    NEXT, BREAK, CONTINUE
  }

  private static final int MAX_MACRO_DEPTH = 64;

  private final int maxChars;
  private final long maxSteps;
  private StringBuilder out = new StringBuilder();
  private long steps;
  private int macroDepth;

  Renderer(int maxChars, long maxSteps) {
    this.maxChars = maxChars;
    this.maxSteps = maxSteps;
  }

  String render(List<Stmt> body, Scope scope) {
    run(body, scope);
    return out.toString();
  }

  private void tick() {
    if (++steps > maxSteps) {
      throw new TemplateException("rendering took more than " + maxSteps + " steps");
    }
  }

  private void write(String s) {
    if (out.length() + s.length() > maxChars) {
      throw new TemplateException("the rendered prompt is longer than " + maxChars + " characters");
    }
    out.append(s);
  }

  private Flow run(List<Stmt> body, Scope scope) {
    for (Stmt s : body) {
      Flow f = exec(s, scope);
      if (f != Flow.NEXT) {
        return f;
      }
    }
    return Flow.NEXT;
  }

  private Flow exec(Stmt stmt, Scope scope) {
    tick();
    switch (stmt) {
      case Stmt.Text t -> write(t.text());
      case Stmt.Output o -> write(Py.str(eval(o.value(), scope)));
      case Stmt.If i -> {
        for (int n = 0; n < i.tests().size(); n++) {
          if (Py.truthy(eval(i.tests().get(n), scope))) {
            return run(i.bodies().get(n), scope);
          }
        }
        return run(i.otherwise(), scope);
      }
      case Stmt.For f -> loop(f, scope);
      case Stmt.Set s -> assign(s, scope);
      case Stmt.SetBlock s -> scope.set(s.target(), capture(s.body(), scope));
      case Stmt.Macro m -> scope.set(m.name(), macro(m, scope));
      case Stmt.FilterBlock fb -> {
        Call call = arguments(fb.args(), scope);
        write(Py.str(Filters.apply(fb.name(), capture(fb.body(), scope), call.args, call.kwargs)));
      }
      case Stmt.Break b -> {
        return Flow.BREAK;
      }
      case Stmt.Continue c -> {
        return Flow.CONTINUE;
      }
    }
    return Flow.NEXT;
  }

  private String capture(List<Stmt> body, Scope scope) {
    StringBuilder saved = out;
    out = new StringBuilder();
    try {
      run(body, scope);
      return out.toString();
    } finally {
      out = saved;
    }
  }

  private void loop(Stmt.For f, Scope outer) {
    List<Object> items = Py.iterate(eval(f.iterable(), outer));
    Scope scope = new Scope(outer);
    if (f.filter() != null) {
      List<Object> kept = new ArrayList<>();
      for (Object item : items) {
        bind(f.targets(), item, scope);
        if (Py.truthy(eval(f.filter(), scope))) {
          kept.add(item);
        }
      }
      items = kept;
    }
    if (items.isEmpty()) {
      run(f.otherwise(), outer);
      return;
    }
    Loop loop = new Loop(items);
    scope.set("loop", loop);
    for (int i = 0; i < items.size(); i++) {
      tick();
      loop.index0 = i;
      bind(f.targets(), items.get(i), scope);
      if (run(f.body(), scope) == Flow.BREAK) {
        break;
      }
    }
  }

  private static void bind(List<String> targets, Object value, Scope scope) {
    if (targets.size() == 1) {
      scope.set(targets.get(0), value);
      return;
    }
    List<Object> parts = Py.iterate(value);
    if (parts.size() != targets.size()) {
      throw new TemplateException("cannot unpack " + parts.size() + " values into " + targets.size() + " names");
    }
    for (int i = 0; i < targets.size(); i++) {
      scope.set(targets.get(i), parts.get(i));
    }
  }

  private void assign(Stmt.Set s, Scope scope) {
    Object value = eval(s.value(), scope);
    if (s.attr() == null) {
      bind(s.targets(), value, scope);
      return;
    }
    Object target = scope.get(s.targets().get(0));
    if (!(target instanceof Namespace ns)) {
      throw new TemplateException("cannot set an attribute of a " + Py.typeName(target) + " (only a namespace)");
    }
    ns.put(s.attr(), value);
  }

  private Fn macro(Stmt.Macro m, Scope defined) {
    return (args, kwargs) -> {
      if (++macroDepth > MAX_MACRO_DEPTH) {
        throw new TemplateException("macros nested deeper than " + MAX_MACRO_DEPTH);
      }
      try {
        Scope scope = new Scope(defined);
        for (int i = 0; i < m.params().size(); i++) {
          String param = m.params().get(i);
          Object value = i < args.size() ? args.get(i)
              : kwargs.containsKey(param) ? kwargs.get(param)
              : m.defaults().get(i) != null ? eval(m.defaults().get(i), scope)
              : new Undefined(param);
          scope.set(param, value);
        }
        return capture(m.body(), scope);
      } finally {
        macroDepth--;
      }
    };
  }

  private record Call(List<Object> args, Map<String, Object> kwargs) {
  }

  private Call arguments(Expr.Args a, Scope scope) {
    List<Object> args = new ArrayList<>(a.positional().size());
    for (Expr e : a.positional()) {
      args.add(eval(e, scope));
    }
    Map<String, Object> kwargs = a.names().isEmpty() ? Map.of() : new HashMap<>();
    for (int i = 0; i < a.names().size(); i++) {
      kwargs.put(a.names().get(i), eval(a.named().get(i), scope));
    }
    return new Call(args, kwargs);
  }

  Object eval(Expr expr, Scope scope) {
    return switch (expr) {
      case Expr.Literal l -> l.value();
      case Expr.Name n -> {
        if (scope.has(n.name())) {
          yield scope.get(n.name());
        }
        Object global = Globals.lookup(n.name());
        yield global != null ? global : new Undefined(n.name());
      }
      case Expr.Attr a -> Attributes.attribute(eval(a.target(), scope), a.name());
      case Expr.Item i -> Attributes.item(eval(i.target(), scope), eval(i.key(), scope));
      case Expr.Slice s -> Attributes.slice(eval(s.target(), scope), s.start() == null ? null : eval(s.start(), scope),
          s.stop() == null ? null : eval(s.stop(), scope), s.step() == null ? null : eval(s.step(), scope));
      case Expr.Call c -> {
        Object callee = eval(c.callee(), scope);
        if (callee instanceof Undefined u) {
          throw u.error();
        }
        if (!(callee instanceof Fn fn)) {
          throw new TemplateException("a " + Py.typeName(callee) + " is not callable");
        }
        Call call = arguments(c.args(), scope);
        yield fn.call(call.args, call.kwargs);
      }
      case Expr.Filter f -> {
        Call call = arguments(f.args(), scope);
        yield Filters.apply(f.name(), eval(f.operand(), scope), call.args, call.kwargs);
      }
      case Expr.Test t -> {
        Call call = arguments(t.args(), scope);
        yield Tests.test(t.name(), eval(t.operand(), scope), call.args) != t.negated();
      }
      case Expr.Unary u -> switch (u.op()) {
        case "not" -> !Py.truthy(eval(u.operand(), scope));
        case "-" -> Operators.negate(eval(u.operand(), scope));
        default -> eval(u.operand(), scope);
      };
      case Expr.Binary b -> binary(b, scope);
      case Expr.Conditional c -> Py.truthy(eval(c.test(), scope))
          ? eval(c.then(), scope)
          : c.otherwise() == null ? new Undefined("else") : eval(c.otherwise(), scope);
      case Expr.ListLiteral l -> {
        List<Object> items = new ArrayList<>(l.items().size());
        for (Expr e : l.items()) {
          items.add(eval(e, scope));
        }
        yield items;
      }
      case Expr.DictLiteral d -> {
        Map<Object, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < d.keys().size(); i++) {
          map.put(eval(d.keys().get(i), scope), eval(d.values().get(i), scope));
        }
        yield map;
      }
    };
  }

  private Object binary(Expr.Binary b, Scope scope) {
    Object left = eval(b.left(), scope);
    return switch (b.op()) {
      case "and" -> Py.truthy(left) ? eval(b.right(), scope) : left;
      case "or" -> Py.truthy(left) ? left : eval(b.right(), scope);
      case "==" -> Py.eq(left, eval(b.right(), scope));
      case "!=" -> !Py.eq(left, eval(b.right(), scope));
      case "<" -> Py.compare(left, eval(b.right(), scope), "<") < 0;
      case "<=" -> Py.compare(left, eval(b.right(), scope), "<=") <= 0;
      case ">" -> Py.compare(left, eval(b.right(), scope), ">") > 0;
      case ">=" -> Py.compare(left, eval(b.right(), scope), ">=") >= 0;
      case "in" -> Py.contains(eval(b.right(), scope), left);
      case "not in" -> !Py.contains(eval(b.right(), scope), left);
      default -> Operators.binary(b.op(), left, eval(b.right(), scope));
    };
  }
}
