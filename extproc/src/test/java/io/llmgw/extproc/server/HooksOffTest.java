package io.llmgw.extproc.server;

import static io.llmgw.extproc.server.ExtProcCall.requestBody;
import static io.llmgw.extproc.server.ExtProcCall.requestHeaders;
import static io.llmgw.extproc.server.ExtProcCall.setHeader;
import static io.llmgw.extproc.server.ExtProcIntegrationTest.chat;
import static org.assertj.core.api.Assertions.assertThat;

import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ProcessingMode.BodySendMode;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.llmgw.api.EppProtocol;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Issue 48: without --conformance-test-hooks and --emit-endpoint-scores, a client's test header steers nothing. */
class HooksOffTest {
  @Test
  void theConformanceHeaderIsIgnoredAndNoScoresAreSentByDefault() throws Exception {
    try (EppHarness h = new EppHarness(2, 66, s -> s)) {
      for (int i = 0; i < 6; i++) {
        ExtProcCall call = h.open();
        call.send(requestHeaders(Map.of(":method", "POST", ":path", "/v1/chat/completions", "content-type",
            "application/json", EppProtocol.TEST_ENDPOINT_SELECTION, "127.0.0.99"), false,
            BodySendMode.FULL_DUPLEX_STREAMED, null));
        call.send(requestBody(chat("base-model"), true));
        ProcessingResponse r = call.next();
        assertThat(setHeader(r, EppProtocol.DESTINATION)).as("routed, not refused").isNotNull();
        assertThat(r.getDynamicMetadata().getFieldsOrThrow(EppProtocol.LB_NAMESPACE).getStructValue()
            .containsFields(EppProtocol.ENDPOINT_SCORES)).isFalse();
        call.cancel();
      }
    }
  }
}
