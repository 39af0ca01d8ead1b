package io.llmgw.extproc.request.hooks;

import io.llmgw.extproc.request.RequestContext;
import io.llmgw.picker.EndpointState;
import io.llmgw.picker.Plugin;

/** Once a pod is picked, before the request is sent there. */
public interface PreRequestHook extends Plugin {
  void preRequest(RequestContext ctx, EndpointState primary);
}
