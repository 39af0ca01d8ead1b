package io.llmgw.bench.faults;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real partition between loopback addresses: the kernel drops every packet between them (iproute2's {@code tc} on
 * {@code lo}: an HTB root whose one filtered class ends in a FIFO of length zero), so TCP on either side hears nothing
 * at all, as across a cut link. Needs root and a network namespace of its own (it reshapes that namespace's {@code lo});
 * {@code FleetPartitionTest} runs it in a fresh one. Loopback only: the addresses must be in 127.0.0.0/8.
 */
public final class LinkCut {
  private boolean shaped;

  /** Cuts {@code island} off from each of {@code others}, both ways. */
  public void cut(String island, List<String> others) throws IOException, InterruptedException {
    for (String a : others) {
      requireLoopback(a);
    }
    requireLoopback(island);
    if (!shaped) {
      tc("qdisc", "add", "dev", "lo", "root", "handle", "1:", "htb", "default", "10", "r2q", "100000");
      tc("class", "add", "dev", "lo", "parent", "1:", "classid", "1:10", "htb", "rate", "100gbit", "quantum",
          "200000");
      tc("class", "add", "dev", "lo", "parent", "1:", "classid", "1:20", "htb", "rate", "8kbit", "quantum", "1514");
      tc("qdisc", "add", "dev", "lo", "parent", "1:20", "handle", "20:", "pfifo", "limit", "0");
      shaped = true;
    }
    for (String other : others) {
      drop(island, other);
      drop(other, island);
    }
  }

  /** Every link is whole again. */
  public void heal() throws IOException, InterruptedException {
    if (shaped) {
      tc("qdisc", "del", "dev", "lo", "root");
      shaped = false;
    }
  }

  private static void drop(String from, String to) throws IOException, InterruptedException {
    tc("filter", "add", "dev", "lo", "parent", "1:", "protocol", "ip", "prio", "1", "u32", "match", "ip", "src",
        from + "/32", "match", "ip", "dst", to + "/32", "flowid", "1:20");
  }

  private static void requireLoopback(String address) {
    if (!address.startsWith("127.")) {
      throw new IllegalArgumentException("a link cut stays on loopback; " + address + " is not in 127.0.0.0/8");
    }
  }

  private static void tc(String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("tc"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IOException(String.join(" ", cmd) + " failed: " + out);
    }
  }
}
