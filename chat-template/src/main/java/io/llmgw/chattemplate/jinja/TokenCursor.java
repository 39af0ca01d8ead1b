package io.llmgw.chattemplate.jinja;

import io.llmgw.chattemplate.jinja.Token.Kind;
import java.util.List;

/** A parser's place in the token list, and the steps every part of the grammar takes over it. */
abstract class TokenCursor {
  static final int MAX_DEPTH = 200;

  private final List<Token> tokens;
  private int at;
  int depth;

  TokenCursor(List<Token> tokens) {
    this.tokens = tokens;
  }

  /** The token {@code ahead} places after the current one. */
  Token lookahead(int ahead) {
    return tokens.get(Math.min(at + ahead, tokens.size() - 1));
  }

  /** Steps back over the token just read. */
  void back() {
    at--;
  }

  void skip(int n) {
    at += n;
  }

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

  void expectName(String name) {
    if (!peek().isName(name)) {
      throw error("expected '" + name + "', found '" + peek().text() + "'");
    }
    next();
  }

  Token expect(Kind kind, String what) {
    Token t = next();
    if (t.kind() != kind) {
      throw error("expected " + what + ", found '" + t.text() + "'");
    }
    return t;
  }

  void close() {
    expect(Kind.STMT_CLOSE, "'%}'");
  }

  TemplateException error(String what) {
    return new TemplateException("template syntax error near position " + peek().pos() + ": " + what);
  }
}
