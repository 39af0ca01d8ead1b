package io.llmgw.chattemplate.jinja;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Whether a template loops over a message's {@code content} (directly, or through a name set from it), which is how
 * vLLM decides to hand such a template content as a list of parts ("openai" format) rather than one string.
 */
final class ContentLoops {
  private ContentLoops() {
  }

  static boolean find(List<Stmt> body) {
    Set<String> aliases = new HashSet<>();
    collectAliases(body, aliases);
    return loopsOverContent(body, aliases);
  }

  private static boolean isContent(Expr e, Set<String> aliases) {
    return switch (e) {
      case Expr.Attr a -> a.name().equals("content");
      case Expr.Item i -> i.key() instanceof Expr.Literal l && "content".equals(l.value());
      case Expr.Name n -> aliases.contains(n.name());
      case Expr.Filter f -> isContent(f.operand(), aliases);
      default -> false;
    };
  }

  private static void collectAliases(List<Stmt> body, Set<String> aliases) {
    for (Stmt s : body) {
      switch (s) {
        case Stmt.Set set -> {
          if (set.attr() == null && set.targets().size() == 1 && isContent(set.value(), Set.of())) {
            aliases.add(set.targets().get(0));
          }
        }
        case Stmt.If i -> {
          i.bodies().forEach(b -> collectAliases(b, aliases));
          collectAliases(i.otherwise(), aliases);
        }
        case Stmt.For f -> collectAliases(f.body(), aliases);
        case Stmt.Macro m -> collectAliases(m.body(), aliases);
        default -> {
        }
      }
    }
  }

  private static boolean loopsOverContent(List<Stmt> body, Set<String> aliases) {
    for (Stmt s : body) {
      boolean found = switch (s) {
        case Stmt.For f -> isContent(f.iterable(), aliases) || loopsOverContent(f.body(), aliases);
        case Stmt.If i -> i.bodies().stream().anyMatch(b -> loopsOverContent(b, aliases))
            || loopsOverContent(i.otherwise(), aliases);
        case Stmt.Macro m -> loopsOverContent(m.body(), aliases);
        case Stmt.SetBlock b -> loopsOverContent(b.body(), aliases);
        case Stmt.FilterBlock b -> loopsOverContent(b.body(), aliases);
        default -> false;
      };
      if (found) {
        return true;
      }
    }
    return false;
  }
}
