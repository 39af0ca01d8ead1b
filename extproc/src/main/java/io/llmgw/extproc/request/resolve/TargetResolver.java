package io.llmgw.extproc.request.resolve;

import io.llmgw.extproc.reply.ErrorReply;
import io.llmgw.extproc.request.Choice;
import io.llmgw.extproc.request.RequestContext;
import io.llmgw.picker.Plugin;

/** Resolve phase: decides (or revises) what the request is served as, once its route is known. */
public interface TargetResolver extends Plugin {
  /** @param proposed what the resolvers before this one chose; null for the first */
  Resolution resolve(RequestContext ctx, Choice proposed);

  /** A resolver's answer: the choice so far, or why the request cannot be served. */
  sealed interface Resolution {
    record Chosen(Choice choice) implements Resolution {}

    record Refused(ErrorReply reply) implements Resolution {}
  }
}
