package io.llmgw.batch.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmgw.batch.shared.BatchSettings;
import io.llmgw.batch.store.Batch;
import io.llmgw.batch.store.LineError;
import io.llmgw.batch.store.LineResult;
import io.llmgw.batch.store.QueuedLine;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * Any input file — good lines, garbage, lines cut anywhere, duplicate ids, wrong urls, bytes that are not text — is
 * either refused with errors that each name a line of the file, or accepted whole: every request line queued or
 * answered exactly once, under its own custom_id, with a body that is a JSON object naming a model.
 */
class BatchInputProperties {
  static final ObjectMapper JSON = new ObjectMapper();
  static final Batch BATCH = Batch.created("batch_p", "/v1/chat/completions", "file-p", "24h", Map.of(), 100, 200);
  static final Map<String, String> MODELS = Map.of("m", "ns/pool", "n", "ns/other");
  final InputValidator validator = new InputValidator(BatchSettings.defaults().withLimits(1 << 20, 400, 50));

  @Property(seed = "1414")
  void anyFileIsRefusedNamingItsLinesOrAcceptedWhole(@ForAll("files") String file) throws Exception {
    byte[] bytes = file.getBytes(StandardCharsets.UTF_8);
    int lines = file.split("\n", -1).length;
    TwoPasses o = TwoPasses.run(validator, BATCH, bytes, MODELS);
    if (!o.errors().isEmpty()) {
      assertThat(o.lines()).isEmpty();
      assertThat(o.known()).isEmpty();
      for (LineError e : o.errors()) {
        assertThat(e.line() == null || (e.line() >= 1 && e.line() <= lines)).as(e.toString()).isTrue();
        assertThat(e.message()).isNotBlank().doesNotContainPattern("[\\x00-\\x1f]");
      }
      Statistics.collect("refused", o.errors().getFirst().code());
      return;
    }
    Set<String> ids = new HashSet<>();
    for (QueuedLine q : o.lines()) {
      assertThat(ids.add(q.customId())).isTrue();
      assertThat(JSON.readTree(q.body()).path("model").isTextual()).isTrue();
      assertThat(q.pool()).isEqualTo(MODELS.get(JSON.readTree(q.body()).get("model").asText()));
    }
    for (LineResult r : o.known()) {
      assertThat(ids.add(r.customId())).isTrue();
      assertThat(r.ok()).isFalse();
    }
    assertThat(ids).hasSize(o.total());
    Statistics.collect("accepted", o.known().isEmpty() ? "all routed" : "some unrouted");
  }

  @Provide
  Arbitrary<String> files() {
    Arbitrary<String> good = Arbitraries.of("m", "n", "unrouted").flatMap(model -> Arbitraries.strings().alpha()
        .ofMinLength(1).ofMaxLength(6).map(id -> "{\"custom_id\":\"" + id + "\",\"method\":\"POST\",\"url\":"
            + "\"/v1/chat/completions\",\"body\":{\"model\":\"" + model + "\",\"messages\":[]}}"));
    Arbitrary<String> mangled = good.flatMap(l -> Arbitraries.integers().between(0, l.length())
        .map(cut -> l.substring(0, cut)));
    Arbitrary<String> odd = Arbitraries.of("", "   ", "{}", "[]", "null", "\"x\"", "{\"custom_id\":1}",
        "{\"custom_id\":\"a\",\"method\":\"GET\",\"url\":\"/v1/chat/completions\",\"body\":{\"model\":\"m\"}}",
        "{\"custom_id\":\"a\",\"method\":\"POST\",\"url\":\"/v1/embeddings\",\"body\":{\"model\":\"m\"}}",
        "{\"custom_id\":\"a\",\"method\":\"POST\",\"url\":\"/v1/chat/completions\",\"body\":{\"model\":\"m\","
            + "\"stream\":true}}",
        "\r", "{\"a\":" + "[".repeat(3000));
    Arbitrary<String> garbage = Arbitraries.strings().ofMaxLength(60);
    Arbitrary<String> line = Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(6, good), net.jqwik.api.Tuple.of(2, mangled), net.jqwik.api.Tuple.of(2, odd),
        net.jqwik.api.Tuple.of(1, garbage));
    return line.list().ofMaxSize(60).map(l -> String.join("\n", l));
  }
}
