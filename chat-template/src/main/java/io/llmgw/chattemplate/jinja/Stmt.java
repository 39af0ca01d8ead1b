package io.llmgw.chattemplate.jinja;

import java.util.List;

/** A statement of the template, as parsed. */
sealed interface Stmt {
  record Text(String text) implements Stmt {
  }

  record Output(Expr value) implements Stmt {
  }

  /** {@code if}, its {@code elif}s and its {@code else} ({@code otherwise}, perhaps empty). */
  record If(List<Expr> tests, List<List<Stmt>> bodies, List<Stmt> otherwise) implements Stmt {
  }

  /** {@code for targets in iterable [if filter]}, with the {@code else} body run when nothing was iterated. */
  record For(List<String> targets, Expr iterable, Expr filter, List<Stmt> body, List<Stmt> otherwise)
      implements
        Stmt {
  }

  /** {@code set a = v}, {@code set a, b = v} or {@code set ns.attr = v} ({@code attr} non-null). */
  record Set(List<String> targets, String attr, Expr value) implements Stmt {
  }

  /** {@code set name}...{@code endset}: the rendered body, as a string. */
  record SetBlock(String target, List<Stmt> body) implements Stmt {
  }

  record Macro(String name, List<String> params, List<Expr> defaults, List<Stmt> body) implements Stmt {
  }

  /** {@code filter name}...{@code endfilter}: the rendered body through a filter. */
  record FilterBlock(String name, Expr.Args args, List<Stmt> body) implements Stmt {
  }

  record Break() implements Stmt {
  }

  record Continue() implements Stmt {
  }
}
