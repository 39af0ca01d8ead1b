package io.llmgw.api.crd;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import java.util.List;
import java.util.Map;

// @formatter:off (Eclipse puts a record component's annotations on one line, past 120 columns)
/** {@code spec} of an InferencePool, as upstream v1 defines it. */
public record InferencePoolSpec(
    @Required @JsonPropertyDescription("Pods of the pool; only matchLabels, as upstream.")
    Selector selector,
    @Required @Size(min = 1, max = 8)
    List<Port> targetPorts,
    @JsonPropertyDescription("Protocol of the target ports: http (HTTP/1.1, the default) or kubernetes.io/h2c.")
    AppProtocol appProtocol,
    @JsonPropertyDescription("The Endpoint Picker serving this pool (a Service and port); gateways attach it as "
        + "ext_proc. Optional here (file mode has no gateway); upstream's CRD requires it.")
    EndpointPickerRef endpointPickerRef) {

  public enum AppProtocol {
    @JsonProperty("http") HTTP,
    @JsonProperty("kubernetes.io/h2c") H2C
  }

  public record Selector(@Required Map<String, String> matchLabels) {}

  public record Port(@Required @Min(1) @Max(65535) Integer number) {}

  public record EndpointPickerRef(
      String group,
      String kind,
      @Required @Pattern(CrdNames.NAME_PATTERN) String name,
      Port port,
      FailureMode failureMode) {}

  public enum FailureMode { FailOpen, FailClose }
}
// @formatter:on
