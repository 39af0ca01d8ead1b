package io.llmgw.extproc.observe;

import io.llmgw.api.LoadReport;
import io.llmgw.api.PoolLoad;
import io.llmgw.extproc.flow.controller.FlowControl;
import io.llmgw.extproc.state.Datastore;
import io.llmgw.extproc.state.PoolView;
import io.llmgw.extproc.state.RouteView;
import io.llmgw.picker.EndpointState;
import io.llmgw.picker.SaturationDetector;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a batch dispatcher needs to size its budget, as of the moment it asks ({@code GET /admin/load}): per pool the
 * pods the EPP can route to, the requests running and waiting at them as the pods last reported, what this EPP sent
 * them since those reports, the requests held in flow control, and how many more the pool takes before this EPP's
 * saturation detector sheds sheddable requests; and which pool serves each model. Cheaper than the status report
 * (no objectives) and fresher than the Prometheus gauges (which are up to a second old).
 */
public final class PoolLoadReport {
  private final Datastore datastore;
  private final FlowControl flow;
  private final SaturationDetector saturation;

  public PoolLoadReport(Datastore datastore, FlowControl flow, SaturationDetector saturation) {
    this.datastore = datastore;
    this.flow = flow;
    this.saturation = saturation;
  }

  public LoadReport report() {
    List<PoolLoad> pools = new ArrayList<>();
    for (PoolView p : datastore.topology().poolsByKey().values()) {
      int pods = 0;
      int running = 0;
      int waiting = 0;
      int sent = 0;
      List<EndpointState> states = datastore.states(List.of(p));
      for (EndpointState e : states) {
        if (e.scrapeHealthy()) {
          pods++;
          running += e.metrics().running();
          waiting += e.metrics().waitingQueue();
          sent += e.queued() - e.metrics().waitingQueue();
        }
      }
      pools.add(new PoolLoad(p.key().toString(), pods, running, waiting, sent, flow.waiting(p.key()),
          saturation.headroom(states), states.isEmpty() && PoolView.mayScaleFromZero(List.of(p))));
    }
    Map<String, String> models = new TreeMap<>();
    for (Map.Entry<String, RouteView> r : datastore.topology().routesByModel().entrySet()) {
      if (!r.getValue().pools().isEmpty()) {
        models.put(r.getKey(), r.getValue().pools().getFirst().key().toString());
      }
    }
    return new LoadReport(pools, models);
  }
}
