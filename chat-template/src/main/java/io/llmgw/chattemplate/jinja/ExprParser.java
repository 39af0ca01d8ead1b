package io.llmgw.chattemplate.jinja;

import io.llmgw.chattemplate.jinja.Token.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Jinja's expressions, lowest precedence first; filters and tests bind tightest, as in Jinja. */
abstract class ExprParser extends TokenCursor {
  private static final Set<String> COMPARISONS = Set.of("==", "!=", "<", ">", "<=", ">=");

  ExprParser(List<Token> tokens) {
    super(tokens);
  }

  Expr expression() {
    Expr value = or();
    while (peek().isName("if")) {
      next();
      Expr test = or();
      Expr otherwise = null;
      if (peek().isName("else")) {
        next();
        otherwise = expression();
      }
      value = new Expr.Conditional(value, test, otherwise);
    }
    return value;
  }

  Expr or() {
    Expr left = and();
    while (peek().isName("or")) {
      next();
      left = new Expr.Binary("or", left, and());
    }
    return left;
  }

  private Expr and() {
    Expr left = not();
    while (peek().isName("and")) {
      next();
      left = new Expr.Binary("and", left, not());
    }
    return left;
  }

  private Expr not() {
    if (peek().isName("not")) {
      next();
      return new Expr.Unary("not", not());
    }
    return compare();
  }

  private Expr compare() {
    Expr left = math1();
    Expr chain = null;
    while (true) {
      Token t = peek();
      String op;
      if (t.kind() == Kind.OP && COMPARISONS.contains(t.text())) {
        op = next().text();
      } else if (t.isName("in")) {
        next();
        op = "in";
      } else if (t.isName("not") && lookahead(1).isName("in")) {
        skip(2);
        op = "not in";
      } else {
        return chain == null ? left : chain;
      }
      Expr right = math1();
      Expr link = new Expr.Binary(op, left, right);
      chain = chain == null ? link : new Expr.Binary("and", chain, link);
      left = right;
    }
  }

  private Expr math1() {
    Expr left = concat();
    while (peek().isOp("+") || peek().isOp("-")) {
      left = new Expr.Binary(next().text(), left, concat());
    }
    return left;
  }

  private Expr concat() {
    Expr left = math2();
    while (peek().isOp("~")) {
      next();
      left = new Expr.Binary("~", left, math2());
    }
    return left;
  }

  private Expr math2() {
    Expr left = pow();
    while (peek().isOp("*") || peek().isOp("/") || peek().isOp("//") || peek().isOp("%")) {
      left = new Expr.Binary(next().text(), left, pow());
    }
    return left;
  }

  private Expr pow() {
    Expr left = unary(true);
    while (peek().isOp("**")) {
      next();
      left = new Expr.Binary("**", left, unary(true));
    }
    return left;
  }

  private Expr unary(boolean withFilters) {
    if (++depth > MAX_DEPTH) {
      throw error("an expression nested too deep");
    }
    try {
      Expr e;
      if (peek().isOp("-") || peek().isOp("+")) {
        e = new Expr.Unary(next().text(), unary(false));
      } else {
        e = PrimaryParser.primary(this);
      }
      e = postfix(e);
      return withFilters ? filters(e) : e;
    } finally {
      depth--;
    }
  }

  Expr postfix(Expr e) {
    while (true) {
      if (accept(".")) {
        Token name = next();
        if (name.kind() == Kind.INT) {
          e = new Expr.Item(e, new Expr.Literal(Long.parseLong(name.text())));
        } else if (name.kind() == Kind.NAME) {
          e = new Expr.Attr(e, name.text());
        } else {
          throw error("expected an attribute name after '.'");
        }
      } else if (peek().isOp("[")) {
        e = PrimaryParser.subscript(this, e);
      } else if (peek().isOp("(")) {
        e = new Expr.Call(e, args());
      } else {
        return e;
      }
    }
  }

  private Expr filters(Expr e) {
    while (true) {
      if (accept("|")) {
        String name = dottedName();
        e = new Expr.Filter(e, name, peek().isOp("(") ? args() : Expr.Args.NONE);
      } else if (peek().isName("is")) {
        next();
        boolean negated = peek().isName("not");
        if (negated) {
          next();
        }
        String name = dottedName();
        Expr.Args args = Expr.Args.NONE;
        if (peek().isOp("(")) {
          args = args();
        } else if (startsTestArgument(peek())) {
          args = new Expr.Args(List.of(postfix(PrimaryParser.primary(this))), List.of(), List.of());
        }
        e = new Expr.Test(e, name, args, negated);
      } else if (peek().isOp("(")) {
        e = new Expr.Call(e, args());
      } else {
        return e;
      }
    }
  }

  private static boolean startsTestArgument(Token t) {
    return switch (t.kind()) {
      case STRING, INT, FLOAT -> true;
      case NAME -> !Set.of("else", "or", "and", "if", "in", "not", "is").contains(t.text());
      case OP -> t.text().equals("[") || t.text().equals("{");
      default -> false;
    };
  }

  private String dottedName() {
    StringBuilder name = new StringBuilder(expect(Kind.NAME, "a name").text());
    while (peek().isOp(".") && lookahead(1).kind() == Kind.NAME) {
      next();
      name.append('.').append(next().text());
    }
    return name.toString();
  }

  Expr.Args args() {
    expectOp("(");
    List<Expr> positional = new ArrayList<>();
    List<String> names = new ArrayList<>();
    List<Expr> named = new ArrayList<>();
    while (!accept(")")) {
      if (peek().kind() == Kind.NAME && lookahead(1).isOp("=")) {
        names.add(next().text());
        next();
        named.add(expression());
      } else {
        if (!names.isEmpty()) {
          throw error("a positional argument follows a named one");
        }
        positional.add(expression());
      }
      if (!peek().isOp(")")) {
        expectOp(",");
      }
    }
    return new Expr.Args(positional, names, named);
  }
}
