package io.llmgw.chattemplate.jinja;

/** One lexical token of a template: text between tags, a tag's delimiters, or a piece of an expression. */
record Token(Kind kind, String text, int pos) {
  enum Kind {
    TEXT, EXPR_OPEN, EXPR_CLOSE, STMT_OPEN, STMT_CLOSE, NAME, STRING, INT, FLOAT, OP, EOF
  }

  boolean is(Kind k, String t) {
    return kind == k && text.equals(t);
  }

  boolean isOp(String t) {
    return is(Kind.OP, t);
  }

  boolean isName(String t) {
    return is(Kind.NAME, t);
  }
}
