package io.llmgw.extproc.tokens;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.ByteString;
import io.llmgw.api.Causes;
import io.llmgw.chattemplate.ChatTokenizer;
import io.llmgw.chattemplate.TemplateInput;
import io.llmgw.chattemplate.jinja.TemplateException;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A model's own rendering and tokenizing, in process, from its Hugging Face files ({@code hf:DIR}): a chat or Responses
 * request is rendered with the model's chat template as vLLM renders it, and tokenized with its tokenizer; a
 * completion's prompt is tokenized with the special tokens vLLM adds. The work runs on its own threads, never an event
 * loop: at most {@code maxInFlight} requests at once (beyond, a request is matched approximately at once), each given up
 * after {@code timeout}; every outcome is counted ({@link #count}), and failures are named in sampled warnings.
 */
public final class HuggingFaceTokenizer implements Tokenizer, AutoCloseable {
  public static final String PREFIX = "hf:";
  private static final Logger LOG = LoggerFactory.getLogger(HuggingFaceTokenizer.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String name;
  private final ChatTokenizer model;
  private final ExecutorService workers;
  private final Semaphore inFlight;
  private final int maxInFlight;
  private final Duration timeout;
  private final Map<TokenizeOutcome, LongAdder> outcomes = new EnumMap<>(TokenizeOutcome.class);
  private final FallbackWarnings warnings;

  /**
   * @param path a model directory, or its {@code tokenizer.json}
   * @throws IllegalArgumentException naming the file when the model cannot be read
   */
  public HuggingFaceTokenizer(Path path, int threads, int maxInFlight, Duration timeout) {
    this(path, daemons(threads), maxInFlight, timeout);
  }

  HuggingFaceTokenizer(Path path, ExecutorService workers, int maxInFlight, Duration timeout) {
    this.name = PREFIX + path;
    this.warnings = new FallbackWarnings(LOG, "tokenizer " + name);
    this.model = ChatTokenizer.open(path);
    this.maxInFlight = maxInFlight;
    this.inFlight = new Semaphore(maxInFlight);
    this.timeout = timeout;
    this.workers = workers;
    for (TokenizeOutcome o : TokenizeOutcome.values()) {
      outcomes.put(o, new LongAdder());
    }
    if (!model.hasChatTemplate()) {
      LOG.warn("{} has no chat template: chat and Responses requests are matched approximately, completions "
          + "precisely", path);
    }
  }

  private static ExecutorService daemons(int threads) {
    AtomicInteger n = new AtomicInteger();
    return Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "tokenizer-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }

  @Override
  public String name() {
    return name;
  }

  /** Nothing is tokenized on the caller's thread: {@link #tokenize} is the way in. */
  @Override
  public int[] tokenIds(byte[] promptJson, boolean whole) {
    return null;
  }

  public long count(TokenizeOutcome outcome) {
    return outcomes.get(outcome).sum();
  }

  /**
   * Starts rendering and tokenizing one request; the future completes within the time bound with its token ids, or
   * null (counted, and for failures named in a warning); never exceptionally.
   *
   * @param api the request's path without its query: {@code /v1/chat/completions}, {@code /v1/responses} or
   *     {@code /v1/completions} (others answer null at once, uncounted)
   */
  public CompletableFuture<int[]> tokenize(String api, ByteString body) {
    Api kind = Api.of(api);
    if (kind == null) {
      return CompletableFuture.completedFuture(null);
    }
    if (!inFlight.tryAcquire()) {
      outcomes.get(TokenizeOutcome.BUSY).increment();
      warnings.warn("busy", () -> "all " + maxInFlight + " permitted requests are being tokenized");
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<int[]> work = new CompletableFuture<>();
    try {
      workers.execute(() -> {
        int[] ids = null;
        Throwable failure = null;
        try {
          ids = compute(kind, body);
        } catch (Throwable e) {
          failure = e;
        } finally {
          // when the work ends, not when the caller stops waiting (the bound is on work), and before the caller hears
          // of it: a caller that tokenizes again at once finds the permit back
          inFlight.release();
        }
        if (failure != null) {
          work.completeExceptionally(failure);
        } else {
          work.complete(ids);
        }
      });
    } catch (RejectedExecutionException e) {
      inFlight.release();
      return CompletableFuture.completedFuture(null);
    }
    return work.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS).handle((ids, e) -> {
      TokenizeOutcome outcome = e == null ? TokenizeOutcome.TOKENIZED : outcome(e);
      outcomes.get(outcome).increment();
      if (outcome == TokenizeOutcome.MULTIMODAL) {
        return null; // expected, and counted: no warning
      }
      if (outcome != TokenizeOutcome.TOKENIZED) {
        warnings.warn(outcome.label(), () -> outcome == TokenizeOutcome.TIMEOUT
            ? "not tokenized within " + timeout.toMillis() + " ms"
            : api + ": " + Causes.rootMessage(e));
        return null;
      }
      return ids;
    });
  }

  private enum Api {
    CHAT, RESPONSES, COMPLETIONS;

    static Api of(String path) {
      return switch (path) {
        case "/v1/chat/completions" -> CHAT;
        case "/v1/responses" -> RESPONSES;
        case "/v1/completions" -> COMPLETIONS;
        default -> null;
      };
    }
  }

  private int[] compute(Api api, ByteString body) throws IOException {
    JsonNode request = JSON.readTree(body.newInput());
    if (request == null || !request.isObject()) {
      throw new IllegalArgumentException("the body is not a JSON object");
    }
    if (api == Api.COMPLETIONS) {
      int[] ids = model.completionIds(request.path("prompt"));
      if (ids == null) {
        throw new IllegalArgumentException("several prompts in one request");
      }
      return ids;
    }
    TemplateInput input = api == Api.CHAT ? model.chatInput(request) : model.responsesInput(request);
    if (input.hasMedia()) {
      throw new MediaInPrompt();
    }
    return model.encodeRendered(model.render(input));
  }

  /** See {@link TokenizeOutcome#MULTIMODAL}. */
  private static final class MediaInPrompt extends RuntimeException {
    MediaInPrompt() {
      super("the prompt holds media", null, false, false);
    }
  }

  private static TokenizeOutcome outcome(Throwable e) {
    Throwable cause = e.getCause() != null ? e.getCause() : e;
    if (cause instanceof TimeoutException) {
      return TokenizeOutcome.TIMEOUT;
    }
    if (cause instanceof MediaInPrompt) {
      return TokenizeOutcome.MULTIMODAL;
    }
    if (cause instanceof IllegalArgumentException || cause instanceof IOException
        || (cause instanceof TemplateException t && t.raisedByTemplate())) {
      return TokenizeOutcome.REFUSED;
    }
    return TokenizeOutcome.FAILED;
  }

  @Override
  public void close() {
    workers.shutdownNow();
    model.close();
  }
}
