package io.llmgw.extproc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.llmgw.extproc.observe.tracing.TraceSettings;
import java.net.URI;
import org.junit.jupiter.api.Test;

/** Issue 32: the addresses an operator gives for the batch section and the traces are refused when garbage. */
class ListenSettingsTest {
  @Test
  void aBatchStatusAddressMustBeHostAndPort() {
    ListenSettings d = ListenSettings.defaults();
    assertThat(d.withBatchStatus("127.0.0.1:8090").batchStatus()).isEqualTo("127.0.0.1:8090");
    assertThat(d.withBatchStatus(null).batchStatus()).isNull();
    for (String garbage : new String[] {"nope", "http://127.0.0.1:8090", "127.0.0.1:port", "a b:1", "h:123456",
        "user@h:1", "h:1/path"}) {
      assertThatThrownBy(() -> d.withBatchStatus(garbage)).as(garbage)
          .hasMessageContaining("listen.batchStatus").hasMessageContaining("takes host:port");
    }
  }

  /** Issue 53: the front door the status page names is a base URL, or refused naming the flag's setting. */
  @Test
  void aFrontDoorMustBeAnHttpBaseUrl() {
    ListenSettings d = ListenSettings.defaults();
    assertThat(d.withFrontDoor("http://127.0.0.1:8080").frontDoor()).isEqualTo("http://127.0.0.1:8080");
    assertThat(d.withFrontDoor("https://gateway.example/").frontDoor()).isEqualTo("https://gateway.example/");
    assertThat(d.withFrontDoor(null).frontDoor()).isNull();
    for (String garbage : new String[] {"127.0.0.1:8080", "ftp://h", "http://", "http://h:port", "http://h:123456",
        "http://user@h:1", "http://h:1/v1", "http://a b", "<script>"}) {
      assertThatThrownBy(() -> d.withFrontDoor(garbage)).as(garbage)
          .hasMessageContaining("listen.frontDoor").hasMessageContaining("base URL");
    }
  }

  @Test
  void anOtlpEndpointMustBeAnHttpAddressWithAHost() {
    TraceSettings off = TraceSettings.off();
    assertThat(off.to(URI.create("http://127.0.0.1:4318"), 0.5).enabled()).isTrue();
    for (String garbage : new String[] {"http:///v1", "localhost:4318", "file:/tmp/x", "grpc://127.0.0.1:4317"}) {
      assertThatThrownBy(() -> off.to(URI.create(garbage), 0.5)).as(garbage)
          .hasMessageContaining("traces.otlpEndpoint");
    }
    assertThatThrownBy(() -> off.to(null, Double.NaN)).hasMessageContaining("traces.sampleRatio");
  }
}
