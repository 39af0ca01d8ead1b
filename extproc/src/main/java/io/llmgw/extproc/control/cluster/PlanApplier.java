package io.llmgw.extproc.control.cluster;

import io.fabric8.kubernetes.api.model.autoscaling.v1.Scale;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Scalable;
import io.llmgw.api.PoolKey;
import io.llmgw.extproc.capacity.core.Plan;
import io.llmgw.extproc.capacity.core.PoolPlan;
import io.llmgw.extproc.state.PoolView;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * With {@code --apply-capacity-plan} in cluster mode, the EPP is its own autoscaler: the replica that writes route
 * status sets each pool's scale target ({@code llmgw.io/scale-target: Deployment/NAME} or {@code StatefulSet/NAME})
 * to the plan's count through its scale subresource, when they differ. A pool without a target is left to an HPA or
 * KEDA. A refusal (no such workload, no RBAC: {@code deploy/options/apply-capacity-plan}) is one WARN per target and
 * cause, and the next pass tries again.
 */
public final class PlanApplier {
  private static final Logger LOG = LoggerFactory.getLogger(PlanApplier.class);

  private final KubernetesClient client;
  private final Supplier<Plan> plan;
  private final Supplier<Map<PoolKey, PoolView>> pools;
  private final BooleanSupplier leading;
  /** The last failure named per target, so a lasting one is logged once; gone once it succeeds. */
  private final Map<String, String> failing = new HashMap<>();

  public PlanApplier(KubernetesClient client, Supplier<Plan> plan, Supplier<Map<PoolKey, PoolView>> pools,
      BooleanSupplier leading) {
    this.client = client;
    this.plan = plan;
    this.pools = pools;
    this.leading = leading;
  }

  /** Applies the plan every {@code interval} on {@code scheduler}. */
  public void schedule(ScheduledExecutorService scheduler, Duration interval) {
    long every = interval.toMillis();
    scheduler.scheduleWithFixedDelay(this::applyOnce, every, every, TimeUnit.MILLISECONDS);
  }

  /** One pass; never throws. Returns the number of scale subresources written. */
  public int applyOnce() {
    if (!leading.getAsBoolean()) {
      return 0;
    }
    int written = 0;
    Map<PoolKey, PoolView> now = pools.get();
    for (PoolPlan p : plan.get().pools()) {
      PoolView view = now.get(p.pool());
      String target = view == null ? null : view.pool().capacity().scaleTarget();
      if (target == null) {
        continue;
      }
      String where = p.pool().namespace() + "/" + target;
      try {
        Scalable<?> workload = workload(p.pool().namespace(), target);
        Scale scale = workload.scale();
        if (scale == null || scale.getSpec() == null) {
          failed(where, "no such workload");
          continue;
        }
        Integer replicas = scale.getSpec().getReplicas();
        if (replicas == null || replicas != p.desired()) {
          workload.scale(p.desired());
          written++;
          LOG.info("capacity: {} scaled from {} to {} pods for pool {}: {}", where, replicas, p.desired(), p.pool(),
              p.reason());
        }
        failing.remove(where);
      } catch (KubernetesClientException e) {
        failed(where, e.getCode() == 403 ? "forbidden (apply deploy/options/apply-capacity-plan for the RBAC)"
            : e.getCode() == 404 ? "no such workload" : "HTTP " + e.getCode() + ": " + e.getMessage());
      } catch (RuntimeException e) {
        failed(where, e.toString());
      }
    }
    return written;
  }

  private Scalable<?> workload(String namespace, String target) {
    String name = target.substring(target.indexOf('/') + 1);
    return target.startsWith("StatefulSet/") ? client.apps().statefulSets().inNamespace(namespace).withName(name)
        : client.apps().deployments().inNamespace(namespace).withName(name);
  }

  private void failed(String where, String why) {
    if (!why.equals(failing.put(where, why))) {
      LOG.warn("capacity: cannot scale {} to the plan: {}; the plan is still exported as llmgw_pool_desired_replicas",
          where, why);
    }
  }
}
