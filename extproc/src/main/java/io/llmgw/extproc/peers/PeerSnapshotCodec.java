package io.llmgw.extproc.peers;

import io.llmgw.extproc.flow.core.ServedTokens;
import io.llmgw.extproc.state.EndpointLoad;
import io.llmgw.extproc.state.PeerLoad;
import io.llmgw.extproc.state.PeerSpend;
import io.llmgw.extproc.state.PeerSpend.Departed;
import io.llmgw.picker.routed.RoutedBlocks;
import io.llmgw.picker.routed.RoutedPrefixes;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A replica's in-flight counts on the wire, one message every tick: a version, the sender's id (so a replica that finds
 * itself among its peers can tell), then per endpoint with requests in flight its address, total, counts per model,
 * the send times of those the pod's report may not show yet, and the requests still in prefill with their uncached
 * prompt tokens; then what tenants spent through it; then the prompt blocks it routed since its last message, which
 * its peers' approximate prefix indexes learn; then, in a greeting, the replicas whose spending the sender holds without
 * hearing them (so a replica that starts or restarts holds them too); then, to a watcher that asked for it, what its
 * flows were charged ({@link ServedCodec}). Every count has a cap, so a garbled or hostile message
 * costs a bounded read and is refused whole.
 */
final class PeerSnapshotCodec {
  static final int VERSION = 6;
  /** What replicas before fairness across replicas send, and what a watcher that did not ask for it gets. */
  static final int WITHOUT_SERVED = 5;
  /** What replicas before budgets held across restarts send: read without the replicas held unheard. */
  static final int WITHOUT_DEPARTED = 4;
  /** What replicas before shared prefix indexes send: read as counts and spending, with nothing routed. */
  static final int WITHOUT_ROUTED = 3;
  /** What replicas before tenants' budgets send: read as counts without tenants' spending. */
  static final int WITHOUT_TENANTS = 2;
  /** What replicas before prefill tokens send; read during a rolling upgrade, as counts without prefill figures. */
  static final int WITHOUT_PREFILL = 1;
  static final int MAX_ENDPOINTS = 4096;
  static final int MAX_MODELS = 64;
  static final int MAX_UNSEEN = 256;
  /** Far above any pod's prefill backlog; a larger figure is garbage, not load. */
  static final long MAX_PREFILL_TOKENS = 1L << 40;
  static final int MAX_TENANTS = 4096;
  /** Block hashes and prompts in one message: what {@link RoutedPrefixes} collects at most in a tick. */
  static final int MAX_ROUTED_BLOCKS = RoutedPrefixes.MAX_OUTBOX_BLOCKS;
  static final int MAX_ROUTED_PICKS = RoutedPrefixes.MAX_OUTBOX_PICKS;
  /** What the routed prompts may take of a message, whatever their pods' names: half the largest message read. */
  private static final int MAX_ROUTED_BYTES = PeerLoadService.MAX_MESSAGE_BYTES / 2;
  /** What the replicas held unheard may take of a message (only a greeting carries them). */
  private static final int MAX_DEPARTED_BYTES = PeerLoadService.MAX_MESSAGE_BYTES / 4;
  /** Larger than any prefix scorer's block size ({@code blockSize} is at most 1 MiB). */
  private static final int MAX_BLOCK_BYTES = 1 << 20;
  private static final int MAX_TEXT = 512;

  /**
   * One decoded message.
   *
   * @param spendByTenant per tenant with a budget: tokens spent through the sender in the last minute, in the last
   *     day, and its requests in flight there
   * @param routed prompt blocks the sender routed since its last message
   * @param departed replicas whose spending the sender holds without hearing them (in a greeting; empty otherwise)
   * @param served what the sender's flows were charged since its last message
   */
  record Snapshot(String sender, Map<String, PeerLoad> byEndpoint, Map<String, long[]> spendByTenant,
      List<RoutedBlocks> routed, List<Departed> departed, List<ServedTokens> served) {}

  private PeerSnapshotCodec() {}

  static byte[] encode(String sender, Map<String, EndpointLoad> loads, Map<String, long[]> spendByTenant,
      List<RoutedBlocks> routed) {
    return encode(sender, loads, spendByTenant, routed, List.of());
  }

  static byte[] encode(String sender, Map<String, EndpointLoad> loads, Map<String, long[]> spendByTenant,
      List<RoutedBlocks> routed, List<Departed> departed) {
    // read each endpoint once, then write: counts change while this runs
    List<Map.Entry<String, PeerLoad>> busy = new ArrayList<>();
    for (Map.Entry<String, EndpointLoad> e : loads.entrySet()) {
      EndpointLoad l = e.getValue();
      if (l.total() > 0 && busy.size() < MAX_ENDPOINTS) {
        busy.add(Map.entry(e.getKey(), new PeerLoad(l.total(), l.perModel(), l.unseenSentMillis(MAX_UNSEEN),
            l.inPrefill(), l.prefillTokens())));
      }
    }
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + 64 * busy.size());
      DataOutputStream out = new DataOutputStream(bytes);
      // only a greeting that carries replicas held unheard needs version 5: ticks stay readable by replicas before it
      boolean withDeparted = !departed.isEmpty();
      out.writeByte(withDeparted ? WITHOUT_SERVED : WITHOUT_DEPARTED);
      out.writeUTF(sender);
      out.writeShort(busy.size());
      for (Map.Entry<String, PeerLoad> e : busy) {
        PeerLoad l = e.getValue();
        out.writeUTF(clip(e.getKey()));
        out.writeInt(l.total());
        int m = Math.min(l.byModel().size(), MAX_MODELS);
        out.writeByte(m);
        int k = 0;
        for (Map.Entry<String, Integer> me : l.byModel().entrySet()) {
          if (k++ == m) {
            break;
          }
          out.writeUTF(clip(me.getKey()));
          out.writeInt(me.getValue());
        }
        out.writeShort(l.unseenSentMillis().length);
        for (long t : l.unseenSentMillis()) {
          out.writeLong(t);
        }
        out.writeInt(Math.max(0, l.inPrefill()));
        out.writeLong(Math.max(0, l.prefillTokens()));
      }
      int t = Math.min(spendByTenant.size(), MAX_TENANTS);
      out.writeShort(t);
      for (Map.Entry<String, long[]> e : spendByTenant.entrySet()) {
        if (t-- == 0) {
          break;
        }
        out.writeUTF(clip(e.getKey()));
        out.writeLong(Math.max(0, e.getValue()[0]));
        out.writeLong(Math.max(0, e.getValue()[1]));
        out.writeInt((int) Math.min(Integer.MAX_VALUE, Math.max(0, e.getValue()[2])));
      }
      writeRouted(out, routed);
      if (withDeparted) {
        writeDeparted(out, departed);
      }
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new IllegalStateException(e); // a byte array does not fail
    }
  }

  /**
   * Each pick's block size, pod and hashes, within the message's caps; the outbox holds no more than they allow, so
   * only pods with names far longer than addresses could leave some out.
   */
  private static void writeRouted(DataOutputStream out, List<RoutedBlocks> routed) throws IOException {
    int picks = 0;
    int blocks = 0;
    long bytes = 0;
    for (RoutedBlocks r : routed) {
      blocks += r.blocks().length;
      bytes += 10 + 3L * clip(r.address()).length() + 8L * r.blocks().length; // UTF-8 takes at most 3 bytes a char
      if (picks == MAX_ROUTED_PICKS || blocks > MAX_ROUTED_BLOCKS || bytes > MAX_ROUTED_BYTES) {
        break;
      }
      picks++;
    }
    out.writeInt(picks);
    for (int i = 0; i < picks; i++) {
      RoutedBlocks r = routed.get(i);
      out.writeInt(r.blockBytes());
      out.writeUTF(clip(r.address()));
      out.writeInt(r.blocks().length);
      for (long b : r.blocks()) {
        out.writeLong(b);
      }
    }
  }

  /** The replicas held unheard, newest first, within the count and the bytes they may take. */
  private static void writeDeparted(DataOutputStream out, List<Departed> departed) throws IOException {
    List<Departed> newest = departed.stream().sorted(Comparator.comparingLong(Departed::ageMillis))
        .limit(PeerSpend.MAX_DEPARTED).toList();
    int n = 0;
    long bytes = 0;
    for (Departed d : newest) {
      bytes += 12 + 3L * clip(d.sender()).length();
      for (String tenant : d.byTenant().keySet()) {
        bytes += 18 + 3L * clip(tenant).length();
      }
      if (bytes > MAX_DEPARTED_BYTES || d.byTenant().size() > MAX_TENANTS) {
        break;
      }
      n++;
    }
    out.writeShort(n);
    for (Departed d : newest.subList(0, n)) {
      out.writeUTF(clip(d.sender()));
      out.writeLong(Math.max(0, d.ageMillis()));
      out.writeShort(d.byTenant().size());
      for (Map.Entry<String, long[]> e : d.byTenant().entrySet()) {
        out.writeUTF(clip(e.getKey()));
        out.writeLong(Math.max(0, e.getValue()[0]));
        out.writeLong(Math.max(0, e.getValue()[1]));
      }
    }
  }

  private static List<Departed> readDeparted(DataInputStream in) throws IOException {
    int n = bounded(in.readUnsignedShort(), PeerSpend.MAX_DEPARTED, "replicas held unheard");
    List<Departed> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      String sender = text(in);
      long age = in.readLong();
      if (age < 0) {
        throw new IOException("a negative age of a replica held unheard");
      }
      int t = bounded(in.readUnsignedShort(), MAX_TENANTS, "tenants of a replica held unheard");
      Map<String, long[]> spend = new HashMap<>(t * 2);
      for (int j = 0; j < t; j++) {
        String tenant = text(in);
        long minute = in.readLong();
        long day = in.readLong();
        if (minute < 0 || day < 0 || minute > MAX_PREFILL_TOKENS || day > MAX_PREFILL_TOKENS || minute > day) {
          throw new IOException("spending of a replica held unheard outside 0–" + MAX_PREFILL_TOKENS
              + " or its minute over its day");
        }
        spend.put(tenant, new long[] {minute, day, 0});
      }
      out.add(new Departed(sender, age, Map.copyOf(spend)));
    }
    return out;
  }

  private static List<RoutedBlocks> readRouted(DataInputStream in) throws IOException {
    int picks = bounded(nonNegative(in.readInt(), "count of routed prompts"), MAX_ROUTED_PICKS, "routed prompts");
    List<RoutedBlocks> out = new ArrayList<>(Math.min(picks, 1024));
    int total = 0;
    for (int i = 0; i < picks; i++) {
      int blockBytes = in.readInt();
      if (blockBytes < 1 || blockBytes > MAX_BLOCK_BYTES) {
        throw new IOException("a block size of " + blockBytes + " bytes, outside 1–" + MAX_BLOCK_BYTES);
      }
      String address = text(in);
      int n = nonNegative(in.readInt(), "count of routed blocks");
      total += bounded(n, MAX_ROUTED_BLOCKS - total, "routed blocks beyond the message's " + MAX_ROUTED_BLOCKS);
      long[] blocks = new long[n];
      for (int j = 0; j < n; j++) {
        blocks[j] = in.readLong();
      }
      out.add(new RoutedBlocks(blockBytes, address, blocks));
    }
    return out;
  }

  /** @throws IOException naming what is wrong, for any message that is not one this version writes */
  static Snapshot decode(byte[] message) throws IOException {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(message));
    int version = in.readUnsignedByte();
    if (version < WITHOUT_PREFILL || version > VERSION) {
      throw new IOException("unknown version " + version);
    }
    String sender = text(in);
    int n = bounded(in.readUnsignedShort(), MAX_ENDPOINTS, "endpoints");
    Map<String, PeerLoad> out = new HashMap<>(n * 2);
    for (int i = 0; i < n; i++) {
      String address = text(in);
      int total = nonNegative(in.readInt(), "total");
      int m = bounded(in.readUnsignedByte(), MAX_MODELS, "models");
      Map<String, Integer> models = new HashMap<>(m * 2);
      for (int j = 0; j < m; j++) {
        models.put(text(in), nonNegative(in.readInt(), "model count"));
      }
      int u = bounded(in.readUnsignedShort(), MAX_UNSEEN, "unseen requests");
      long[] unseen = new long[u];
      for (int j = 0; j < u; j++) {
        unseen[j] = in.readLong();
      }
      if (version == WITHOUT_PREFILL) {
        out.put(address, new PeerLoad(total, Map.copyOf(models), unseen));
        continue;
      }
      int inPrefill = nonNegative(in.readInt(), "count in prefill");
      long prefillTokens = in.readLong();
      if (prefillTokens < 0 || prefillTokens > MAX_PREFILL_TOKENS) {
        throw new IOException(prefillTokens + " prefill tokens, outside 0–" + MAX_PREFILL_TOKENS);
      }
      out.put(address, new PeerLoad(total, Map.copyOf(models), unseen, inPrefill, prefillTokens));
    }
    Map<String, long[]> spend = Map.of();
    if (version >= WITHOUT_ROUTED) {
      int t = bounded(in.readUnsignedShort(), MAX_TENANTS, "tenants");
      spend = new HashMap<>(t * 2);
      for (int i = 0; i < t; i++) {
        String tenant = text(in);
        long minute = in.readLong();
        long day = in.readLong();
        int inFlight = nonNegative(in.readInt(), "count of a tenant's requests");
        if (minute < 0 || day < 0 || minute > MAX_PREFILL_TOKENS || day > MAX_PREFILL_TOKENS) {
          throw new IOException("tenant spending outside 0–" + MAX_PREFILL_TOKENS);
        }
        spend.put(tenant, new long[] {minute, day, inFlight});
      }
    }
    List<RoutedBlocks> routed = version >= WITHOUT_DEPARTED ? readRouted(in) : List.of();
    List<Departed> departed = version >= WITHOUT_SERVED ? readDeparted(in) : List.of();
    List<ServedTokens> served = version == VERSION ? ServedCodec.read(in) : List.of();
    if (in.available() > 0) {
      throw new IOException(in.available() + " bytes after the last " + (version == VERSION ? "flow charged"
          : version == WITHOUT_SERVED ? "replica held unheard" : version == WITHOUT_DEPARTED ? "routed prompt"
          : version == WITHOUT_ROUTED ? "tenant" : "endpoint"));
    }
    return new Snapshot(sender, out, spend, routed, departed, served);
  }

  static String clip(String s) {
    return s.length() <= MAX_TEXT ? s : s.substring(0, MAX_TEXT);
  }

  static String text(DataInputStream in) throws IOException {
    String s = in.readUTF();
    if (s.length() > MAX_TEXT) {
      throw new IOException("a name longer than " + MAX_TEXT + " characters");
    }
    return s;
  }

  private static int bounded(int n, int max, String what) throws IOException {
    if (n > max) {
      throw new IOException(n + " " + what + ", more than " + max);
    }
    return n;
  }

  private static int nonNegative(int n, String what) throws IOException {
    if (n < 0) {
      throw new IOException("a negative " + what);
    }
    return n;
  }
}
