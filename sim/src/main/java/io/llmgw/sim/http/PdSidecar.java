package io.llmgw.sim.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.llmgw.sim.engine.EngineMetrics;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.io.IOException;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The decode side of llm-d's disaggregated serving, as its routing sidecar and vLLM's NIXL connector do it: a request
 * that names a prefill pod in {@code x-prefiller-host-port} is first sent there with {@code max_tokens} 1 and
 * {@code kv_transfer_params.do_remote_decode}; the KV cache that pod answers with is pulled ({@link KvHandoffs}); then
 * the request runs here with its prompt already computed. When the prefill pod cannot be reached, answers an error,
 * or dies before the transfer ends, the request is prefilled here instead (vLLM's recompute on a failed KV load),
 * logged and counted by reason ({@code sim:pd_requests_total{outcome}}): the client never sees the difference but
 * time.
 */
final class PdSidecar {
  static final String PREFILLER = "x-prefiller-host-port";
  private static final Logger LOG = LoggerFactory.getLogger(PdSidecar.class);
  private static final long TIMEOUT_MS = 60_000;

  private final HttpClient client;
  private final EngineMetrics metrics;
  private final String self;

  PdSidecar(Vertx vertx, EngineMetrics metrics, String self) {
    this.client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true).setMaxPoolSize(64));
    this.metrics = metrics;
    this.self = self;
  }

  /**
   * Has {@code prefiller} compute the prompt of {@code body} (sent to {@code path}), pulls its KV cache, then calls
   * {@code decode} with the prompt tokens pulled (0: prefill here, after a failure that was logged and counted).
   */
  void prefillThenDecode(String path, JsonNode body, String prefiller, IntConsumer decode) {
    int colon = prefiller.lastIndexOf(':');
    int port = colon < 0 ? -1 : parsePort(prefiller.substring(colon + 1));
    if (colon <= 0 || port < 0) {
      fallback("bad_prefiller", prefiller, "not host:port", decode);
      return;
    }
    String host = prefiller.substring(0, colon).replace("[", "").replace("]", "");
    ObjectNode prefill = ((ObjectNode) body.deepCopy());
    prefill.remove("max_completion_tokens");
    prefill.remove("stream_options");
    prefill.put("max_tokens", 1).put("stream", false);
    prefill.putObject("kv_transfer_params").put("do_remote_decode", true).put("do_remote_prefill", false)
        .putNull("remote_engine_id").putNull("remote_block_ids").putNull("remote_host").putNull("remote_port");
    post(host, port, path, prefill).onComplete(done -> {
      if (done.failed()) {
        fallback("prefill_failed", prefiller, done.cause().getMessage(), decode);
        return;
      }
      JsonNode params = done.result().path("kv_transfer_params");
      String remoteHost = params.path("remote_host").asText("");
      int remotePort = params.path("remote_port").asInt(-1);
      if (!params.path("do_remote_prefill").asBoolean(false) || remoteHost.isEmpty() || remotePort <= 0
          || !params.path("remote_block_ids").isArray()) {
        fallback("prefill_failed", prefiller, "its answer has no usable kv_transfer_params", decode);
        return;
      }
      ObjectNode pull = OpenAiResponses.JSON.createObjectNode();
      pull.set("remote_block_ids", params.get("remote_block_ids"));
      post(remoteHost, remotePort, KvHandoffs.PULL_PATH, pull).onComplete(pulled -> {
        if (pulled.failed()) {
          fallback("transfer_failed", prefiller, pulled.cause().getMessage(), decode);
          return;
        }
        metrics.disaggregated("pulled");
        decode.accept(pulled.result().path("tokens").asInt(0));
      });
    });
  }

  private void fallback(String reason, String prefiller, String why, IntConsumer decode) {
    LOG.warn("{}: prefill pod {} did not hand over a KV cache ({}: {}); prefilling here", self, prefiller, reason, why);
    metrics.disaggregated(reason);
    decode.accept(0);
  }

  /** POSTs JSON and reads a 200's JSON answer; any other status, a broken connection or a timeout fails it. */
  private Future<JsonNode> post(String host, int port, String path, JsonNode json) {
    return client.request(new RequestOptions().setMethod(HttpMethod.POST).setHost(host).setPort(port).setURI(path)
        .setTimeout(TIMEOUT_MS).putHeader("content-type", "application/json"))
        .compose(r -> r.send(Buffer.buffer(json.toString())))
        .compose(r -> r.statusCode() == 200 ? r.body()
            : r.body().transform(b -> Future.failedFuture("HTTP " + r.statusCode() + " from " + host + ":" + port)))
        .compose(PdSidecar::parse);
  }

  private static Future<JsonNode> parse(Buffer b) {
    try {
      return Future.succeededFuture(OpenAiResponses.JSON.readTree(b.getBytes()));
    } catch (IOException e) {
      return Future.failedFuture("the answer is not JSON: " + e.getMessage());
    }
  }

  private static int parsePort(String s) {
    try {
      int p = Integer.parseInt(s);
      return p > 0 && p <= 65535 ? p : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  void close() {
    client.close();
  }
}
