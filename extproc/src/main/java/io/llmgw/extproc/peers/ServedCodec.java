package io.llmgw.extproc.peers;

import io.llmgw.extproc.flow.core.ServedOutbox;
import io.llmgw.extproc.flow.core.ServedTokens;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The last section of a version-6 message: what the sender's flows were charged since its last message, per pool set,
 * band and flow (token fairness across replicas). Only a watcher that asked for it gets it ({@link PeerLoadService}),
 * so a replica from before it never reads one.
 */
final class ServedCodec {
  static final int MAX_FLOWS = ServedOutbox.MAX_FLOWS;
  /** What the section may take of a message, whatever the flows' names. */
  private static final int MAX_BYTES = PeerLoadService.MAX_MESSAGE_BYTES / 8;
  /** Far above what any flow is charged in 25 ms; a larger figure, or one that is not a number, is garbage. */
  static final double MAX_TOKENS = 1L << 40;

  private ServedCodec() {}

  /**
   * A tick ({@link PeerSnapshotCodec#encode} without replicas held unheard, version 4) with what flows were charged
   * after it: version 6, for the watchers that asked for it. The tick itself when nothing was charged.
   *
   * @param served at most {@link #fitting} of them
   */
  static byte[] appendTo(byte[] tick, List<ServedTokens> served) {
    if (served.isEmpty()) {
      return tick;
    }
    if (tick[0] != PeerSnapshotCodec.WITHOUT_DEPARTED) {
      throw new IllegalArgumentException("not a tick: version " + tick[0]);
    }
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(tick.length + 64 + 32 * served.size());
      DataOutputStream out = new DataOutputStream(bytes);
      out.write(tick);
      out.writeShort(0); // no replicas held unheard: a tick carries none
      write(out, served);
      byte[] message = bytes.toByteArray();
      message[0] = PeerSnapshotCodec.VERSION;
      return message;
    } catch (IOException e) {
      throw new IllegalStateException(e); // a byte array does not fail
    }
  }

  /** How many of the charges, first first, the section's caps let a message carry; the rest are left out. */
  static int fitting(List<ServedTokens> served) {
    int n = 0;
    long bytes = 0;
    for (ServedTokens s : served) {
      bytes += 16 + 3L * PeerSnapshotCodec.clip(s.pools()).length() + 3L * PeerSnapshotCodec.clip(s.flowId()).length();
      if (n == MAX_FLOWS || bytes > MAX_BYTES) {
        break;
      }
      n++;
    }
    return n;
  }

  private static void write(DataOutputStream out, List<ServedTokens> served) throws IOException {
    if (served.size() > fitting(served)) {
      throw new IllegalArgumentException(served.size() + " charges, more than a message carries");
    }
    out.writeShort(served.size());
    for (ServedTokens s : served) {
      out.writeUTF(PeerSnapshotCodec.clip(s.pools()));
      out.writeInt(s.priority());
      out.writeUTF(PeerSnapshotCodec.clip(s.flowId()));
      out.writeDouble(s.tokens());
    }
  }

  static List<ServedTokens> read(DataInputStream in) throws IOException {
    int n = in.readUnsignedShort();
    if (n > MAX_FLOWS) {
      throw new IOException(n + " flows charged, more than " + MAX_FLOWS);
    }
    List<ServedTokens> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      String pools = PeerSnapshotCodec.text(in);
      int priority = in.readInt();
      String flow = PeerSnapshotCodec.text(in);
      double tokens = in.readDouble();
      if (!(Math.abs(tokens) <= MAX_TOKENS)) { // NaN fails too
        throw new IOException("a flow charged " + tokens + " tokens, outside ±" + (long) MAX_TOKENS);
      }
      out.add(new ServedTokens(pools, priority, flow, tokens));
    }
    return out;
  }
}
