package io.llmgw.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.llmgw.chattemplate.ChatTokenizer;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * What rendering and tokenizing a chat prompt costs in CPU, as the EPP's {@code hf:} tokenizer does it for each
 * request: conversations of about 1k, 10k and 100k tokens (many turns of varied text), parsed from JSON, rendered with
 * the model's chat template and tokenized, on one thread, its CPU time read per request after a warm-up. First sight:
 * the whole prompt tokenized; next turn: the conversation with one new user turn, its history's pieces already seen.
 * In process: the work measured is the whole of what is timed, there is no client to be the bottleneck.
 *
 * <p>{@code java -cp bench/target/benchmarks.jar io.llmgw.bench.TokenizeCostRun MODEL_DIR [seconds per size]}
 */
public final class TokenizeCostRun {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] WORDS = ("the of and to in is for that on with as by at from this be are an or it "
      + "which routing cache prefix tokenizer latency throughput gateway engine adapter request response model pool "
      + "replica decode prefill memory kernel batch schedule queue priority objective tenant budget capacity "
      + "événement über naïve 東京 数据 😀").split(" ");

  private TokenizeCostRun() {
  }

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 10;
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    try (ChatTokenizer model = ChatTokenizer.open(dir)) {
      System.out.printf("model %s, %.0f s per cell after as long a warm-up, one thread; tokenized in cached pieces: "
          + "%s%n", dir.getFileName(), seconds, model.reusesPieces());
      System.out.println("| prompt tokens | body bytes | first sight: parse + render, tokenize, total ms CPU | "
          + "next turn (history seen, ~100 new tokens): total ms CPU | next turn requests/s per core |");
      System.out.println("|---:|---:|---|---:|---:|");
      for (int target : new int[] {1_000, 10_000, 100_000}) {
        ObjectNode conversation = conversation(model, target);
        byte[] body = JSON.writeValueAsBytes(conversation);
        run(model, conversation, seconds, threads, false); // warm-up
        long[] cold = run(model, conversation, seconds, threads, false);
        run(model, conversation, seconds, threads, true);
        long[] warm = run(model, conversation, seconds, threads, true);
        double coldRender = cold[1] / 1e6 / cold[0];
        double coldEncode = cold[2] / 1e6 / cold[0];
        double warmTotal = (warm[1] + warm[2]) / 1e6 / warm[0];
        System.out.printf("| %,d | %,d | %.2f + %.2f = %.2f | %.2f | %,.0f |%n", cold[3], body.length, coldRender,
            coldEncode, coldRender + coldEncode, warmTotal, 1000 / warmTotal);
      }
    }
  }

  /**
   * Requests, parse and render CPU ns, tokenize CPU ns, tokens of the last. {@code nextTurn}: each request is the
   * conversation with one new user turn (its history already seen); else the conversation itself, tokenized whole.
   */
  private static long[] run(ChatTokenizer model, ObjectNode conversation, double seconds, ThreadMXBean threads,
      boolean nextTurn) throws Exception {
    long end = System.nanoTime() + (long) (seconds * 1e9);
    SplittableRandom random = new SplittableRandom(7);
    long n = 0;
    long render = 0;
    long encode = 0;
    long tokens = 0;
    while (System.nanoTime() < end || n < 3) {
      byte[] body;
      if (nextTurn) {
        ObjectNode request = conversation.deepCopy();
        ((ArrayNode) request.get("messages")).addObject().put("role", "user").put("content", text(random, 70));
        body = JSON.writeValueAsBytes(request);
      } else {
        body = JSON.writeValueAsBytes(conversation);
      }
      long t0 = threads.getCurrentThreadCpuTime();
      JsonNode request = JSON.readTree(body);
      String prompt = model.render(request);
      long t1 = threads.getCurrentThreadCpuTime();
      tokens = (nextTurn ? model.encodeRendered(prompt) : model.encodeWhole(prompt)).length;
      long t2 = threads.getCurrentThreadCpuTime();
      render += t1 - t0;
      encode += t2 - t1;
      n++;
    }
    return new long[] {n, render, encode, tokens};
  }

  private static String text(SplittableRandom random, int words) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < words; i++) {
      text.append(i == 0 ? "" : random.nextInt(15) == 0 ? ".\n" : " ").append(WORDS[random.nextInt(WORDS.length)]);
    }
    return text.toString();
  }

  /** A many-turn conversation of about {@code tokens} tokens for this model. */
  static ObjectNode conversation(ChatTokenizer model, int tokens) {
    SplittableRandom random = new SplittableRandom(tokens);
    ObjectNode request = JSON.createObjectNode().put("model", "m");
    ArrayNode messages = request.putArray("messages");
    messages.addObject().put("role", "system").put("content", "You are a careful assistant for platform teams.");
    int turn = 0;
    while (model.encodeWhole(model.render(request)).length < tokens) {
      messages.addObject().put("role", turn++ % 2 == 0 ? "user" : "assistant")
          .put("content", text(random, 40 + random.nextInt(Math.max(41, tokens / 20))));
    }
    return request;
  }
}
