package io.llmgw.sim.engine;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * Measured step costs of one published serving configuration ({@code sim --profile NAME}): a properties file whose
 * keys are the simulator's flags without their dashes. The shipped ones sit in {@code sim-profiles/} on the class
 * path; a path names an operator's own. Every key below is required, so that a profile cannot silently fall back to the
 * simulator's invented defaults for the cost it forgot.
 *
 * @param name the profile's name (the file's, without {@code .properties})
 * @param values key to value, each checked to be a finite number that is not negative
 */
public record SimProfile(String name, String model, Map<String, Double> values) {
  /** The profiles shipped with the simulator, calibrated in sim/README.md. */
  public static final List<String> SHIPPED = List.of("llama-3.1-8b-h100", "qwen2.5-72b-tp4-h100");

  static final List<String> KEYS = List.of("max-num-seqs", "max-num-batched-tokens", "num-gpu-blocks",
      "prefill-overhead-ms", "prefill-per-token-ms", "decode-base-ms", "decode-per-seq-ms", "decode-per-kv-token-us",
      "api-overhead-ms", "kv-transfer-per-token-us", "lora-swap-ms", "lora-load-ms");

  public SimProfile {
    values = Map.copyOf(values);
  }

  /** A shipped profile by name, or a file by path; a clear {@link IllegalArgumentException} for anything else. */
  public static SimProfile load(String nameOrPath) {
    Properties p = new Properties();
    String name = nameOrPath;
    try (InputStream shipped = SimProfile.class.getResourceAsStream("/sim-profiles/" + nameOrPath + ".properties")) {
      if (shipped != null) {
        p.load(new InputStreamReader(shipped, StandardCharsets.UTF_8));
        return parse(name, p);
      }
    } catch (IOException e) {
      throw new IllegalArgumentException("--profile " + nameOrPath + ": cannot be read: " + e.getMessage(), e);
    }
    Path file = Path.of(nameOrPath);
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException("--profile " + nameOrPath + ": neither a shipped profile " + SHIPPED
          + " nor a readable file");
    }
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(r);
    } catch (IOException | IllegalArgumentException e) { // Properties refuses a malformed unicode escape so
      throw new IllegalArgumentException("--profile " + nameOrPath + ": cannot be read: " + e.getMessage(), e);
    }
    return parse(file.getFileName().toString().replaceFirst("\\.properties$", ""), p);
  }

  static SimProfile parse(String name, Properties p) {
    Map<String, Double> values = new TreeMap<>();
    for (String key : p.stringPropertyNames()) {
      if (!key.equals("model") && !KEYS.contains(key)) {
        throw new IllegalArgumentException("profile " + name + ": unknown key '" + key + "' (known: model, " + KEYS
            + ")");
      }
    }
    for (String key : KEYS) {
      String raw = p.getProperty(key);
      if (raw == null || raw.isBlank()) {
        throw new IllegalArgumentException("profile " + name + ": missing cost '" + key + "'");
      }
      double v;
      try {
        v = Double.parseDouble(raw.trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("profile " + name + ": '" + key + "' is not a number: " + raw.trim(), e);
      }
      if (!Double.isFinite(v) || v < 0) {
        throw new IllegalArgumentException("profile " + name + ": '" + key + "' must be a finite number that is not "
            + "negative, got " + raw.trim());
      }
      values.put(key, v);
    }
    String model = p.getProperty("model", SimConfig.DEFAULT_MODEL).trim();
    return new SimProfile(name, model.isEmpty() ? SimConfig.DEFAULT_MODEL : model, values);
  }

  /** The LoRA rank the profile's swap and load costs are for. */
  public static final int PROFILE_LORA_RANK = 16;

  /** Sets the profile's model, capacity and costs on {@code b}; flags given on the command line then override them. */
  public SimConfig.Builder applyTo(SimConfig.Builder b) {
    return applyTo(b, PROFILE_LORA_RANK);
  }

  /**
   * As {@link #applyTo(SimConfig.Builder)} for adapters of {@code loraRank}: an adapter's bytes, and so the time to
   * read it or move it to the GPU, grow in proportion to its rank.
   */
  public SimConfig.Builder applyTo(SimConfig.Builder b, int loraRank) {
    if (loraRank < 1 || loraRank > 1024) {
      throw new IllegalArgumentException("--lora-rank must be within 1..1024, got " + loraRank);
    }
    double byRank = loraRank / (double) PROFILE_LORA_RANK;
    return b.model(model)
        .capacity(whole("max-num-seqs"), SimConfig.defaults().maxWaiting(), whole("num-gpu-blocks"))
        .maxNumBatchedTokens(whole("max-num-batched-tokens"))
        .prefill(values.get("prefill-overhead-ms"), values.get("prefill-per-token-ms"))
        .decode(values.get("decode-base-ms"), values.get("decode-per-seq-ms"))
        .decodePerKvToken(values.get("decode-per-kv-token-us"))
        .kvTransferPerToken(values.get("kv-transfer-per-token-us")).apiOverhead(values.get("api-overhead-ms"))
        .loraLatency(values.get("lora-load-ms") * byRank, values.get("lora-swap-ms") * byRank);
  }

  private int whole(String key) {
    return (int) Math.min(Integer.MAX_VALUE, Math.round(values.get(key)));
  }
}
