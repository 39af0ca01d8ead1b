package io.llmgw.sim.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.llmgw.sim.engine.Engine;
import io.llmgw.sim.engine.Sequence;
import io.llmgw.sim.engine.SequenceListener;
import io.llmgw.sim.engine.SequenceListener.Usage;
import io.vertx.core.http.HttpServerResponse;
import java.util.function.IntFunction;

/**
 * Answers one generation request as its tokens come out of the engine: whole ({@link Whole}), as chat or completion
 * chunks ({@link Streaming}), or as the Responses API's events ({@link ResponseEvents}).
 */
abstract class Responder implements SequenceListener {
  final Engine engine;
  final long created;
  final HttpServerResponse response;
  final OpenAiRequest request;
  final String id;
  Sequence sequence;
  boolean done;

  Responder(Engine engine, long created, HttpServerResponse response, OpenAiRequest request, String id) {
    this.engine = engine;
    this.created = created;
    this.response = response;
    this.request = request;
    this.id = id;
  }

  void begin() {
    // the client went away: stop generating for it
    response.closeHandler(v -> {
      if (!done) {
        engine.cancel(sequence);
      }
    });
  }

  /** Opens a server-sent-event stream. */
  static void beginEventStream(HttpServerResponse response) {
    response.setStatusCode(200).setChunked(true).putHeader("content-type", "text/event-stream")
        .putHeader("cache-control", "no-cache");
    response.writeHead();
  }

  /** The whole answer at once; for a decode pod's prefill, with the KV transfer parameters it will pull with. */
  static final class Whole extends Responder {
    private final StringBuilder text = new StringBuilder();
    private final IntFunction<ObjectNode> kvTransfer;

    /** @param kvTransfer the transfer parameters for a prompt of so many tokens; null when no decode pod asked */
    Whole(Engine engine, long created, HttpServerResponse response, OpenAiRequest request, String id,
        IntFunction<ObjectNode> kvTransfer) {
      super(engine, created, response, request, id);
      this.kvTransfer = kvTransfer;
    }

    @Override
    public void onToken(String token, int index) {
      text.append(token);
    }

    @Override
    public void onFinished(Usage usage, String finishReason) {
      done = true;
      var answer = OpenAiResponses.answer(request, id, created, text.toString(), finishReason, usage);
      if (kvTransfer != null) {
        answer.set("kv_transfer_params", kvTransfer.apply(usage.promptTokens()));
      }
      SimHttp.json(response, 200, answer);
    }
  }

  /**
   * A streamed Responses API call as vLLM streams it: each event as {@code event: <type>} and {@code data: <json>},
   * numbered by {@code sequence_number} from 0, and no {@code [DONE]} line after {@code response.completed}.
   */
  static final class ResponseEvents extends Responder {
    private final StringBuilder text = new StringBuilder();
    private int sequence;

    ResponseEvents(Engine engine, long created, HttpServerResponse response, OpenAiRequest request, String id) {
      super(engine, created, response, request, id);
    }

    @Override
    void begin() {
      super.begin();
      beginEventStream(response);
      OpenAiResponses.responseStart(request, id, created).forEach(this::send);
    }

    @Override
    public void onToken(String token, int index) {
      text.append(token);
      send(OpenAiResponses.responseDelta(id, token));
    }

    @Override
    public void onFinished(Usage usage, String finishReason) {
      done = true;
      OpenAiResponses.responseEnd(request, id, created, text.toString(), usage).forEach(this::send);
      if (!response.ended() && !response.closed()) {
        response.end();
      }
    }

    private void send(ObjectNode event) {
      event.put("sequence_number", sequence++);
      if (!response.ended() && !response.closed()) {
        response.write("event: " + event.get("type").asText() + "\ndata: " + event + "\n\n");
      }
    }
  }

  static final class Streaming extends Responder {
    Streaming(Engine engine, long created, HttpServerResponse response, OpenAiRequest request, String id) {
      super(engine, created, response, request, id);
    }

    @Override
    void begin() {
      super.begin();
      beginEventStream(response);
    }

    @Override
    public void onToken(String token, int index) {
      send(OpenAiResponses.chunk(request, id, created, token, index == 0, null));
    }

    @Override
    public void onFinished(Usage usage, String finishReason) {
      done = true;
      send(OpenAiResponses.chunk(request, id, created, request.chat() ? null : "", false, finishReason));
      if (request.includeUsage()) {
        send(OpenAiResponses.usageChunk(request, id, created, usage));
      }
      if (!response.ended() && !response.closed()) {
        response.end("data: [DONE]\n\n");
      }
    }

    private void send(Object chunk) {
      if (!response.ended() && !response.closed()) {
        response.write("data: " + chunk + "\n\n");
      }
    }
  }
}
