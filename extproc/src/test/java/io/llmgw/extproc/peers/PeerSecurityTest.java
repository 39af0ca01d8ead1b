package io.llmgw.extproc.peers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.llmgw.extproc.observe.HealthServer;
import io.llmgw.extproc.state.InFlightTracker;
import io.llmgw.extproc.state.PeerLoad;
import io.llmgw.extproc.state.PeerLoads;
import io.llmgw.picker.Ticker;
import io.llmgw.picker.kvcache.EngineBlockIndex;
import io.llmgw.picker.kvcache.PodSnapshot;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 47, the peer exchange probed as an attacker would: an unsigned watcher reads nothing, an impostor on a peer's
 * address is not believed, a signed peer's invented counts and a message claiming to be this replica are refused
 * without this replica ceasing to watch the real peer, and thousands of watchers that never read leave health alone.
 */
class PeerSecurityTest {
  static final PeerKey KEY = PeerKey.of("the fleet's shared secret, 32 b".getBytes(StandardCharsets.US_ASCII));
  static final PeerKey OTHER = PeerKey.of("another fleet's secret, 32 byte".getBytes(StandardCharsets.US_ASCII));
  final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2);
  final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : closing.reversed()) {
      c.close();
    }
    scheduler.shutdownNow();
  }

  static InFlightTracker busy() {
    InFlightTracker t = new InFlightTracker(Ticker.system(), Clock.systemUTC());
    t.acquire("10.0.0.1:8000", "base");
    return t;
  }

  /** A replica with a secret, serving its counts on a real gRPC server. */
  PeerExchange replica(PeerKey key, List<String> peers, PeerLoads loads) throws Exception {
    PeerExchange e = new PeerExchange(peers, key, busy(), loads, scheduler).start();
    closing.add(e);
    return e;
  }

  Server serve(ServerServiceDefinition service) throws Exception {
    Server s = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(service).build()
        .start();
    closing.add(s::shutdownNow);
    return s;
  }

  /** A server that answers Watch as the test says, given the request's bytes. */
  record FakePeer(Server server, LinkedBlockingQueue<byte[]> requests,
      LinkedBlockingQueue<StreamObserver<byte[]>> streams) {
    String address() {
      return "127.0.0.1:" + server.getPort();
    }
  }

  FakePeer fakePeer() throws Exception {
    LinkedBlockingQueue<byte[]> requests = new LinkedBlockingQueue<>();
    LinkedBlockingQueue<StreamObserver<byte[]>> streams = new LinkedBlockingQueue<>();
    Server s = serve(ServerServiceDefinition.builder("llmgw.PeerLoad").addMethod(PeerLoadService.WATCH,
        ServerCalls.asyncServerStreamingCall((req, out) -> {
          requests.add(req);
          streams.add(out);
        })).build());
    return new FakePeer(s, requests, streams);
  }

  /** Calls Watch with {@code request} and collects what comes back. */
  static List<Object> watchRaw(String address, byte[] request) throws Exception {
    return callRaw(address, PeerLoadService.WATCH, request);
  }

  /** Calls a server-streaming method of the peer service with {@code request}; what came back, the first at least. */
  static List<Object> callRaw(String address, MethodDescriptor<byte[], byte[]> method, byte[] request)
      throws Exception {
    ManagedChannel ch = NettyChannelBuilder.forTarget(address).usePlaintext().build();
    try {
      List<Object> got = new java.util.concurrent.CopyOnWriteArrayList<>();
      io.grpc.stub.ClientCalls.asyncServerStreamingCall(ch.newCall(method, CallOptions.DEFAULT),
          request, new StreamObserver<>() {
            @Override
            public void onNext(byte[] value) {
              got.add(value);
            }

            @Override
            public void onError(Throwable t) {
              got.add(Status.fromThrowable(t).getCode());
            }

            @Override
            public void onCompleted() {
              got.add("completed");
            }
          });
      await().atMost(Duration.ofSeconds(10)).until(() -> !got.isEmpty());
      return got;
    } finally {
      ch.shutdownNow();
    }
  }

  @Test
  void aWatcherWithoutTheSecretIsRefusedAndReadsNothing() throws Exception {
    PeerExchange victim = replica(KEY, List.of(), new PeerLoads(Ticker.system(), Duration.ofSeconds(30)));
    Server server = serve(victim.service());
    String address = "127.0.0.1:" + server.getPort();
    byte[] nonce = PeerKey.nonce();
    long now = System.currentTimeMillis();
    assertThat(watchRaw(address, new byte[0])).containsExactly(Status.Code.UNAUTHENTICATED);
    assertThat(watchRaw(address, PeerKey.INSECURE.watchRequest(nonce, now))).as("unsigned")
        .containsExactly(Status.Code.UNAUTHENTICATED);
    assertThat(watchRaw(address, OTHER.watchRequest(nonce, now))).as("another secret")
        .containsExactly(Status.Code.UNAUTHENTICATED);
    assertThat(watchRaw(address, KEY.watchRequest(nonce, now - 3_600_000))).as("an hour old")
        .containsExactly(Status.Code.UNAUTHENTICATED);
    byte[] signed = KEY.watchRequest(nonce, now);
    List<Object> first = watchRaw(address, signed);
    assertThat(first.getFirst()).as("a peer with the secret is greeted").isInstanceOf(byte[].class);
    assertThat(PeerSnapshotCodec.decode(KEY.open(nonce, 0, (byte[]) first.getFirst())).byEndpoint())
        .containsKey("10.0.0.1:8000");
    assertThat(watchRaw(address, signed)).as("the same request again: replayed")
        .containsExactly(Status.Code.UNAUTHENTICATED);
    assertThat(victim.traffic().refusedWatches()).isEqualTo(5);
  }

  /**
   * Issue 51: the Blocks method hands over what the pods' events told this replica; it asks the same signature, age
   * and one use of the nonce as Watch does, and refuses a request without them before reading the index.
   */
  @Test
  void aBlocksRequestWithoutTheSecretIsRefusedAndTakesNothing() throws Exception {
    PeerExchange victim = replica(KEY, List.of(), new PeerLoads(Ticker.system(), Duration.ofSeconds(30)));
    EngineBlockIndex index = new EngineBlockIndex();
    assertThat(index.seed(new PodSnapshot("10.0.0.1:8000", 7, 16, false, new long[] {1}, new long[] {11}))).isTrue();
    victim.shareBlocks(index);
    Server server = serve(victim.service());
    String address = "127.0.0.1:" + server.getPort();
    byte[] nonce = PeerKey.nonce();
    long now = System.currentTimeMillis();
    assertThat(callRaw(address, BlockTransfer.BLOCKS, new byte[0])).containsExactly(Status.Code.UNAUTHENTICATED);
    assertThat(callRaw(address, BlockTransfer.BLOCKS, PeerKey.INSECURE.watchRequest(nonce, now))).as("unsigned")
        .containsExactly(Status.Code.UNAUTHENTICATED);
    assertThat(callRaw(address, BlockTransfer.BLOCKS, OTHER.watchRequest(nonce, now))).as("another secret")
        .containsExactly(Status.Code.UNAUTHENTICATED);
    assertThat(callRaw(address, BlockTransfer.BLOCKS, KEY.watchRequest(nonce, now - 3_600_000))).as("an hour old")
        .containsExactly(Status.Code.UNAUTHENTICATED);
    ManagedChannel ch = NettyChannelBuilder.forTarget(address).usePlaintext().build();
    try {
      assertThat(BlockTransfer.fetch(ch, KEY, 10_000)).as("a peer with the secret takes the pod's blocks")
          .extracting(PodSnapshot::pod, PodSnapshot::lastSeq).containsExactly(tuple("10.0.0.1:8000", 7L));
    } finally {
      ch.shutdownNow();
    }
  }

  @Test
  void anImpostorOnAPeersAddressIsNotBelievedNorIsAnotherStreamsMessage() throws Exception {
    FakePeer impostor = fakePeer();
    PeerLoads loads = new PeerLoads(Ticker.system(), Duration.ofSeconds(30));
    PeerExchange victim = replica(KEY, List.of(impostor.address()), loads);
    byte[] payload = PeerSnapshotCodec.encode("impostor", busy().all(), Map.of(), List.of());
    byte[] request = impostor.requests().poll(10, TimeUnit.SECONDS);
    byte[] nonce = Arrays.copyOf(request, PeerKey.NONCE_BYTES);
    StreamObserver<byte[]> stream = impostor.streams().poll(10, TimeUnit.SECONDS);
    stream.onNext(payload); // unsigned
    await().atMost(Duration.ofSeconds(5)).until(() -> victim.traffic().refusedMessages() == 1);
    assertThat(loads.freshPeers()).isZero();

    // signed with another secret, or with this one but for another stream: refused the same way
    request = impostor.requests().poll(10, TimeUnit.SECONDS); // it asked again
    nonce = Arrays.copyOf(request, PeerKey.NONCE_BYTES);
    impostor.streams().poll(10, TimeUnit.SECONDS).onNext(OTHER.seal(nonce, 0, payload));
    await().atMost(Duration.ofSeconds(5)).until(() -> victim.traffic().refusedMessages() == 2);
    request = impostor.requests().poll(10, TimeUnit.SECONDS);
    impostor.streams().poll(10, TimeUnit.SECONDS).onNext(KEY.seal(PeerKey.nonce(), 0, payload));
    await().atMost(Duration.ofSeconds(5)).until(() -> victim.traffic().refusedMessages() == 3);
    assertThat(loads.freshPeers()).as("nothing it said counted").isZero();

    // the real peer, holding the secret, counts
    request = impostor.requests().poll(10, TimeUnit.SECONDS);
    nonce = Arrays.copyOf(request, PeerKey.NONCE_BYTES);
    impostor.streams().poll(10, TimeUnit.SECONDS).onNext(KEY.seal(nonce, 0, payload));
    await().atMost(Duration.ofSeconds(5)).until(() -> loads.freshPeers() == 1);
  }

  @Test
  void inventedCountsAndAClaimToBeThisReplicaAreRefusedAndTheRealPeerIsStillWatched() throws Exception {
    FakePeer peer = fakePeer();
    PeerLoads loads = new PeerLoads(Ticker.system(), Duration.ofSeconds(30));
    PeerExchange victim = replica(KEY, List.of(peer.address()), loads);
    byte[] nonce = Arrays.copyOf(peer.requests().poll(10, TimeUnit.SECONDS), PeerKey.NONCE_BYTES);
    StreamObserver<byte[]> stream = peer.streams().poll(10, TimeUnit.SECONDS);
    AtomicInteger seq = new AtomicInteger();
    java.util.function.Consumer<byte[]> send = p -> stream.onNext(KEY.seal(nonce, seq.getAndIncrement(), p));

    InFlightTracker many = new InFlightTracker(Ticker.system(), Clock.systemUTC());
    for (int i = 0; i <= PeerClaims.MAX_IN_FLIGHT_PER_ENDPOINT; i++) {
      many.acquire("10.0.0.1:8000", "base");
    }
    send.accept(PeerSnapshotCodec.encode("peer", many.all(), Map.of(), List.of()));
    await().atMost(Duration.ofSeconds(5)).until(() -> victim.traffic().refusedMessages() == 1);
    send.accept(PeerSnapshotCodec.encode("peer", busy().all(), Map.of("team-a", new long[] {500, 10, 1}),
        List.of()));
    await().atMost(Duration.ofSeconds(5)).until(() -> victim.traffic().refusedMessages() == 2);
    send.accept(PeerSnapshotCodec.encode(victim.id(), busy().all(), Map.of(), List.of()));
    await().atMost(Duration.ofSeconds(5)).until(() -> victim.traffic().refusedMessages() == 3);
    assertThat(loads.freshPeers()).isZero();

    send.accept(PeerSnapshotCodec.encode("peer", busy().all(), Map.of(), List.of()));
    await("the same stream, still watched").atMost(Duration.ofSeconds(5)).until(() -> loads.freshPeers() == 1);
    assertThat(peer.requests()).as("it never stopped or restarted watching").isEmpty();
  }

  /** A secret file written by {@code echo} (a line break at its end) serves with one written without. */
  @Test
  void aSecretsTrailingLineBreakIsNotPartOfIt() throws Exception {
    PeerKey withBreak = PeerKey.of("the fleet's shared secret, 32 b\r\n".getBytes(StandardCharsets.US_ASCII));
    byte[] nonce = PeerKey.nonce();
    long now = System.currentTimeMillis();
    assertThat(KEY.watcherNonce(withBreak.watchRequest(nonce, now), now)).isEqualTo(nonce);
    assertThat(KEY.open(nonce, 3, withBreak.seal(nonce, 3, new byte[] {1, 2}))).containsExactly(1, 2);
    assertThat(KEY.prefixSeed()).isEqualTo(withBreak.prefixSeed()).isNotZero();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> KEY.open(nonce, 4, withBreak.seal(nonce, 3,
        new byte[] {1, 2}))).as("out of its place in the stream").hasMessageContaining("not signed");
  }

  @Test
  void aFutureSendTimeIsNotBelieved() throws Exception {
    PeerLoad future = new PeerLoad(1, Map.of("base", 1), new long[] {System.currentTimeMillis() + 3_600_000});
    assertThat(PeerClaims.problem(new PeerSnapshotCodec.Snapshot("p", Map.of("10.0.0.1:8000", future), Map.of(),
        List.of(), List.of(), List.of()), System.currentTimeMillis())).contains("in the future");
    PeerLoad fine = new PeerLoad(1, Map.of("base", 1), new long[] {System.currentTimeMillis() - 10});
    assertThat(PeerClaims.problem(new PeerSnapshotCodec.Snapshot("p", Map.of("10.0.0.1:8000", fine), Map.of(),
        List.of(), List.of(), List.of()), System.currentTimeMillis())).isNull();
  }

  @Test
  void aReplicaFindsItselfAmongItsPeersByItsOwnNonceOnly() throws Exception {
    int port = io.llmgw.api.LoopbackPorts.free();
    String self = "127.0.0.1:" + port;
    PeerLoads loads = new PeerLoads(Ticker.system(), Duration.ofSeconds(30));
    PeerExchange replica = new PeerExchange(List.of(), KEY, busy(), loads, scheduler);
    closing.add(replica);
    HealthServer health = new HealthServer();
    health.start(new InetSocketAddress("127.0.0.1", port), replica.service());
    closing.add(health);
    replica.start().setDiscovered(List.of(self));
    await().atMost(Duration.ofSeconds(10)).until(() -> replica.traffic().sentMessages() == 0
        && replica.traffic().receivedMessages() == 0 && isSelf(replica, self));
  }

  static boolean isSelf(PeerExchange e, String address) throws Exception {
    java.lang.reflect.Field f = PeerExchange.class.getDeclaredField("selves");
    f.setAccessible(true);
    return ((java.util.Set<?>) f.get(e)).contains(address);
  }

  @Test
  void thousandsOfWatchersThatNeverReadLeaveHealthAlone() throws Exception {
    PeerExchange victim = replica(PeerKey.INSECURE, List.of(), new PeerLoads(Ticker.system(),
        Duration.ofSeconds(30)));
    HealthServer health = new HealthServer();
    int port = io.llmgw.api.LoopbackPorts.free();
    health.start(new InetSocketAddress("127.0.0.1", port), victim.service());
    health.setReady(true);
    closing.add(health);
    ManagedChannel ch = NettyChannelBuilder.forTarget("127.0.0.1:" + port).usePlaintext().build();
    closing.add(ch::shutdownNow);
    AtomicReference<Status.Code> lastError = new AtomicReference<>();
    for (int i = 0; i < 3_000; i++) { // bounded: 3,000 watch streams that ask for no message, ever
      ClientCall<byte[], byte[]> call = ch.newCall(PeerLoadService.WATCH, CallOptions.DEFAULT);
      call.start(new ClientCall.Listener<>() {
        @Override
        public void onClose(Status status, Metadata trailers) {
          lastError.set(status.getCode());
        }
      }, new Metadata());
      call.sendMessage(PeerKey.INSECURE.watchRequest(PeerKey.nonce(), System.currentTimeMillis()));
      call.halfClose(); // and never call request(): nothing is read
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> victim.traffic().refusedWatches() == 3_000
        - PeerLoadService.MAX_WATCHERS);
    assertThat(lastError.get()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(victim.watchers()).isEqualTo(PeerLoadService.MAX_WATCHERS);
    // each stream takes what HTTP/2's window (64 KiB) lets through, and then nothing: no message waits in a queue
    assertThat(victim.traffic().sentBytes()).isLessThanOrEqualTo(PeerLoadService.MAX_WATCHERS * (96L << 10));
    ManagedChannel probe = NettyChannelBuilder.forTarget("127.0.0.1:" + port).usePlaintext().build();
    closing.add(probe::shutdownNow);
    assertThat(HealthGrpc.newBlockingStub(probe).withDeadlineAfter(2, TimeUnit.SECONDS)
        .check(HealthCheckRequest.getDefaultInstance()).getStatus())
        .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
  }
}
