package io.llmgw.chattemplate.jinja;

import io.llmgw.chattemplate.jinja.Token.Kind;
import java.util.ArrayList;
import java.util.List;

/** The operands of expressions: literals, names, lists, dicts, tuples and subscripts. */
final class PrimaryParser {
  private PrimaryParser() {
  }

  static Expr primary(ExprParser p) {
    Token t = p.next();
    switch (t.kind()) {
      case NAME -> {
        return switch (t.text()) {
          case "true", "True" -> new Expr.Literal(Boolean.TRUE);
          case "false", "False" -> new Expr.Literal(Boolean.FALSE);
          case "none", "None" -> new Expr.Literal(null);
          default -> new Expr.Name(t.text());
        };
      }
      case STRING -> {
        StringBuilder s = new StringBuilder(t.text());
        while (p.peek().kind() == Kind.STRING) { // adjacent literals join, as in Python
          s.append(p.next().text());
        }
        return new Expr.Literal(s.toString());
      }
      case INT -> {
        try {
          return new Expr.Literal(Long.parseLong(t.text()));
        } catch (NumberFormatException e) {
          throw p.error("an integer too large: " + t.text());
        }
      }
      case FLOAT -> {
        return new Expr.Literal(Double.parseDouble(t.text()));
      }
      case OP -> {
        switch (t.text()) {
          case "(" -> {
            return parenthesised(p);
          }
          case "[" -> {
            List<Expr> items = new ArrayList<>();
            while (!p.accept("]")) {
              items.add(p.expression());
              if (!p.peek().isOp("]")) {
                p.expectOp(",");
              }
            }
            return new Expr.ListLiteral(items, false);
          }
          case "{" -> {
            List<Expr> keys = new ArrayList<>();
            List<Expr> values = new ArrayList<>();
            while (!p.accept("}")) {
              keys.add(p.expression());
              p.expectOp(":");
              values.add(p.expression());
              if (!p.peek().isOp("}")) {
                p.expectOp(",");
              }
            }
            return new Expr.DictLiteral(keys, values);
          }
          default -> throw p.error("unexpected '" + t.text() + "'");
        }
      }
      default -> throw p.error("unexpected '" + t.text() + "'");
    }
  }

  private static Expr parenthesised(ExprParser p) {
    if (p.accept(")")) {
      return new Expr.ListLiteral(List.of(), true);
    }
    Expr first = p.expression();
    if (p.accept(")")) {
      return first;
    }
    List<Expr> items = new ArrayList<>(List.of(first));
    while (p.accept(",")) {
      if (p.peek().isOp(")")) {
        break;
      }
      items.add(p.expression());
    }
    p.expectOp(")");
    return new Expr.ListLiteral(items, true);
  }

  /** {@code [key]} or {@code [start:stop:step]} after {@code target}. */
  static Expr subscript(ExprParser p, Expr target) {
    p.expectOp("[");
    Expr start = p.peek().isOp(":") ? null : p.expression();
    if (p.accept("]")) {
      return new Expr.Item(target, start);
    }
    p.expectOp(":");
    Expr stop = p.peek().isOp(":") || p.peek().isOp("]") ? null : p.expression();
    Expr step = null;
    if (p.accept(":")) {
      step = p.peek().isOp("]") ? null : p.expression();
    }
    p.expectOp("]");
    return new Expr.Slice(target, start, stop, step);
  }
}
