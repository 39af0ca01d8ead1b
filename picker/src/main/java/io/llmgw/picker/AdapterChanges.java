package io.llmgw.picker;

import java.util.Set;

/**
 * What the gateway itself loaded onto or unloaded from pods in the last seconds, before the pods' own reports can
 * show it. Together with a pod's report it defines what the pod holds ({@link EndpointState#holdsAdapter}).
 */
public interface AdapterChanges {
  AdapterChanges NONE = new AdapterChanges() {
    @Override
    public Boolean lately(String address, String adapter) {
      return null;
    }

    @Override
    public Set<String> loadedLately(String address) {
      return Set.of();
    }
  };

  /** TRUE: loaded there lately; FALSE: unloaded there lately; null: the pod's report stands. */
  Boolean lately(String address, String adapter);

  /** Adapters loaded there lately, whether or not the pod reports them yet. */
  Set<String> loadedLately(String address);
}
