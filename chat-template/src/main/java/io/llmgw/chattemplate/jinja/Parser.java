package io.llmgw.chattemplate.jinja;

import io.llmgw.chattemplate.jinja.Token.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Parses tokens into statements: Jinja's tags, their bodies and their ends. */
final class Parser extends ExprParser {
  private Parser(List<Token> tokens) {
    super(tokens);
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
            back();
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
}
