package io.llmgw.cli.e2e;

import static io.llmgw.cli.e2e.Gateways.BASE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.openai.client.OpenAIClient;
import com.openai.core.http.StreamResponse;
import com.openai.errors.NotFoundException;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
import com.openai.models.completions.Completion;
import com.openai.models.completions.CompletionCreateParams;
import io.llmgw.loadgen.PoolStats;
import io.llmgw.loadgen.Rig;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The official OpenAI Java SDK → dev proxy → EPP → simulated pods on 127.0.0.121-123. */
class OpenAiClientEndToEndTest {
  static Rig rig;
  static OpenAIClient client;

  @BeforeAll
  static void start() throws Exception {
    rig = Gateways.start("127.0.0.121", 3, true);
    client = Gateways.client(rig.proxyPort());
  }

  @AfterAll
  static void stop() throws Exception {
    client.close();
    rig.close();
  }

  static ChatCompletionCreateParams chat(String model, long tokens) {
    return ChatCompletionCreateParams.builder().model(model).addUserMessage("Which tables hold orders?")
        .maxCompletionTokens(tokens).build();
  }

  @Test
  void chatCompletionThroughAnAdapterRoute() {
    ChatCompletion c = client.chat().completions().create(chat("sql-lora", 6));
    assertThat(c.model()).isEqualTo("sql-lora");
    assertThat(c.choices().getFirst().message().content().orElseThrow().split(" ")).hasSize(6);
    assertThat(c.usage().orElseThrow().completionTokens()).isEqualTo(6);
    assertThat(PoolStats.of(rig.pods()).adapterUsesAndHits()).containsKey("sql-lora");
  }

  @Test
  void streamedChatOnTheBaseModelArrivesTokenByTokenWithUsage() {
    ChatCompletionCreateParams params = chat(BASE, 8).toBuilder()
        .streamOptions(ChatCompletionStreamOptions.builder().includeUsage(true).build()).build();
    List<String> pieces = new ArrayList<>();
    long[] usage = {-1};
    try (StreamResponse<ChatCompletionChunk> stream = client.chat().completions().createStreaming(params)) {
      stream.stream().forEach(chunk -> {
        assertThat(chunk.model()).isEqualTo(BASE);
        chunk.choices().forEach(ch -> ch.delta().content().filter(s -> !s.isEmpty()).ifPresent(pieces::add));
        chunk.usage().ifPresent(u -> usage[0] = u.completionTokens());
      });
    }
    assertThat(pieces).hasSize(8);
    assertThat(usage[0]).isEqualTo(8);
  }

  @Test
  void completionsWholeAndStreamed() {
    CompletionCreateParams params = CompletionCreateParams.builder().model("chat-lora").prompt("Once upon a time")
        .maxTokens(5).build();
    Completion whole = client.completions().create(params);
    assertThat(whole.model()).isEqualTo("chat-lora");
    assertThat(whole.choices().getFirst().text().split(" ")).hasSize(5);
    List<String> pieces = new ArrayList<>();
    try (StreamResponse<Completion> stream = client.completions().createStreaming(params)) {
      stream.stream().forEach(c -> c.choices().forEach(ch -> {
        if (!ch.text().isEmpty()) {
          pieces.add(ch.text());
        }
      }));
    }
    assertThat(pieces).hasSize(5);
  }

  @Test
  void anUnknownModelIsTheSdksNotFoundError() {
    assertThatThrownBy(() -> client.chat().completions().create(chat("gpt-nonexistent", 3)))
        .isInstanceOf(NotFoundException.class)
        .hasMessageContaining("gpt-nonexistent");
  }

  @Test
  void modelListComesFromTheRoutes() {
    assertThat(client.models().list().data()).extracting(m -> m.id())
        .contains(BASE, "sql-lora", "chat-lora");
  }

  /** Issue 16: the SDK's models.retrieve, answered from the routes, and the SDK's not-found for a model none has. */
  @Test
  void oneModelIsRetrievedByItsIdEvenWithSlashesInIt() {
    assertThat(client.models().retrieve(com.openai.models.models.ModelRetrieveParams.builder().model("sql-lora")
        .build()).id()).isEqualTo("sql-lora");
    assertThat(client.models().retrieve(com.openai.models.models.ModelRetrieveParams.builder().model(BASE)
        .build()).id()).as("a base model named org/name").isEqualTo(BASE);
    assertThatThrownBy(() -> client.models().retrieve(com.openai.models.models.ModelRetrieveParams.builder()
        .model("gpt-nonexistent").build())).isInstanceOf(NotFoundException.class)
        .hasMessageContaining("gpt-nonexistent");
  }

  /** Issue 16: embeddings are routed by their body's model like chat, and served in vLLM's shape. */
  @Test
  void embeddingsThroughTheGateway() {
    var e = client.embeddings().create(com.openai.models.embeddings.EmbeddingCreateParams.builder().model(BASE)
        .inputOfArrayOfStrings(List.of("one", "two")).build());
    assertThat(e.data()).hasSize(2);
    assertThat(e.data().getFirst().embedding()).hasSize(64);
    assertThat(e.model()).isEqualTo(BASE);
    assertThat(e.usage().promptTokens()).isPositive();
  }

  /**
   * Issue 30: the SDK asks for base64 embeddings by default (so does the Node SDK); the simulator answers as vLLM does,
   * little-endian float32, and the SDK's decoded vector is the float answer's, value for value.
   */
  @Test
  void theSdksDefaultBase64EmbeddingsDecodeToTheSameVectorAsFloats() {
    var params = com.openai.models.embeddings.EmbeddingCreateParams.builder().model(BASE).input("one").build();
    assertThat(params._body().encodingFormat()).as("the SDK's own default")
        .hasValue(com.openai.models.embeddings.EmbeddingCreateParams.EncodingFormat.BASE64);
    List<Float> byDefault = client.embeddings().create(params).data().getFirst().embedding();
    List<Float> floats = client.embeddings().create(params.toBuilder()
        .encodingFormat(com.openai.models.embeddings.EmbeddingCreateParams.EncodingFormat.FLOAT).build())
        .data().getFirst().embedding();
    assertThat(byDefault).hasSize(64).isEqualTo(floats);
    assertThat(byDefault.stream().mapToDouble(f -> f * f).sum()).as("a unit vector, not zeros").isCloseTo(1.0,
        org.assertj.core.data.Offset.offset(1e-3));
  }

  /**
   * Issue 30: a streamed Responses API call (the Vercel AI SDK's default path) through an adapter route: vLLM's events
   * in order, the deltas making the text, the model rewritten back to the route's name, the usage in the last event.
   */
  @Test
  void aStreamedResponsesCallThroughAnAdapterRoute() {
    var params = com.openai.models.responses.ResponseCreateParams.builder().model("sql-lora").input("hello")
        .maxOutputTokens(4L).build();
    StringBuilder text = new StringBuilder();
    List<String> kinds = new ArrayList<>();
    com.openai.models.responses.Response[] completed = {null};
    try (StreamResponse<com.openai.models.responses.ResponseStreamEvent> stream = client.responses()
        .createStreaming(params)) {
      stream.stream().forEach(e -> {
        e.outputTextDelta().ifPresent(d -> text.append(d.delta()));
        e.created().ifPresent(c -> kinds.add("created"));
        e.outputTextDone().ifPresent(d -> assertThat(d.text()).isEqualTo(text.toString()));
        e.completed().ifPresent(c -> completed[0] = c.response());
      });
    }
    assertThat(kinds).containsExactly("created");
    assertThat(text.toString().split(" ")).hasSize(4);
    assertThat(completed[0].model().asString()).isEqualTo("sql-lora");
    assertThat(completed[0].usage().orElseThrow().outputTokens()).isEqualTo(4);
  }

  /**
   * Issue 30: a pod's own answers, read by the SDK as it reads vLLM's: its model list (every registered adapter, with
   * its base model as parent) and an error in vLLM's shape (the SDK's typed exception, carrying the pod's message).
   */
  @Test
  void aPodsModelListAndErrorsReadAsVllmsThroughTheSdk() {
    OpenAIClient pod = com.openai.client.okhttp.OpenAIOkHttpClient.builder()
        .baseUrl("http://" + rig.pods().podAddresses().getFirst() + "/v1").apiKey("not-needed").maxRetries(0).build();
    try {
      var models = pod.models().list().data();
      assertThat(models).extracting(m -> m.id()).containsExactly(BASE, "sql-lora", "chat-lora");
      assertThat(models.get(1)._additionalProperties().get("parent").asString()).hasValue(BASE);
      assertThatThrownBy(() -> pod.chat().completions().create(chat(BASE, 100_000)))
          .isInstanceOf(com.openai.errors.BadRequestException.class)
          .hasMessageContaining("max_model_len");
    } finally {
      pod.close();
    }
  }

  /** Issue 16: the Responses API through an adapter route, the model rewritten back to the route's name. */
  @Test
  void responsesThroughAnAdapterRoute() {
    var r = client.responses().create(com.openai.models.responses.ResponseCreateParams.builder().model("sql-lora")
        .input("hello").maxOutputTokens(4L).build());
    assertThat(r.model().asString()).isEqualTo("sql-lora");
    assertThat(r.output().getFirst().message().orElseThrow().content().getFirst().outputText().orElseThrow().text())
        .isNotBlank();
    assertThat(r.usage().orElseThrow().outputTokens()).isEqualTo(4);
  }

  @Test
  void aClientThatHangsUpMidStreamFreesThePodAndTheGatewaysCount() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    HttpResponse<InputStream> r = http.send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + rig.proxyPort() + "/v1/chat/completions"))
        .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"chat-lora\",\"stream\":true,\"max_tokens\":5000,"
            + "\"messages\":[{\"role\":\"user\",\"content\":\"talk forever\"}]}"))
        .build(),
        HttpResponse.BodyHandlers.ofInputStream());
    try (BufferedReader lines = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
      assertThat(lines.readLine()).startsWith("data: ");
      assertThat(rig.pods().pods()).anySatisfy(p -> assertThat(p.engine().runningCount()).isPositive());
    }
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      assertThat(rig.pods().pods()).allSatisfy(p -> {
        assertThat(p.engine().runningCount()).as("the pod stopped generating").isZero();
        assertThat(rig.epp().datastore().inFlight().load(p.address()).total()).as("the EPP released it").isZero();
      });
    });
  }
}
