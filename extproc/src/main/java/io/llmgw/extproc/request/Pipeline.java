package io.llmgw.extproc.request;

import io.llmgw.extproc.request.admission.AdmissionStep;
import io.llmgw.extproc.request.hooks.PreRequestHook;
import io.llmgw.extproc.request.hooks.ResponseHook;
import io.llmgw.extproc.request.prepare.Producer;
import io.llmgw.extproc.request.residency.Loader;
import io.llmgw.extproc.request.resolve.TargetResolver;
import io.llmgw.picker.SchedulingProfile;
import io.llmgw.picker.disagg.Disaggregation;
import java.util.List;

/**
 * The plugins at each extension point of the lifecycle, in the order they run.
 *
 * @param resolvers the target: weighted targets, a model-less route's variant, a rollout's redirect
 * @param producers the request's attributes, in dependency order: prompt blocks, session, the objective check, …
 * @param admission shedding, objective shedding, flow control
 * @param loader makes the target resident where the request may go
 * @param profile filters, scorers and the picker
 * @param disaggregation for a pool with prefill pods, whether a prefill pod computes the prompt and which
 * @param preRequest once a pod is picked: its in-flight lease, the adapter's use
 * @param response as the response arrives and when the exchange ends
 */
public record Pipeline(List<TargetResolver> resolvers, List<Producer> producers, List<AdmissionStep> admission,
    Loader loader,
    SchedulingProfile profile, Disaggregation disaggregation, List<PreRequestHook> preRequest,
    List<ResponseHook> response) {
  public Pipeline {
    resolvers = List.copyOf(resolvers);
    producers = List.copyOf(producers);
    admission = List.copyOf(admission);
    preRequest = List.copyOf(preRequest);
    response = List.copyOf(response);
  }
}
