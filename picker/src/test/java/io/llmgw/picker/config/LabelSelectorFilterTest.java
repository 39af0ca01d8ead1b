package io.llmgw.picker.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.llmgw.picker.Endpoint;
import io.llmgw.picker.EndpointState;
import io.llmgw.picker.Pods;
import io.llmgw.picker.Role;
import io.llmgw.picker.filters.LabelSelectorFilter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Issue 48: llm-d's label-selector-filter, with Kubernetes' selector semantics and its garbage refused by name. */
class LabelSelectorFilterTest {
  static EndpointState pod(Map<String, String> labels) {
    return new EndpointState(new Endpoint("pool", "p", "127.0.0.1", 8000, Role.BOTH, labels),
        Pods.metrics(0, 0, java.util.Set.of()), true, null);
  }

  static LabelSelectorFilter filter(Map<String, Object> params) {
    return LabelSelectors.filter(new Parameters(LabelSelectorFilter.TYPE, params));
  }

  @Test
  void everyLabelAndEveryRequirementMustHold() {
    LabelSelectorFilter f = filter(Map.of("matchLabels", Map.of("app", "vllm"), "matchExpressions", List.of(
        Map.of("key", "role", "operator", "In", "values", List.of("prefill", "both")),
        Map.of("key", "tier", "operator", "NotIn", "values", List.of("spot")),
        Map.of("key", "gpu", "operator", "Exists"), Map.of("key", "draining", "operator", "DoesNotExist"))));
    Map<String, String> fit = Map.of("app", "vllm", "role", "prefill", "gpu", "h100");
    assertThat(f.keep(null, pod(fit))).isTrue();
    assertThat(f.keep(null, pod(Map.of("app", "vllm", "role", "both", "gpu", "a", "tier", "reserved")))).isTrue();
    assertThat(f.keep(null, pod(Map.of("app", "sglang", "role", "prefill", "gpu", "h100")))).isFalse();
    assertThat(f.keep(null, pod(Map.of("app", "vllm", "role", "decode", "gpu", "h100")))).isFalse();
    assertThat(f.keep(null, pod(Map.of("app", "vllm", "gpu", "h100")))).as("In needs the label").isFalse();
    assertThat(f.keep(null, pod(Map.of("app", "vllm", "role", "prefill", "gpu", "h", "tier", "spot")))).isFalse();
    assertThat(f.keep(null, pod(Map.of("app", "vllm", "role", "prefill")))).isFalse();
    assertThat(f.keep(null, pod(Map.of("app", "vllm", "role", "prefill", "gpu", "h", "draining", "")))).isFalse();
    assertThat(f.whyNone(null, List.of()).detail()).contains("app=vllm");
  }

  @Test
  void garbageIsRefusedNamingTheParameter() {
    Object[][] cases = {
        {Map.of(), "matchLabels"},
        {Map.of("matchLabels", "role=decode"), "matchLabels"},
        {Map.of("matchLabels", Map.of("role", List.of("a"))), "matchLabels"},
        {Map.of("matchExpressions", Map.of("key", "role")), "matchExpressions"},
        {Map.of("matchExpressions", List.of("role")), "matchExpressions[0]"},
        {Map.of("matchExpressions", List.of(Map.of("operator", "Exists"))), "matchExpressions[0].key"},
        {Map.of("matchExpressions", List.of(Map.of("key", "r", "operator", "Equals", "values", List.of("x")))),
            "matchExpressions[0].operator"},
        {Map.of("matchExpressions", List.of(Map.of("key", "r", "operator", "In"))), "matchExpressions[0].values"},
        {Map.of("matchExpressions", List.of(Map.of("key", "r", "operator", "Exists", "values", List.of("x")))),
            "matchExpressions[0].values"},
        {Map.of("matchExpressions", List.of(Map.of("key", "r", "operator", "In", "value", "x"))),
            "matchExpressions[0].value"},
        {Map.of("selector", Map.of()), "selector"},
    };
    for (Object[] c : cases) {
      @SuppressWarnings("unchecked")
      Map<String, Object> params = (Map<String, Object>) c[0];
      assertThatThrownBy(() -> filter(params)).as(params.toString()).isInstanceOf(ParameterException.class)
          .hasMessageContaining("label-selector-filter").hasMessageContaining((String) c[1]);
    }
  }
}
