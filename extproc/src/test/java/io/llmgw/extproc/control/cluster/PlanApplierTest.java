package io.llmgw.extproc.control.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.llmgw.api.InferencePool;
import io.llmgw.api.PoolCapacity;
import io.llmgw.api.PoolKey;
import io.llmgw.extproc.capacity.core.Plan;
import io.llmgw.extproc.capacity.core.PoolPlan;
import io.llmgw.extproc.state.PoolView;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Issue 52, item 3: with --apply-capacity-plan the leader sets each pool's scale target to the plan through its scale
 * subresource (the fabric8 mock API server); a pool without a target, a missing workload or a follower writes nothing.
 */
@EnableKubernetesMockClient(crud = true)
class PlanApplierTest {
  static KubernetesClient client;

  static PoolView pool(String name, String target) {
    return new PoolView(new InferencePool("ns", name, Map.of("app", name), List.of(8000), false,
        new PoolCapacity(1, null, 1, 10, target, 0)), List.of());
  }

  static PoolPlan plan(String pool, int desired) {
    return new PoolPlan(new PoolKey("ns", pool), 1, 1, 10, desired, desired, desired, "+" + (desired - 1) + " pods");
  }

  @Test
  void theLeaderScalesEachTargetToThePlanOnceAndFollowersDoNothing() {
    client.apps().deployments().inNamespace("ns").resource(new DeploymentBuilder().withNewMetadata()
        .withName("vllm-small").endMetadata().withNewSpec().withReplicas(1).endSpec().build()).create();
    client.apps().statefulSets().inNamespace("ns").resource(new StatefulSetBuilder().withNewMetadata()
        .withName("vllm-large").endMetadata().withNewSpec().withReplicas(2).endSpec().build()).create();
    Map<PoolKey, PoolView> pools = Map.of(new PoolKey("ns", "small"), pool("small", "Deployment/vllm-small"),
        new PoolKey("ns", "large"), pool("large", "StatefulSet/vllm-large"),
        new PoolKey("ns", "free"), pool("free", null), new PoolKey("ns", "ghost"), pool("ghost", "Deployment/gone"));
    Plan p = new Plan(List.of(plan("small", 3), plan("large", 1), plan("free", 5), plan("ghost", 2)), List.of(), 0, 0);
    AtomicBoolean leading = new AtomicBoolean(false);
    PlanApplier applier = new PlanApplier(client, () -> p, () -> pools, leading::get);

    assertThat(applier.applyOnce()).as("a follower").isZero();
    assertThat(replicas("vllm-small")).isEqualTo(1);

    leading.set(true);
    assertThat(applier.applyOnce()).as("small and large; none for the free pool; the ghost is named").isEqualTo(2);
    assertThat(replicas("vllm-small")).isEqualTo(3);
    assertThat(client.apps().statefulSets().inNamespace("ns").withName("vllm-large").get().getSpec().getReplicas())
        .isEqualTo(1);
    assertThat(applier.applyOnce()).as("nothing differs").isZero();
  }

  private static int replicas(String deployment) {
    return client.apps().deployments().inNamespace("ns").withName(deployment).get().getSpec().getReplicas();
  }
}
