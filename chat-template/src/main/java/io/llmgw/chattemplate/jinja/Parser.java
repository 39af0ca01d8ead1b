package io.llmgw.chattemplate.jinja;

import io.llmgw.chattemplate.jinja.Token.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Parses tokens into statements, with Jinja's grammar and operator precedence (filters and tests bind tightest). */
final class Parser {
  private static final Set<String> COMPARISONS = Set.of("==", "!=", "<", ">", "<=", ">=");
  private static final int MAX_DEPTH = 200;

  private final List<Token> tokens;
  private int at;
  private int depth;

  private Parser(List<Token> tokens) {
    this.tokens = tokens;
  }

  static List<Stmt> parse(String source) {
    Parser p = new Parser(Lexer.tokenize(source));
    List<Stmt> body = new ArrayList<>();
    String end = p.body(body, Set.of());
    if (end != null) {
      throw p.error("unexpected '" + end + "'");
    }
    return body;
  }

  /** Parses statements into {@code out} up to one of {@code ends} (its name is returned, the tag left open) or EOF. */
  private String body(List<Stmt> out, Set<String> ends) {
    if (++depth > MAX_DEPTH) {
      throw error("blocks nested too deep");
    }
    try {
      while (true) {
        Token t = next();
        switch (t.kind()) {
          case EOF -> {
            if (!ends.isEmpty()) {
              throw error("missing " + String.join(" or ", ends));
            }
            at--;
            return null;
          }
          case TEXT -> out.add(new Stmt.Text(t.text()));
          case EXPR_OPEN -> {
            out.add(new Stmt.Output(expression()));
            expect(Kind.EXPR_CLOSE, "}}");
          }
          case STMT_OPEN -> {
            Token keyword = expect(Kind.NAME, "a statement");
            if (ends.contains(keyword.text())) {
              return keyword.text();
            }
            statement(keyword.text(), out);
          }
          default -> throw error("unexpected '" + t.text() + "'");
        }
      }
    } finally {
      depth--;
    }
  }

  private void statement(String keyword, List<Stmt> out) {
    switch (keyword) {
      case "if" -> out.add(ifStatement());
      case "for" -> out.add(forStatement());
      case "set" -> out.add(setStatement());
      case "macro" -> out.add(macro());
      case "filter" -> {
        String name = expect(Kind.NAME, "a filter name").text();
        Expr.Args args = peek().isOp("(") ? args() : Expr.Args.NONE;
        close();
        List<Stmt> body = new ArrayList<>();
        body(body, Set.of("endfilter"));
        close();
        out.add(new Stmt.FilterBlock(name, args, body));
      }
      case "break", "continue" -> {
        close();
        out.add(keyword.equals("break") ? new Stmt.Break() : new Stmt.Continue());
      }
      case "generation" -> { // Hugging Face's marker of assistant text: it renders its body unchanged
        close();
        body(out, Set.of("endgeneration"));
        close();
      }
      default -> throw error("unknown tag '" + keyword + "'");
    }
  }

  private Stmt ifStatement() {
    List<Expr> tests = new ArrayList<>();
    List<List<Stmt>> bodies = new ArrayList<>();
    List<Stmt> otherwise = new ArrayList<>();
    tests.add(expression());
    close();
    while (true) {
      List<Stmt> body = new ArrayList<>();
      String end = body(body, Set.of("elif", "else", "endif"));
      bodies.add(body);
      if (end.equals("elif")) {
        tests.add(expression());
        close();
      } else if (end.equals("else")) {
        close();
        body(otherwise, Set.of("endif"));
        close();
        return new Stmt.If(tests, bodies, otherwise);
      } else {
        close();
        return new Stmt.If(tests, bodies, otherwise);
      }
    }
  }

  private Stmt forStatement() {
    List<String> targets = names();
    expectName("in");
    Expr iterable = or();
    if (peek().isOp(",")) {
      List<Expr> items = new ArrayList<>(List.of(iterable));
      while (accept(",")) {
        items.add(or());
      }
      iterable = new Expr.ListLiteral(items, true);
    }
    Expr filter = null;
    if (peek().isName("if")) {
      next();
      filter = expression();
    }
    close();
    List<Stmt> body = new ArrayList<>();
    List<Stmt> otherwise = new ArrayList<>();
    if (body(body, Set.of("else", "endfor")).equals("else")) {
      close();
      body(otherwise, Set.of("endfor"));
    }
    close();
    return new Stmt.For(targets, iterable, filter, body, otherwise);
  }

  private Stmt setStatement() {
    List<String> targets = names();
    String attr = null;
    if (targets.size() == 1 && accept(".")) {
      attr = expect(Kind.NAME, "an attribute name").text();
    }
    if (!accept("=")) {
      if (targets.size() != 1 || attr != null) {
        throw error("a set block assigns one name");
      }
      close();
      List<Stmt> body = new ArrayList<>();
      body(body, Set.of("endset"));
      close();
      return new Stmt.SetBlock(targets.get(0), body);
    }
    Expr value = expression();
    if (peek().isOp(",")) {
      List<Expr> items = new ArrayList<>(List.of(value));
      while (accept(",")) {
        items.add(expression());
      }
      value = new Expr.ListLiteral(items, true);
    }
    close();
    return new Stmt.Set(targets, attr, value);
  }

  private Stmt macro() {
    String name = expect(Kind.NAME, "a macro name").text();
    expectOp("(");
    List<String> params = new ArrayList<>();
    List<Expr> defaults = new ArrayList<>();
    while (!accept(")")) {
      params.add(expect(Kind.NAME, "a parameter name").text());
      defaults.add(accept("=") ? expression() : null);
      if (!peek().isOp(")")) {
        expectOp(",");
      }
    }
    close();
    List<Stmt> body = new ArrayList<>();
    body(body, Set.of("endmacro"));
    close();
    return new Stmt.Macro(name, params, defaults, body);
  }

  private List<String> names() {
    List<String> names = new ArrayList<>();
    boolean paren = accept("(");
    do {
      names.add(expect(Kind.NAME, "a name").text());
    } while (accept(","));
    if (paren) {
      expectOp(")");
    }
    return names;
  }

  // expressions, lowest precedence first

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

  private Expr or() {
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
      } else if (t.isName("not") && tokens.get(at + 1).isName("in")) {
        at += 2;
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
    while (peek().isOp(".") && tokens.get(at + 1).kind() == Kind.NAME) {
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
      if (peek().kind() == Kind.NAME && tokens.get(at + 1).isOp("=")) {
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

  // token helpers

  Token peek() {
    return tokens.get(at);
  }

  Token next() {
    Token t = tokens.get(at);
    if (t.kind() != Kind.EOF) {
      at++;
    }
    return t;
  }

  boolean accept(String op) {
    if (peek().isOp(op)) {
      at++;
      return true;
    }
    return false;
  }

  void expectOp(String op) {
    if (!accept(op)) {
      throw error("expected '" + op + "', found '" + peek().text() + "'");
    }
  }

  private void expectName(String name) {
    if (!peek().isName(name)) {
      throw error("expected '" + name + "', found '" + peek().text() + "'");
    }
    next();
  }

  private Token expect(Kind kind, String what) {
    Token t = next();
    if (t.kind() != kind) {
      throw error("expected " + what + ", found '" + t.text() + "'");
    }
    return t;
  }

  private void close() {
    expect(Kind.STMT_CLOSE, "'%}'");
  }

  TemplateException error(String what) {
    return new TemplateException("template syntax error near position " + peek().pos() + ": " + what);
  }
}
