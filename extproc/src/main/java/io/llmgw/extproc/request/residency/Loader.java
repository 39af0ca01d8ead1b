package io.llmgw.extproc.request.residency;

import io.llmgw.extproc.request.Choice;
import io.llmgw.extproc.request.RequestContext;
import io.llmgw.extproc.request.Step;
import io.llmgw.picker.EndpointState;
import io.llmgw.picker.Plugin;
import java.util.List;
import java.util.Set;

/** Load phase: where the request's target is resident among the endpoints it may use, or a wait while it is loaded. */
public interface Loader extends Plugin {
  /** @param allowed the pools' endpoints the proxy's subset hint allows */
  Outcome prepare(RequestContext ctx, List<EndpointState> allowed);

  sealed interface Outcome {
    /** @param holders where the target is resident; null when any endpoint may serve it */
    record Ready(Choice choice, Set<String> holders) implements Outcome {}

    /** The target is being loaded; the request resumes at scheduling with the pod it was loaded on. */
    record Loading(Choice choice, Step.Wait until) implements Outcome {}
  }
}
