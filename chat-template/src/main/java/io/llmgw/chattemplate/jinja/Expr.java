package io.llmgw.chattemplate.jinja;

import java.util.List;

/** An expression of the template, as parsed. */
sealed interface Expr {
  record Literal(Object value) implements Expr {
  }

  record Name(String name) implements Expr {
  }

  record Attr(Expr target, String name) implements Expr {
  }

  record Item(Expr target, Expr key) implements Expr {
  }

  /** {@code target[start:stop:step]}; any bound may be null. */
  record Slice(Expr target, Expr start, Expr stop, Expr step) implements Expr {
  }

  record Call(Expr callee, Args args) implements Expr {
  }

  record Filter(Expr operand, String name, Args args) implements Expr {
  }

  record Test(Expr operand, String name, Args args, boolean negated) implements Expr {
  }

  /** {@code not}, unary {@code -} and {@code +}. */
  record Unary(String op, Expr operand) implements Expr {
  }

  /** Arithmetic, comparison, {@code ~}, {@code in}, {@code not in}, {@code and}, {@code or}. */
  record Binary(String op, Expr left, Expr right) implements Expr {
  }

  /** {@code then if test else otherwise}; {@code otherwise} is null when the template leaves it out. */
  record Conditional(Expr then, Expr test, Expr otherwise) implements Expr {
  }

  record ListLiteral(List<Expr> items, boolean tuple) implements Expr {
  }

  record DictLiteral(List<Expr> keys, List<Expr> values) implements Expr {
  }

  /** A call's arguments: positional, then named. */
  record Args(List<Expr> positional, List<String> names, List<Expr> named) {
    static final Args NONE = new Args(List.of(), List.of(), List.of());
  }
}
