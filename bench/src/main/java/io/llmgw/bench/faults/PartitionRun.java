package io.llmgw.bench.faults;

import io.llmgw.api.keys.ApiKeys;
import io.llmgw.devproxy.ProxySettings;
import io.llmgw.extproc.Epp;
import io.llmgw.extproc.EppSettings;
import io.llmgw.extproc.tenancy.controller.TenancySettings;
import io.llmgw.loadgen.Rig;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.http.SimPods;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;

/**
 * Issue 51, item 3: three EPP replicas behind the dev proxy (127.0.0.21–23), one tenant with a budget of
 * {@value #LIMIT} tokens a minute; the third replica is cut off from the other two for real ({@link LinkCut}) while
 * requests keep coming through the proxy, then the link heals. Prints one line, {@code PARTITION_RESULT} and its
 * figures: what each replica admitted, every answer's status, how long the cut and the heal took to be seen, and what
 * each replica counts the tenant to have spent afterwards. Root, in a network namespace of its own:
 * {@code FleetPartitionTest} runs it so. Usage: [PARTITION_SECONDS] (8).
 */
public final class PartitionRun {
  static final long LIMIT = 30_000;
  /** A request every 50 ms through the partition: 20 a second, most of them refused once the budget is spent. */
  private static final long PACE_NANOS = 50_000_000;
  private static final String KEY = "sk-partition-0001";
  private static final List<String> REPLICAS = List.of("127.0.0.21", "127.0.0.22", "127.0.0.23");
  private static final String BODY = "{\"model\":\"" + SimConfig.DEFAULT_MODEL + "\",\"stream\":true,\"max_tokens\":"
      + "1000,\"messages\":[{\"role\":\"user\",\"content\":\"count to a thousand\"}]}";

  private PartitionRun() {}

  public static void main(String[] args) throws Exception {
    double partitionSeconds = args.length > 0 ? Double.parseDouble(args[0]) : 8;
    Path dir = Files.createTempDirectory("llmgw-partition");
    Path keys = dir.resolve("keys.yaml");
    Files.writeString(keys, "keys:\n  - {tenant: team-a, sha256: " + ApiKeys.sha256(KEY) + "}\n");
    SimPods pods = SimPods.start(SimConfig.builder().decode(20, 1.0).seed(51).build(), 2, "127.0.0.11", 8000);
    Path config = Rig.writeConfig(dir.resolve("pool.yaml"), pods, List.of(SimConfig.DEFAULT_MODEL));
    Files.writeString(config, Files.readString(config) + "---\napiVersion: inference.x-k8s.io/v1alpha1\n"
        + "kind: TenantBudget\nmetadata: {name: team-a}\nspec: {tokensPerMinute: " + LIMIT + ", overBudget: Refuse}\n");
    EppSettings s = EppSettings.defaults(config).onLoopbackEphemeralPorts()
        .withTenancy(new TenancySettings(keys, null, Duration.ofSeconds(5)));
    LinkCut link = new LinkCut();
    try (Rig rig = Rig.start(pods, s, ProxySettings.defaults().withListener("127.0.0.1", 0), REPLICAS, true)) {
      List<Epp> epps = rig.epps();
      HttpClient client = HttpClient.newHttpClient();
      URI uri = URI.create("http://127.0.0.1:" + rig.proxyPort() + "/v1/chat/completions");
      TreeMap<Integer, Integer> statuses = new TreeMap<>();
      int before = send(client, uri, 9, statuses);
      long spentBefore = totalOwn(epps);
      await(() -> epps.stream().allMatch(e -> seen(e) == spentBefore), 10, "every replica seeing what was spent");

      long cutAt = System.nanoTime();
      link.cut(REPLICAS.get(2), REPLICAS.subList(0, 2));
      await(() -> unreachable(epps.get(2)) == 2 && unreachable(epps.get(0)) == 1 && unreachable(epps.get(1)) == 1,
          10, "the cut seen on both sides");
      long cutSeenMillis = (System.nanoTime() - cutAt) / 1_000_000;
      long[] ownBefore = epps.stream().mapToLong(PartitionRun::own).toArray();
      int during = 0;
      long until = cutAt + (long) (partitionSeconds * 1e9);
      for (long next = System.nanoTime(); System.nanoTime() - until < 0; next += PACE_NANOS) {
        during += send(client, uri, 1, statuses);
        long wait = next + PACE_NANOS - System.nanoTime();
        if (wait > 0) {
          Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000)); // pacing an open loop, not synchronising
        }
      }
      long[] admittedDuring = new long[epps.size()];
      for (int i = 0; i < epps.size(); i++) {
        admittedDuring[i] = own(epps.get(i)) - ownBefore[i];
      }
      long spentByPartitionEnd = totalOwn(epps);
      long healAt = System.nanoTime();
      link.heal();
      await(() -> epps.stream().allMatch(e -> unreachable(e) == 0), 30, "every replica hearing every other again");
      long healSeenMillis = (System.nanoTime() - healAt) / 1_000_000;
      long total = totalOwn(epps);
      await(() -> epps.stream().allMatch(e -> seen(e) == total), 10, "every replica counting what was spent once");
      System.out.printf(Locale.ROOT, "PARTITION_RESULT limit=%d spentBefore=%d admittedBefore=%d admittedDuring=%d "
          + "spentByPartitionEnd=%d islandAdmitted=%d restAdmitted=%d statuses=%s cutSeenMillis=%d "
          + "healSeenMillis=%d partitionSeconds=%.1f%n", LIMIT, spentBefore, before, during, spentByPartitionEnd,
          admittedDuring[2], admittedDuring[0] + admittedDuring[1], statuses.toString().replace(" ", ""),
          cutSeenMillis, healSeenMillis, partitionSeconds);
    } finally {
      link.heal();
    }
    System.exit(0);
  }

  /** Sends {@code n} streamed requests one after another; each is dropped once its status is known. */
  private static int send(HttpClient client, URI uri, int n, TreeMap<Integer, Integer> statuses) throws Exception {
    int admitted = 0;
    for (int i = 0; i < n; i++) {
      HttpRequest r = HttpRequest.newBuilder(uri).header("Authorization", "Bearer " + KEY)
          .header("Content-Type", "application/json").timeout(Duration.ofSeconds(10))
          .POST(HttpRequest.BodyPublishers.ofString(BODY)).build();
      int status;
      try {
        HttpResponse<InputStream> response = client.send(r, HttpResponse.BodyHandlers.ofInputStream());
        status = response.statusCode();
        try (InputStream body = response.body()) {
          body.readNBytes(status == 200 ? 1 : Integer.MAX_VALUE); // a started stream, cut: its reservation stays
        }
      } catch (IOException e) {
        status = -1; // lost: no answer at all
      }
      statuses.merge(status, 1, Integer::sum);
      admitted += status == 200 ? 1 : 0;
    }
    return admitted;
  }

  /** What the tenant spent through this replica itself in the last minute. */
  private static long own(Epp epp) {
    return seen(epp) - epp.datastore().peerSpend().lastMinute("team-a");
  }

  /** What this replica counts the tenant to have spent in the last minute, here and elsewhere. */
  private static long seen(Epp epp) {
    return epp.status().tenants().stream().filter(t -> t.tenant().equals("team-a")).mapToLong(t -> t.lastMinute())
        .findFirst().orElse(0);
  }

  private static long totalOwn(List<Epp> epps) {
    return epps.stream().mapToLong(PartitionRun::own).sum();
  }

  private static int unreachable(Epp epp) {
    return epp.datastore().peerSpend().unreachable();
  }

  private static void await(BooleanSupplier condition, int seconds, String what) throws InterruptedException {
    long deadline = System.nanoTime() + seconds * 1_000_000_000L;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("not within " + seconds + " s: " + what);
      }
      Thread.sleep(20); // polling a condition with a deadline, not synchronising on time
    }
  }
}
