package io.llmgw.picker.pickers;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.PickRequest;
import io.llmgw.picker.Plugin;
import java.util.List;

/** Chooses from the scored candidates: the primary first, then its fallbacks, at most its own limit. */
public interface Picker extends Plugin {
  /**
   * @param candidates what the filters kept, never empty
   * @param scores each candidate's weighted total over the profile's scorers (all zero without scorers)
   */
  List<EndpointState> pick(PickRequest request, List<EndpointState> candidates, double[] scores);
}
