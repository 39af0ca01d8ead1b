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
  /** The answer decided beforehand (structured output, a tool call); null for the engine's own words. */
  final Plan plan;
  Sequence sequence;
  boolean done;

  Responder(Engine engine, long created, HttpServerResponse response, OpenAiRequest request, String id, Plan plan) {
    this.engine = engine;
    this.created = created;
    this.response = response;
    this.request = request;
    this.id = id;
    this.plan = plan;
  }

  /** Token {@code index}'s text: the engine's word, or the planned answer's next characters. */
  String text(String token, int index) {
    return plan == null ? token : plan.piece(index);
  }

  String finish(String engineReason) {
    return plan == null ? engineReason : plan.finish(engineReason);
  }

  /** The usage as a chat or completion answer reports it: the cache only with --enable-prompt-tokens-details. */
  Usage reported(Usage usage) {
    return engine.config().promptTokensDetails() ? usage
        : new Usage(usage.promptTokens(), usage.completionTokens(), -1);
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
    Whole(Engine engine, long created, HttpServerResponse response, OpenAiRequest request, String id, Plan plan,
        IntFunction<ObjectNode> kvTransfer) {
      super(engine, created, response, request, id, plan);
      this.kvTransfer = kvTransfer;
    }

    @Override
    public void onToken(String token, int index) {
      text.append(text(token, index));
    }

    @Override
    public void onFinished(Usage usage, String finishReason) {
      done = true;
      var answer = request.api() == OpenAiRequest.Api.RESPONSES
          ? ResponsesShapes.response(request, id, created, text.toString(), finishReason, usage, plan)
          : plan != null && plan.toolCall()
              ? OpenAiResponses.wholeToolCall(request, id, created, plan, text.toString(), finish(finishReason),
                  reported(usage))
          : OpenAiResponses.answer(request, id, created, text.toString(), finish(finishReason), reported(usage));
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

    ResponseEvents(Engine engine, long created, HttpServerResponse response, OpenAiRequest request, String id,
        Plan plan) {
      super(engine, created, response, request, id, plan);
    }

    @Override
    void begin() {
      super.begin();
      beginEventStream(response);
      ResponsesShapes.start(request, id, created, plan).forEach(this::send);
    }

    @Override
    public void onToken(String token, int index) {
      String piece = text(token, index);
      text.append(piece);
      send(ResponsesShapes.delta(id, piece, plan));
    }

    @Override
    public void onFinished(Usage usage, String finishReason) {
      done = true;
      ResponsesShapes.end(request, id, created, text.toString(), finishReason, usage, plan).forEach(this::send);
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
    Streaming(Engine engine, long created, HttpServerResponse response, OpenAiRequest request, String id,
        Plan plan) {
      super(engine, created, response, request, id, plan);
    }

    @Override
    void begin() {
      super.begin();
      beginEventStream(response);
    }

    @Override
    public void onToken(String token, int index) {
      send(plan != null && plan.toolCall()
          ? OpenAiResponses.toolCallChunk(request, id, created, plan, plan.piece(index), index == 0)
          : OpenAiResponses.chunk(request, id, created, text(token, index), index == 0, null));
    }

    @Override
    public void onFinished(Usage usage, String finishReason) {
      done = true;
      send(OpenAiResponses.chunk(request, id, created, request.chat() ? null : "", false, finish(finishReason)));
      if (request.includeUsage()) {
        send(OpenAiResponses.usageChunk(request, id, created, reported(usage)));
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
