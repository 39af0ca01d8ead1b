package io.llmgw.extproc.request.prepare;

import io.llmgw.extproc.request.RequestContext;
import io.llmgw.picker.Plugin;
import io.llmgw.picker.attributes.AttributeKey;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The PREPARE phase's extension point: makes request attributes that admission steps, filters and scorers read. Runs
 * once per request, between RESOLVE and ADMIT, after the producers of what it {@linkplain #consumes() consumes}.
 */
public interface Producer extends Plugin {
  /** The attributes it makes (it may leave one unset for a request it does not apply to). */
  Set<AttributeKey<?>> produces();

  /**
   * Whether it runs again when a wait (flow control, an adapter load) ends: its value depends on time or on the pods'
   * load, which moved on meanwhile.
   */
  default boolean renewsAfterWait() {
    return false;
  }

  void produce(RequestContext ctx);

  /**
   * As {@link #produce}, for a producer whose value comes from elsewhere (a tokenizer server): the request waits,
   * holding no thread, until the returned future completes, which it does within the producer's own time bound and
   * never exceptionally (a value that did not come is left unset). Null: the value was made at once.
   */
  default CompletableFuture<?> produceLater(RequestContext ctx) {
    produce(ctx);
    return null;
  }
}
