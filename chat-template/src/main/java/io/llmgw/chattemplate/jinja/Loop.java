package io.llmgw.chattemplate.jinja;

import java.util.List;

/** The {@code loop} variable of a {@code for} body. */
final class Loop {
  private final List<Object> items;
  int index0;

  Loop(List<Object> items) {
    this.items = items;
  }

  Object attribute(String name) {
    int length = items.size();
    return switch (name) {
      case "index0" -> (long) index0;
      case "index" -> (long) index0 + 1;
      case "revindex" -> (long) (length - index0);
      case "revindex0" -> (long) (length - index0 - 1);
      case "first" -> index0 == 0;
      case "last" -> index0 == length - 1;
      case "length" -> (long) length;
      case "depth" -> 1L;
      case "depth0" -> 0L;
      case "previtem" -> index0 > 0 ? items.get(index0 - 1) : new Undefined("loop.previtem");
      case "nextitem" -> index0 < length - 1 ? items.get(index0 + 1) : new Undefined("loop.nextitem");
      case "cycle" -> (Fn) (args, kwargs) -> args.isEmpty()
          ? new Undefined("loop.cycle()")
          : args.get(index0 % args.size());
      default -> new Undefined("loop." + name);
    };
  }
}
