package io.llmgw.sim.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.llmgw.chattemplate.ChatTokenizer;
import io.llmgw.sim.engine.Engine;
import io.llmgw.sim.engine.KvEventSink;
import io.llmgw.sim.engine.LoadResult;
import io.llmgw.sim.engine.Sequence;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.engine.SimRequest;
import io.llmgw.sim.kvpublish.KvEventPublisher;
import io.vertx.core.AbstractVerticle;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One simulated vLLM server on {@code host:port}: the OpenAI endpoints, {@code /health}, {@code /metrics} and the
 * runtime LoRA API over one {@link Engine}. A verticle, so that the HTTP handlers, the engine and its timers share one
 * event loop and the engine needs no locks.
 */
public final class SimServer extends AbstractVerticle {
  private static final Logger LOG = LoggerFactory.getLogger(SimServer.class);
  static final int MAX_BODY_BYTES = 16 << 20;
  static final String RETURN_ERROR = "x-return-error";

  private final SimConfig config;
  private final ChatTokenizer model;
  private final String host;
  private final int port;
  private final SplittableRandom random;
  /** The seed of this pod's block hashes, which only the pod knows (vLLM draws its own at random). */
  private final long blockHashSeed;
  private volatile Engine engine;
  private final AtomicLong renders = new AtomicLong();
  private KvEventPublisher kvEvents;
  private HttpServer server;
  private KvHandoffs handoffs;
  private PdSidecar sidecar;
  private io.grpc.Server runtime;
  private long responses;

  /** @param model a model's own files, to tokenize prompts as vLLM serving it would; null: the simulator's tokens */
  public SimServer(SimConfig config, String host, int port, ChatTokenizer model) {
    this.model = model;
    this.config = config;
    this.host = host;
    this.port = port;
    this.random = new SplittableRandom(config.seed());
    this.blockHashSeed = new SplittableRandom(~config.seed()).nextLong();
  }

  @Override
  public void start(Promise<Void> started) {
    if (config.kvEvents().enabled()) {
      try {
        kvEvents = new KvEventPublisher(config.kvEvents(), host);
      } catch (RuntimeException e) {
        started.fail(new IllegalStateException("cannot bind the KV-event sockets on " + host + ":"
            + config.kvEvents().port() + "/" + config.kvEvents().replayPort() + ": " + e.getMessage(), e));
        return;
      }
    }
    engine = new Engine(config, new VertxScheduler(vertx), kvEvents == null ? KvEventSink.NONE : kvEvents);
    if (config.runtimePort() > 0) {
      try {
        runtime = NettyServerBuilder
            .forAddress(new InetSocketAddress(host, config.runtimePort()))
            .addService(new SimModelRuntime(context, engine, config)).build().start();
      } catch (IOException e) {
        started.fail(e);
        return;
      }
    }
    handoffs = new KvHandoffs(config, new VertxScheduler(vertx), "sim-" + host + "-" + Long.toHexString(blockHashSeed));
    sidecar = new PdSidecar(vertx, engine.metrics(), host + ":" + port);
    server = vertx.createHttpServer(new HttpServerOptions().setHost(host).setPort(port).setIdleTimeout(300));
    server.requestHandler(this::handle).listen().<Void>map(s -> null).onComplete(started);
  }

  /** Fault injection: the pod's KV-event publisher dies (its subscribers see the connection go), the engine lives. */
  public void cutKvEvents() throws InterruptedException {
    if (kvEvents != null) {
      kvEvents.close();
    }
  }

  public String address() {
    return host + ":" + (server == null ? port : server.actualPort());
  }

  /** Requests to the render endpoints, answered or not, for in-process inspection. */
  public long renders() {
    return renders.get();
  }

  /** The engine, for in-process inspection. Its counters are safe to read from any thread. */
  public Engine engine() {
    return engine;
  }

  private void handle(HttpServerRequest req) {
    String path = req.path();
    boolean post = req.method() == HttpMethod.POST;
    switch (path) {
      case "/health" -> req.response().setStatusCode(200).end();
      case "/metrics" -> metrics(req.response(), List.of());
      case "/v1/models" -> SimHttp.json(req.response(), 200,
          OpenAiResponses.models(config.model(), System.currentTimeMillis() / 1000, engine.adapters(),
              config.maxModelLen()));
      case "/v1/chat/completions", "/v1/completions", "/v1/embeddings", "/v1/responses" -> {
        if (post) {
          SimHttp.withBody(req, body -> generate(req, API.get(path), body));
        } else {
          SimHttp.methodNotAllowed(req);
        }
      }
      case RenderEndpoint.CHAT_PATH, RenderEndpoint.COMPLETIONS_PATH -> {
        if (post) {
          renders.incrementAndGet();
          SimHttp.withBody(req, body -> RenderEndpoint.answer(req, body, model));
        } else {
          SimHttp.methodNotAllowed(req);
        }
      }
      case KvHandoffs.PULL_PATH -> {
        if (post) {
          SimHttp.withBody(req, body -> pull(req, body));
        } else {
          SimHttp.methodNotAllowed(req);
        }
      }
      case "/reset_prefix_cache" -> {
        if (post) {
          engine.resetPrefixCache();
          req.response().setStatusCode(200).end();
        } else {
          SimHttp.methodNotAllowed(req);
        }
      }
      case "/v1/load_lora_adapter", "/v1/unload_lora_adapter" -> {
        if (post) {
          SimHttp.withBody(req, body -> lora(req, path.equals("/v1/load_lora_adapter"), body));
        } else {
          SimHttp.methodNotAllowed(req);
        }
      }
      default -> {
        if (path.startsWith("/metrics/")) {
          metrics(req.response(), MetricsPage.askedNames(req));
        } else {
          SimHttp.error(req.response(), 404, "NotFoundError", "no route for " + req.method() + " " + path);
        }
      }
    }
  }

  private static final Map<String, OpenAiRequest.Api> API = Map.of(
      "/v1/chat/completions", OpenAiRequest.Api.CHAT, "/v1/completions", OpenAiRequest.Api.COMPLETIONS,
      "/v1/embeddings", OpenAiRequest.Api.EMBEDDINGS, "/v1/responses", OpenAiRequest.Api.RESPONSES);

  private void generate(HttpServerRequest req, OpenAiRequest.Api api, Buffer bytes) {
    OpenAiRequest request;
    JsonNode json;
    int[] promptIds;
    try {
      json = SimHttp.readJson(bytes);
      request = OpenAiRequest.parse(api, json, config.autoToolChoice(), random);
      promptIds = ModelPrompts.tokenIds(model, api, json);
    } catch (IllegalArgumentException e) {
      LOG.info("{}: 400 for {}: {}", address(), req.path(), e.getMessage());
      SimHttp.error(req.response(), 400, "BadRequestError", e.getMessage());
      return;
    }
    if (request.priority() != 0 && !config.priorityScheduling()) {
      // vLLM's engine refuses a priority it would not honour rather than ignore it
      SimHttp.error(req.response(), 400, "BadRequestError", "Got priority " + request.priority()
          + " but Priority scheduling is not enabled.");
      return;
    }
    String injected = req.getHeader(RETURN_ERROR);
    if (injected != null) {
      int code = SimHttp.parseStatus(injected);
      if (code < 0) {
        SimHttp.error(req.response(), 400, "BadRequestError", RETURN_ERROR + " must be an HTTP status 400..599, got '"
            + injected + "'");
      } else {
        SimHttp.error(req.response(), code, "InjectedError", "error injected by the " + RETURN_ERROR + " header");
      }
      return;
    }
    if (config.failureRate() > 0 && random.nextDouble() < config.failureRate()) {
      SimHttp.error(req.response(), 500, "InternalServerError", "simulated failure (--failure-rate)");
      return;
    }
    boolean remoteDecode = KvHandoffs.remoteDecode(json);
    String prefiller = req.getHeader(PdSidecar.PREFILLER);
    if (prefiller != null && !remoteDecode && config.role().decodes()
        && (api == OpenAiRequest.Api.CHAT || api == OpenAiRequest.Api.COMPLETIONS)) {
      sidecar.prefillThenDecode(req.path(), json, prefiller, pulled -> {
        if (!req.response().closed()) {
          serve(req, api, request, promptIds, pulled, false);
        }
      });
      return;
    }
    serve(req, api, request, promptIds, 0, remoteDecode && !request.stream());
  }

  /**
   * @param pulledTokens prompt tokens whose KV cache a prefill pod computed and this pod pulled (0: none)
   * @param forDecodePod a prefill for a decode pod: its KV cache is held for the pull, and the answer says where
   */
  private void serve(HttpServerRequest req, OpenAiRequest.Api api, OpenAiRequest request, int[] promptIds,
      int pulledTokens, boolean forDecodePod) {
    String adapter = request.model().equals(config.model()) ? null : request.model();
    Plan plan = request.plan();
    SimRequest sim = request.toEngine(adapter, config.blockSize(), blockHashSeed, config.meanOutputTokens(),
        random, promptIds);
    if (pulledTokens > 0) {
      sim = sim.withRemoteKv(Math.min(pulledTokens, sim.promptTokens()));
    }
    String id = OpenAiResponses.id(api, responses++);
    long created = System.currentTimeMillis() / 1000; // vLLM's: when this response was made
    Responder responder;
    if (!request.stream()) {
      responder = new Responder.Whole(engine, created, req.response(), request, id, plan, forDecodePod
          ? promptTokens -> handoffs.hold(promptTokens, host, server.actualPort()) : null);
    } else if (api == OpenAiRequest.Api.RESPONSES) {
      responder = new Responder.ResponseEvents(engine, created, req.response(), request, id, plan);
    } else {
      responder = new Responder.Streaming(engine, created, req.response(), request, id, plan);
    }
    switch (engine.submit(sim, responder)) {
      case Sequence s -> {
        responder.sequence = s;
        responder.begin();
      }
      case Engine.Refusal r -> {
        switch (r) {
          case QUEUE_FULL -> SimHttp.error(req.response(), 429, "TooManyRequests", "the waiting queue is full ("
              + config.maxWaiting() + ")");
          case TOO_LONG -> SimHttp.error(req.response(), 400, "BadRequestError", "prompt (" + sim.promptTokens()
              + " tokens) plus max_tokens (" + sim.maxTokens() + ") exceeds max_model_len " + config.maxModelLen());
          case UNKNOWN_MODEL -> SimHttp.error(req.response(), 404, "NotFoundError", "The model `" + request.model()
              + "` does not exist.");
        }
      }
    }
  }

  /** A decode pod pulls a prompt's KV cache this pod computed for it ({@link KvHandoffs}). */
  private void pull(HttpServerRequest req, Buffer bytes) {
    JsonNode body;
    try {
      body = SimHttp.readJson(bytes);
    } catch (IllegalArgumentException e) {
      SimHttp.error(req.response(), 400, "BadRequestError", e.getMessage());
      return;
    }
    handoffs.pull(body, tokens -> {
      if (tokens == null) {
        SimHttp.error(req.response(), 404, "NotFoundError", "no KV cache is held for those blocks");
      } else {
        SimHttp.json(req.response(), 200, OpenAiResponses.JSON.createObjectNode().put("tokens", tokens));
      }
    });
  }

  private void lora(HttpServerRequest req, boolean load, Buffer bytes) {
    JsonNode body;
    try {
      body = SimHttp.readJson(bytes);
    } catch (IllegalArgumentException e) {
      LOG.info("{}: 400 for {}: {}", address(), req.path(), e.getMessage());
      SimHttp.text(req.response(), 400, e.getMessage());
      return;
    }
    String name = body == null ? "" : body.path("lora_name").asText("");
    String path = body == null ? "" : body.path("lora_path").asText("");
    if (name.isBlank() || (load && path.isBlank())) {
      LOG.info("{}: 400 for {}: lora_name{} missing", address(), req.path(), load ? " or lora_path" : "");
      SimHttp.text(req.response(), 400, load ? "'lora_name' and 'lora_path' are required" : "'lora_name' is required");
      return;
    }
    if (load) {
      engine.load(name, path, r -> {
        logLora("load", name, r);
        SimHttp.text(req.response(), r.status(), r.message());
      });
    } else {
      LoadResult r = engine.unload(name);
      logLora("unload", name, r);
      SimHttp.text(req.response(), r.status(), r.message());
    }
  }

  private void logLora(String op, String name, LoadResult r) {
    if (r.status() == 200) {
      LOG.info("{}: {} of adapter {} succeeded", address(), op, name);
    } else {
      LOG.info("{}: {} of adapter {} answered {}: {}", address(), op, name, r.status(), r.message());
    }
  }

  private void metrics(HttpServerResponse response, List<String> names) {
    response.putHeader("content-type", MetricsPage.CONTENT_TYPE)
        .end(Buffer.buffer(MetricsPage.render(engine.metrics().registry(), names)));
  }

  @Override
  public void stop() {
    LOG.info("{}: stopping", address());
    if (sidecar != null) {
      sidecar.close();
    }
    if (runtime != null) {
      runtime.shutdownNow();
    }
    if (kvEvents != null) {
      try {
        kvEvents.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
