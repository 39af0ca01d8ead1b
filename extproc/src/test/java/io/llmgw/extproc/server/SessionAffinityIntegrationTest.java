package io.llmgw.extproc.server;

import static io.llmgw.extproc.server.ExtProcCall.requestBody;
import static io.llmgw.extproc.server.ExtProcCall.requestHeaders;
import static io.llmgw.extproc.server.ExtProcCall.setHeader;
import static org.assertj.core.api.Assertions.assertThat;

import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ProcessingMode.BodySendMode;
import io.llmgw.api.EppProtocol;
import io.llmgw.extproc.request.prepare.SessionIdProducer;
import io.llmgw.picker.config.PluginSpec;
import io.llmgw.picker.config.PolicyShorthand;
import io.llmgw.picker.scorers.SessionAffinityScorer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 17, item 2, through real ext_proc frames: with least-request (which spreads requests by design) plus the
 * session-affinity scorer, a session's requests stay on one pod, named by its header or, when configured, by the body's
 * {@code user}; requests without a session still spread.
 */
class SessionAffinityIntegrationTest {
  static EppHarness h;
  static final List<ExtProcCall> open = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    h = new EppHarness(4, 81, s -> s.withScheduling(PolicyShorthand.LEAST_REQUEST.config(1).withScorer(
        PluginSpec.of(SessionAffinityScorer.TYPE), 10, " +session").withPlugin(
            PluginSpec.of(SessionIdProducer.TYPE,
                Map.of("useUserField", true)))));
  }

  @AfterAll
  static void stop() throws Exception {
    open.forEach(ExtProcCall::cancel);
    h.close();
  }

  /** Routes one request and leaves it in flight (so least-request would send the next one elsewhere). */
  static String route(Map<String, String> extraHeaders, String body) throws InterruptedException {
    Map<String, String> headers = new HashMap<>(Map.of(":method", "POST", ":path", "/v1/chat/completions"));
    headers.putAll(extraHeaders);
    ExtProcCall call = h.open();
    open.add(call);
    call.send(requestHeaders(headers, false, BodySendMode.FULL_DUPLEX_STREAMED, null));
    call.send(requestBody(body, true));
    String destination = setHeader(call.next(), EppProtocol.DESTINATION);
    assertThat(destination).isNotNull();
    return destination;
  }

  static String chat(String userField) {
    return "{\"model\":\"base-model\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]"
        + (userField == null ? "" : ",\"user\":\"" + userField + "\"") + "}";
  }

  /** Routes one turn of a conversation, which then ends (one turn at a time, as a conversation goes). */
  static String turn(Map<String, String> headers, String body) throws InterruptedException {
    String pod = route(headers, body);
    open.removeLast().cancel();
    return pod;
  }

  @Test
  void aSessionStaysOnItsPodWhileSessionlessRequestsSpread() throws Exception {
    String first = turn(Map.of("x-session-id", "conv-1"), chat(null));
    Set<String> sessionless = new HashSet<>();
    for (int i = 0; i < 3; i++) {
      sessionless.add(route(Map.of(), chat(null)));
    }
    assertThat(sessionless).as("least-request spreads what names no session").hasSize(3);
    for (int i = 0; i < 3; i++) {
      assertThat(turn(Map.of("x-session-id", "conv-1"), chat(null))).as("turn " + (i + 2)).isEqualTo(first);
    }

    String byUser = turn(Map.of(), chat("alice"));
    assertThat(turn(Map.of(), chat("alice"))).as("the body's user field names the session").isEqualTo(byUser);
    assertThat(turn(Map.of("x-session-id", "conv-1"), chat("alice"))).as("the header wins over the user field")
        .isEqualTo(first);
  }
}
