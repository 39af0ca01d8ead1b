package io.llmgw.loadgen;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * What clients ask for: which models (adapters or the base model) with what popularity, and how long prompts and
 * outputs are. An entry may be a request class {@code model#class}: the body names {@code model}, the class's headers
 * go with it (requirements, a fairness id), and results are kept per class. Requests share prompt prefixes as real use cases do: each model has {@code prefixesPerModel} system
 * prompts (one per use case, or many documents asked about), picked uniformly; the user turn varies.
 *
 * @param cumulative cumulative popularity, last entry 1.0
 * @param systemTokens length of each shared system prompt
 * @param turnsMin with {@code turnsMax} above 0, requests come as conversations of this many turns or more, each turn
 *     repeating the conversation so far ({@link Conversation})
 */
public record Workload(String name, List<String> models, double[] cumulative, int prefixesPerModel,
    int systemTokens, int userTokensMin, int userTokensMax, int outputTokensMin, int outputTokensMax,
    Map<String, Map<String, String>> headers, int turnsMin, int turnsMax) {

  private static final String[] WORDS = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi "
      + "omicron pi rho sigma tau upsilon phi chi psi omega").split(" ");

  public Workload {
    models = List.copyOf(models);
    headers = Map.copyOf(headers);
    if (models.isEmpty() || cumulative.length != models.size()
        || Math.abs(cumulative[cumulative.length - 1] - 1.0) > 1e-9) {
      throw new IllegalArgumentException("a workload needs one cumulative weight per model, ending at 1");
    }
  }

  /**
   * GIE's multi-LoRA shape: 15 adapters in three groups of five taking 60 %, 30 % and 10 % of the traffic, to be run
   * with {@code --max-loras 3}.
   */
  public static Workload multiLora() {
    List<String> names = new ArrayList<>();
    double[] weights = new double[15];
    for (int i = 0; i < 15; i++) {
      names.add("lora-%02d".formatted(i));
      weights[i] = (i < 5 ? 0.60 : i < 10 ? 0.30 : 0.10) / 5;
    }
    return new Workload("multi-lora", names, cumulate(weights), 1, 256, 32, 256, 16, 96, Map.of(), 0, 0);
  }

  /** A long tail: {@code n} adapters with Zipf(s) popularity. */
  public static Workload zipf(int n, double s) {
    List<String> names = new ArrayList<>();
    double[] weights = new double[n];
    for (int i = 0; i < n; i++) {
      names.add("lora-%04d".formatted(i));
      weights[i] = 1.0 / Math.pow(i + 1, s);
    }
    return new Workload("zipf-" + n, names, cumulate(weights), 1, 256, 32, 256, 16, 96, Map.of(), 0, 0);
  }

  /**
   * Questions about {@code documents} long documents on the base model: prefix-cache affinity decides TTFT once the
   * documents outgrow one pod's KV cache.
   */
  public static Workload prefix(String baseModel, int documents) {
    return new Workload("prefix-" + documents, List.of(baseModel), new double[] {1.0}, documents, 1500, 16, 64, 16,
        64, Map.of(), 0, 0);
  }

  /**
   * Chat sessions on the base model: 4 to 8 turns, each sending the whole conversation so far (a shared system prompt,
   * then every user turn and reply), so a turn's prompt starts with the previous turn's. Session affinity and prefix
   * affinity both aim at the pod holding that history in its cache.
   */
  public static Workload chat(String baseModel) {
    return new Workload("chat", List.of(baseModel), new double[] {1.0}, 1, 256, 64, 256, 32, 128, Map.of(), 4, 8);
  }

  /** Whether requests come as conversations. */
  boolean conversational() {
    return turnsMax > 0;
  }

  double meanTurns() {
    return conversational() ? (turnsMin + turnsMax) / 2.0 : 1;
  }

  int turns(Random random) {
    return turnsMin + random.nextInt(turnsMax - turnsMin + 1);
  }

  /** Words to the given number of tokens (4 characters each, as the simulator counts). */
  static String words(Random random, int tokens) {
    StringBuilder out = new StringBuilder();
    while (out.length() < tokens * 4) {
      out.append(WORDS[random.nextInt(WORDS.length)]).append(' ');
    }
    return out.toString();
  }

  /** The system prompt every conversation of a model starts with. */
  String systemPrompt(String model) {
    return "You serve the use case " + model + ". " + words(new Random(model.hashCode() * 31L), systemTokens);
  }

  int userTokens(Random random) {
    return userTokensMin + random.nextInt(userTokensMax - userTokensMin + 1);
  }

  /** Any models with the given relative weights. */
  public static Workload of(String name, List<String> models, double[] weights, int outputMin, int outputMax) {
    return new Workload(name, models, cumulate(weights), 1, 128, 16, 128, outputMin, outputMax, Map.of(), 0, 0);
  }

  /** Request classes ({@code model#class}) with their weights and the headers each sends. */
  public static Workload classes(String name, List<String> classes, double[] weights,
      Map<String, Map<String, String>> headers, int outputMin, int outputMax) {
    return new Workload(name, classes, cumulate(weights), 1, 128, 16, 128, outputMin, outputMax, headers, 0, 0);
  }

  /** The model a class's requests name in their body. */
  public static String modelOf(String entry) {
    int hash = entry.indexOf('#');
    return hash < 0 ? entry : entry.substring(0, hash);
  }

  static double[] cumulate(double[] weights) {
    double total = 0;
    for (double w : weights) {
      total += w;
    }
    double[] out = new double[weights.length];
    double run = 0;
    for (int i = 0; i < weights.length; i++) {
      run += weights[i] / total;
      out[i] = run;
    }
    out[out.length - 1] = 1.0;
    return out;
  }

  int pickModel(Random random) {
    double u = random.nextDouble();
    int lo = 0;
    int hi = cumulative.length - 1;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (cumulative[mid] < u) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** One streaming chat request body; tokens are taken as 4 characters, as the simulator counts them. */
  String body(Random random, int model, int outputTokens) {
    String name = modelOf(models.get(model));
    int prefix = prefixesPerModel == 1 ? 0 : random.nextInt(prefixesPerModel);
    StringBuilder system = new StringBuilder("You serve the use case ").append(name).append(", document ")
        .append(prefix).append(". ");
    system.append(words(new Random(name.hashCode() * 31L + prefix), systemTokens));
    String user = words(random, userTokens(random));
    return "{\"model\":\"" + name + "\",\"stream\":true,\"stream_options\":{\"include_usage\":true},"
        + "\"max_tokens\":" + outputTokens + ",\"messages\":[{\"role\":\"system\",\"content\":\"" + system
        + "\"},{\"role\":\"user\",\"content\":\"" + user + "\"}]}";
  }

  int outputTokens(Random random) {
    return outputTokensMin + random.nextInt(outputTokensMax - outputTokensMin + 1);
  }
}
