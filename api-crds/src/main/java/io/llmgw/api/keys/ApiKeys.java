package io.llmgw.api.keys;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The API keys a gateway accepts, as a file holds them: the SHA-256 of each key (never the key), the tenant it names,
 * and whether it may act for other tenants (the batch service's own key, which sends each line for its owner). The
 * file is YAML:
 *
 * <pre>
 * keys:
 *   - tenant: team-a
 *     sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
 *   - tenant: batch-service
 *     sha256: …
 *     actsForOthers: true
 * </pre>
 *
 * Errors name the entry and the field, never a hash or a key.
 */
public final class ApiKeys {
  /** The most keys a file may hold; more is a mistake, not a configuration. */
  public static final int MAX_KEYS = 100_000;
  /** The longest key checked; a longer header value is refused without hashing it. */
  public static final int MAX_KEY_LENGTH = 512;
  private static final Pattern HEX_SHA256 = Pattern.compile("[0-9a-f]{64}");
  private static final Pattern TENANT = Pattern.compile("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?");
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  /** Who a key names. */
  public record Holder(String tenant, boolean actsForOthers) {}

  private final Map<String, Holder> byHash;
  private final Set<String> tenants;

  private ApiKeys(Map<String, Holder> byHash) {
    this.byHash = Map.copyOf(byHash);
    this.tenants = byHash.values().stream().map(Holder::tenant)
        .collect(Collectors.toUnmodifiableSet());
  }

  /** Whether some key may act for other tenants (a batch service's own key). */
  public boolean anyActsForOthers() {
    return byHash.values().stream().anyMatch(Holder::actsForOthers);
  }

  /** The tenants the keys name. */
  public Set<String> tenants() {
    return tenants;
  }

  /** A file read entry by entry: the keys of the entries that are well-formed, and what is wrong with the others. */
  public record Reading(ApiKeys keys, List<String> refused) {}

  /** The file, every entry well-formed; the first problem otherwise (start-up: a bad file stops it). */
  public static ApiKeys parse(String text) throws IOException {
    Reading r = read(text);
    if (!r.refused().isEmpty()) {
      throw new IOException(r.refused().getFirst());
    }
    return r.keys();
  }

  /**
   * Reads the file entry by entry: an entry that is not well-formed is refused, named, and left out, the others are
   * taken. Only a file that cannot be read as a keys file at all (not YAML, no keys list, an unknown top-level field,
   * too many keys) fails whole. A key listed twice is refused in every place it is listed: which tenant it names is
   * not clear.
   */
  public static Reading read(String text) throws IOException {
    JsonNode root;
    try {
      root = YAML.readTree(text);
    } catch (IOException e) {
      throw new IOException("not valid YAML (a mapping with a 'keys' list is expected)");
    }
    if (root == null || !root.isObject() || !root.path("keys").isArray()) {
      throw new IOException("needs a 'keys' list");
    }
    Set<String> top = Set.of("keys");
    for (Iterator<String> it = root.fieldNames(); it.hasNext();) {
      String f = it.next();
      if (!top.contains(f)) {
        throw new IOException("unknown field '" + printable(f) + "' (expected keys)");
      }
    }
    JsonNode keys = root.get("keys");
    if (keys.size() > MAX_KEYS) {
      throw new IOException("holds " + keys.size() + " keys, more than the limit of " + MAX_KEYS);
    }
    Map<String, Holder> out = new HashMap<>();
    Map<String, Integer> firstAt = new HashMap<>();
    Set<String> twice = new HashSet<>();
    List<String> refused = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      String where = "keys[" + i + "]";
      String problem = problem(keys.get(i), where);
      if (problem != null) {
        refused.add(problem);
        continue;
      }
      String hash = keys.get(i).get("sha256").asText();
      Integer first = firstAt.putIfAbsent(hash, i);
      if (first != null) {
        if (twice.add(hash)) {
          refused.add("keys[" + first + "].sha256: the same key is listed again, at " + where);
        }
        refused.add(where + ".sha256: the same key is listed twice");
        continue;
      }
      out.put(hash, new Holder(keys.get(i).get("tenant").asText(), keys.get(i).path("actsForOthers").asBoolean(false)));
    }
    out.keySet().removeAll(twice);
    return new Reading(new ApiKeys(out), List.copyOf(refused));
  }

  /** What is wrong with one entry, or null. */
  private static String problem(JsonNode k, String where) {
    if (!k.isObject()) {
      return where + ": must be a mapping with tenant and sha256";
    }
    for (Iterator<String> it = k.fieldNames(); it.hasNext();) {
      String f = it.next();
      if (!Set.of("tenant", "sha256", "actsForOthers").contains(f)) {
        return where + ": unknown field '" + printable(f) + "' (expected tenant, sha256, actsForOthers)";
      }
    }
    if (!k.path("tenant").isTextual() || !TENANT.matcher(k.path("tenant").asText()).matches()) {
      return where + ".tenant: must be a tenant name (lower-case letters, digits, '-' and '.')";
    }
    if (!k.path("sha256").isTextual() || !HEX_SHA256.matcher(k.path("sha256").asText()).matches()) {
      return where + ".sha256: must be 64 lower-case hex digits (the key's SHA-256, "
          + "e.g. printf %s \"$KEY\" | sha256sum)";
    }
    JsonNode acts = k.path("actsForOthers");
    if (!acts.isMissingNode() && !acts.isBoolean()) {
      return where + ".actsForOthers: must be true or false";
    }
    return null;
  }

  /** Who {@code key} names, or null when it is none of these keys. */
  public Holder holder(String key) {
    return byHash.get(sha256(key));
  }

  public int size() {
    return byHash.size();
  }

  /** Whether {@code tenant} is a well-formed tenant name (what a trusted header or an on-behalf-of may name). */
  public static boolean isTenantName(String tenant) {
    return tenant != null && tenant.length() <= 253 && TENANT.matcher(tenant).matches();
  }

  /** What a keys file holds for {@code key}: its SHA-256 in lower-case hex ({@code printf %s KEY | sha256sum}). */
  public static String sha256(String key) {
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  private static String printable(String s) {
    String clipped = s.length() > 40 ? s.substring(0, 40) + "…" : s;
    return clipped.replaceAll("[^\\x20-\\x7e…]", "?");
  }
}
