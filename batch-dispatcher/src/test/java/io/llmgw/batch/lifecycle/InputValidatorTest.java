package io.llmgw.batch.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.batch.shared.BatchSettings;
import io.llmgw.batch.store.Batch;
import io.llmgw.batch.store.LineError;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InputValidatorTest {
  static final Batch BATCH = Batch.created("batch_1", "/v1/chat/completions", "file-1", "24h", Map.of(), 100, 200);
  static final Map<String, String> MODELS = Map.of("m", "ns/pool");
  final InputValidator validator = new InputValidator(BatchSettings.defaults().withLimits(1 << 20, 200, 3));

  static String line(String id, String model) {
    return "{\"custom_id\":\"" + id + "\",\"method\":\"POST\",\"url\":\"/v1/chat/completions\",\"body\":{\"model\":\""
        + model + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}}";
  }

  TwoPasses run(String content) throws Exception {
    return TwoPasses.run(validator, BATCH, content.getBytes(StandardCharsets.UTF_8),
        MODELS);
  }

  @Test
  void queuesGoodLinesWithTheirPoolAndDeadlineAndSendsUnroutedOnesToTheErrorFile() throws Exception {
    TwoPasses o = run(line("a", "m") + "\r\n\n" + line("b", "nobody-serves-this") + "\n");
    assertThat(o.errors()).isEmpty();
    assertThat(o.total()).isEqualTo(2);
    assertThat(o.lines()).singleElement().satisfies(l -> {
      assertThat(l.customId()).isEqualTo("a");
      assertThat(l.line()).isEqualTo(1);
      assertThat(l.pool()).isEqualTo("ns/pool");
      assertThat(l.deadline()).isEqualTo(200_000);
      assertThat(l.body()).startsWith("{\"model\":\"m\"");
    });
    assertThat(o.known()).singleElement().satisfies(r -> {
      assertThat(r.line()).isEqualTo(3);
      assertThat(r.ok()).isFalse();
      assertThat(r.json()).contains("model_not_found").contains("nobody-serves-this");
    });
  }

  @Test
  void everyBadLineIsNamedByItsNumber() throws Exception {
    InputValidator validator = new InputValidator(BatchSettings.defaults());
    String content = String.join("\n", line("a", "m"), "{not json", "[1]", line("a", "m"),
        line("c", "m").replace("POST", "GET"), line("d", "m").replace("/v1/chat/completions", "/v1/embeddings"),
        "{\"custom_id\":\"e\",\"method\":\"POST\",\"url\":\"/v1/chat/completions\",\"body\":{}}",
        line("f", "m").replace("\"messages\"", "\"stream\":true,\"messages\""));
    TwoPasses o = TwoPasses.run(validator, BATCH, content.getBytes(StandardCharsets.UTF_8), MODELS);
    assertThat(o.lines()).isEmpty();
    assertThat(o.errors()).extracting(LineError::line).containsExactly(2, 3, 4, 5, 6, 7, 8);
    assertThat(o.errors()).extracting(LineError::message).allSatisfy(m -> assertThat(m).startsWith("line "));
    assertThat(o.errors().get(2).message()).contains("repeats the custom_id 'a'");
    assertThat(o.errors().get(3).message()).contains("only POST");
    assertThat(o.errors().get(4).message()).contains("endpoint is /v1/chat/completions");
    assertThat(o.errors().get(5).message()).contains("body.model");
    assertThat(o.errors().get(6).message()).contains("stream");
  }

  @Test
  void aLineThatRepeatsAKeyIsRefusedAsTheGatewayRefusesSuchABody() throws Exception {
    String twice = "{\"custom_id\":\"a\",\"method\":\"POST\",\"url\":\"/v1/chat/completions\",\"body\":{\"model\":"
        + "\"m\",\"model\":\"other\",\"messages\":[]}}";
    TwoPasses o = run(line("ok", "m") + "\n" + twice + "\n");
    assertThat(o.errors()).singleElement().satisfies(e -> {
      assertThat(e.line()).isEqualTo(2);
      assertThat(e.message()).contains("line 2 repeats a key").contains("'model'");
    });
    assertThat(o.lines()).as("the batch fails whole, as for any bad line").isEmpty();
  }

  @Test
  void limitsOnLinesAndTheirSizeAndEmptyFilesAreErrors() throws Exception {
    assertThat(run(line("a", "m") + "\n" + line("b", "m").replace("hi", "x".repeat(200))).errors())
        .singleElement().satisfies(e -> {
          assertThat(e.code()).isEqualTo("line_too_large");
          assertThat(e.line()).isEqualTo(2);
        });
    assertThat(run(line("a", "m") + "\n" + line("b", "m") + "\n" + line("c", "m") + "\n" + line("d", "m")).errors())
        .singleElement().satisfies(e -> assertThat(e.code()).isEqualTo("too_many_lines"));
    assertThat(run("\n  \n").errors()).singleElement().satisfies(e -> assertThat(e.code()).isEqualTo("empty_file"));
  }

  @Test
  void aPodPriorityIsWrittenIntoBodiesThatHaveNone() throws Exception {
    InputValidator marking = new InputValidator(BatchSettings.defaults().withPodPriority(10));
    String content = line("a", "m") + "\n" + line("b", "m").replace("\"messages\"", "\"priority\":3,\"messages\"");
    TwoPasses o = TwoPasses.run(marking, BATCH, content.getBytes(StandardCharsets.UTF_8), MODELS);
    assertThat(o.lines()).extracting(l -> l.body()).satisfiesExactly(
        b -> assertThat(b).contains("\"priority\":10"),
        b -> assertThat(b).contains("\"priority\":3").doesNotContain("\"priority\":10"));
    assertThat(run(line("a", "m")).lines().getFirst().body()).doesNotContain("priority");
  }

  @Test
  void clientTextInMessagesIsClippedAndControlCharactersShown() throws Exception {
    InputValidator validator = new InputValidator(BatchSettings.defaults());
    String content = line("a", "m").replace("POST", "\\u0007" + "P".repeat(300));
    TwoPasses o = TwoPasses.run(validator, BATCH, content.getBytes(StandardCharsets.UTF_8), MODELS);
    assertThat(o.errors().getFirst().message()).contains("'?PPP").contains("...").doesNotContain("\u0007")
        .hasSizeLessThan(260);
  }
}
