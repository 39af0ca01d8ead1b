package io.llmgw.extproc.peers;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCallHandler;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.llmgw.picker.kvcache.EngineBlockIndex;
import io.llmgw.picker.kvcache.PodSnapshot;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the pods' KV-cache events told a replica, handed to a replica that starts (issue 51, item 2): on
 * {@code llmgw.PeerLoad/Blocks}, signed as a watch is, a peer sends each trusted pod's blocks with the batch number they
 * are as of, in pieces of at most {@link #PIECE_BYTES}; the new replica seeds its index with them before it subscribes,
 * and asks each pod to replay only the batches after that number. One transfer at a time per replica (memory: the
 * index's copy and one piece), at most {@link #MAX_BLOCKS} blocks, within the caller's deadline.
 */
final class BlockTransfer {
  private static final Logger LOG = LoggerFactory.getLogger(BlockTransfer.class);
  static final MethodDescriptor<byte[], byte[]> BLOCKS = MethodDescriptor.<byte[], byte[]>newBuilder()
      .setType(MethodDescriptor.MethodType.SERVER_STREAMING)
      .setFullMethodName(MethodDescriptor.generateFullMethodName("llmgw.PeerLoad", "Blocks"))
      .setRequestMarshaller(new PeerLoadService.Bytes())
      .setResponseMarshaller(new PeerLoadService.Bytes())
      .build();
  /** The index's own cap over all pods ({@link EngineBlockIndex#DEFAULT_MAX_BLOCKS}): 64 MiB of pairs. */
  static final long MAX_BLOCKS = EngineBlockIndex.DEFAULT_MAX_BLOCKS;
  static final int PIECE_BYTES = 256 << 10;
  private static final int VERSION = 1;
  private static final int MAX_TEXT = 512;

  private final EngineBlockIndex index;
  private final PeerKey key;
  private final SeenNonces seen = new SeenNonces();
  private final AtomicBoolean sending = new AtomicBoolean();

  BlockTransfer(EngineBlockIndex index, PeerKey key) {
    this.index = index;
    this.key = key;
  }

  ServerCallHandler<byte[], byte[]> handler() {
    return ServerCalls.asyncServerStreamingCall(this::serve);
  }

  private void serve(byte[] request, StreamObserver<byte[]> response) {
    ServerCallStreamObserver<byte[]> call = (ServerCallStreamObserver<byte[]>) response;
    byte[] nonce;
    try {
      nonce = seen.admit(key, request);
    } catch (IOException e) {
      call.onError(Status.UNAUTHENTICATED.withDescription(e.getMessage()).asRuntimeException());
      return;
    }
    if (!sending.compareAndSet(false, true)) {
      call.onError(Status.RESOURCE_EXHAUSTED.withDescription("another replica is being sent the blocks")
          .asRuntimeException());
      return;
    }
    Iterator<byte[]> pieces = new Pieces(index.export(MAX_BLOCKS));
    long[] seq = {0};
    Runnable pump = () -> {
      synchronized (pieces) {
        while (call.isReady() && pieces.hasNext() && !call.isCancelled()) {
          call.onNext(key.seal(nonce, seq[0]++, pieces.next()));
        }
        if (!pieces.hasNext() && sending.get() && !call.isCancelled()) {
          sending.set(false);
          call.onCompleted();
        }
      }
    };
    call.setOnCancelHandler(() -> sending.set(false));
    call.setOnReadyHandler(pump);
    pump.run();
  }

  /** Each pod's pairs cut into pieces; a pod may span pieces, every piece naming it and its batch. */
  static List<byte[]> pieces(List<PodSnapshot> pods) {
    List<byte[]> out = new ArrayList<>();
    new Pieces(pods).forEachRemaining(out::add);
    return out;
  }

  /** The pieces made one at a time, as the stream can take them: only one is held beside the index's copy. */
  private static final class Pieces implements Iterator<byte[]> {
    private static final int PER_PIECE = (PIECE_BYTES - 1024) / 16;
    private final Iterator<PodSnapshot> pods;
    private PodSnapshot pod;
    private int from;

    Pieces(List<PodSnapshot> pods) {
      this.pods = pods.iterator();
    }

    @Override
    public boolean hasNext() {
      return pod != null && (from < pod.blocks() || from == 0) || pods.hasNext();
    }

    @Override
    public byte[] next() {
      if (pod == null || from >= pod.blocks() && from > 0) {
        pod = pods.next();
        from = 0;
      }
      int n = Math.min(PER_PIECE, pod.blocks() - from);
      try {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + 16 * n);
        DataOutputStream piece = new DataOutputStream(bytes);
        piece.writeByte(VERSION);
        piece.writeUTF(pod.pod());
        piece.writeLong(pod.lastSeq());
        piece.writeInt(pod.blockSize());
        piece.writeBoolean(pod.offloads());
        piece.writeInt(n);
        for (int i = from; i < from + n; i++) {
          piece.writeLong(pod.engineIds()[i]);
          piece.writeLong(pod.keys()[i]);
        }
        from = n == 0 ? 1 : from + n; // an empty pod is one empty piece
        if (from >= pod.blocks() && !pods.hasNext()) {
          pod = null;
        }
        return bytes.toByteArray();
      } catch (IOException e) {
        throw new IllegalStateException(e); // a byte array does not fail
      }
    }
  }

  /** The pieces read back into one snapshot per pod. @throws IOException naming what is wrong with a piece */
  static List<PodSnapshot> read(List<byte[]> pieces) throws IOException {
    Map<String, List<long[]>> pairs = new LinkedHashMap<>();
    Map<String, long[]> heads = new LinkedHashMap<>();
    long total = 0;
    for (byte[] piece : pieces) {
      DataInputStream in = new DataInputStream(new ByteArrayInputStream(piece));
      if (in.readUnsignedByte() != VERSION) {
        throw new IOException("a piece of an unknown version");
      }
      String pod = in.readUTF();
      long lastSeq = in.readLong();
      int blockSize = in.readInt();
      boolean offloads = in.readBoolean();
      int n = in.readInt();
      total += n;
      if (pod.length() > MAX_TEXT || lastSeq < 0 || blockSize < 1 || n < 0 || total > MAX_BLOCKS
          || in.available() != 16L * n) {
        throw new IOException("a piece for '" + pod + "' that is not one (batch " + lastSeq + ", block size "
            + blockSize + ", " + n + " blocks in " + piece.length + " bytes, " + total + " in all)");
      }
      long[] head = heads.putIfAbsent(pod, new long[] {lastSeq, blockSize, offloads ? 1 : 0});
      if (head != null && (head[0] != lastSeq || head[1] != blockSize)) {
        throw new IOException("pieces for '" + pod + "' of different batches or block sizes");
      }
      long[] interleaved = new long[2 * n]; // id, key, id, key ...
      for (int i = 0; i < interleaved.length; i++) {
        interleaved[i] = in.readLong();
      }
      pairs.computeIfAbsent(pod, x -> new ArrayList<>()).add(interleaved);
    }
    List<PodSnapshot> out = new ArrayList<>();
    heads.forEach((pod, h) -> {
      int n = pairs.get(pod).stream().mapToInt(a -> a.length / 2).sum();
      long[] ids = new long[n];
      long[] keys = new long[n];
      int at = 0;
      for (long[] a : pairs.get(pod)) {
        for (int i = 0; i < a.length; i += 2) {
          ids[at] = a[i];
          keys[at++] = a[i + 1];
        }
      }
      out.add(new PodSnapshot(pod, h[0], (int) h[1], h[2] == 1, ids, keys));
    });
    return out;
  }

  /**
   * Takes what the pods told one of {@code peers} (the first that answers within {@code timeoutMillis} in all), so
   * that a replica that starts knows the blocks stored before it and each pod replays only what came after. Without a
   * peer that answers, the pods' replay buffers are all it learns from.
   */
  static void seed(List<String> peers, Function<String, ManagedChannel> channels, PeerKey key,
      EngineBlockIndex index, long timeoutMillis) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    for (String peer : peers) {
      long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      if (left <= 0) {
        return;
      }
      try {
        int seeded = 0;
        long taken = 0;
        for (PodSnapshot p : fetch(channels.apply(peer), key, left)) {
          if (index.seed(p)) {
            seeded++;
            taken += p.blocks();
          }
        }
        LOG.info("KV-cache index: {} blocks of {} pods from peer replica {}; each pod replays from the batch after "
            + "the one they are as of", taken, seeded, peer);
        return;
      } catch (IOException | RuntimeException e) {
        LOG.info("KV-cache index: peer replica {} did not hand over its blocks ({}); trying the next", peer,
            e.getMessage());
      }
    }
  }

  /** Asks the peer on {@code channel} for its blocks, within {@code timeoutMillis}. */
  static List<PodSnapshot> fetch(ManagedChannel channel, PeerKey key, long timeoutMillis) throws IOException {
    byte[] nonce = PeerKey.nonce();
    Iterator<byte[]> it = ClientCalls.blockingServerStreamingCall(channel, BLOCKS,
        CallOptions.DEFAULT.withDeadlineAfter(timeoutMillis, TimeUnit.MILLISECONDS),
        key.watchRequest(nonce, System.currentTimeMillis()));
    List<byte[]> pieces = new ArrayList<>();
    long seq = 0;
    long bytes = 0;
    while (it.hasNext()) {
      byte[] piece = key.open(nonce, seq++, it.next());
      bytes += piece.length;
      if (bytes > MAX_BLOCKS * 16 + seq * 1024) {
        throw new IOException("more than " + MAX_BLOCKS + " blocks' worth of pieces");
      }
      pieces.add(piece);
    }
    return read(pieces);
  }
}
