package io.llmgw.extproc.request.hooks;

import io.llmgw.extproc.request.Completion;
import io.llmgw.extproc.request.RequestContext;
import io.llmgw.picker.Plugin;

/** As the response arrives, and once when the exchange ends, whichever way (answered, completed, cancelled). */
public interface ResponseHook extends Plugin {
  /** @param served the endpoint the proxy reports it used (after any fallback), or null when it did not say */
  default void onResponseHeaders(RequestContext ctx, String served) {}

  /** The response's first non-empty body bytes: a streamed response's first token, a whole response's end. */
  default void onFirstBytes(RequestContext ctx) {}

  void onDone(RequestContext ctx, Completion completion);
}
