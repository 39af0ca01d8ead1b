package io.llmgw.sim.kvpublish;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.sim.engine.KvEventsConfig;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.engine.SimTokens;
import io.llmgw.sim.http.SimPods;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.msgpack.core.MessagePack;
import org.msgpack.value.ArrayValue;
import org.msgpack.value.Value;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMsg;

/**
 * Issue 29: the simulator publishes its KV-cache events as vLLM does, read here the way vLLM's own
 * {@code kv_events_subscriber.py} reads them (a SUB socket, a REQ socket for replay) and decoded field by field against
 * vLLM's documented types, with a generic msgpack reader rather than the gateway's decoder.
 */
class KvEventPublisherTest {
  static final String HOST = "127.0.0.101";
  static final KvEventsConfig EVENTS = new KvEventsConfig(5557, 5558, "kv-events", 10_000);
  static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  SimPods pod;
  ZContext zmq;
  ZMQ.Socket sub;

  @BeforeEach
  void start() throws Exception {
    pod = SimPods.start(SimConfig.builder().capacity(8, 64, 64).kvEvents(EVENTS).seed(3).build(), List.of(HOST),
        8000);
    zmq = new ZContext();
    sub = zmq.createSocket(SocketType.SUB);
    sub.setHandshakeIvl(1_000); // JeroMQ may leave a connection unhandshaken for good: retried after 1 s
    sub.subscribe("kv-events".getBytes());
    sub.connect("tcp://" + HOST + ":5557");
    // ZeroMQ drops what is published before the subscription is connected: send prompts until one is heard
    sub.setReceiveTimeOut(100);
    boolean heard = false;
    for (int i = 0; i < 100 && !heard; i++) {
      chat("warming up the subscription, attempt " + i + " ".repeat(64));
      heard = ZMsg.recvMsg(sub) != null;
    }
    assertThat(heard).as("the subscription connected").isTrue();
    while (ZMsg.recvMsg(sub) != null) {
      // what the warm-up published: not this test's
    }
  }

  @AfterEach
  void stop() throws Exception {
    zmq.close();
    pod.close();
  }

  void chat(String content) throws Exception {
    HttpResponse<String> r = HTTP
        .send(HttpRequest.newBuilder(URI.create("http://" + HOST + ":8000/v1/chat/completions"))
            .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"" + SimConfig.DEFAULT_MODEL
                + "\",\"max_tokens\":2,\"messages\":[{\"role\":\"user\",\"content\":\"" + content + "\"}]}"))
            .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
  }

  /** Reads messages until one carries an event of the tag (10 s at most). */
  List<Received> until(String tag) {
    List<Received> seen = new ArrayList<>();
    sub.setReceiveTimeOut(10_000);
    while (true) {
      ZMsg msg = ZMsg.recvMsg(sub);
      assertThat(msg).as("a message within 10 s").isNotNull();
      assertThat(msg.size()).as("topic, sequence number, payload").isEqualTo(3);
      assertThat(msg.getFirst().getString(ZMQ.CHARSET)).isEqualTo("kv-events");
      org.zeromq.ZFrame[] frames = msg.toArray(new org.zeromq.ZFrame[0]);
      assertThat(frames[1].size()).isEqualTo(8);
      Received r = new Received(ByteBuffer.wrap(frames[1].getData()).getLong(), batch(frames[2].getData()));
      seen.add(r);
      if (r.events().stream().anyMatch(e -> e.get(0).asStringValue().asString().equals(tag))) {
        return seen;
      }
    }
  }

  record Received(long seq, List<ArrayValue> events) {}

  /** vLLM's KVEventBatch, array-like: [ts: float, events: list]. */
  static List<ArrayValue> batch(byte[] payload) {
    try (var u = MessagePack.newDefaultUnpacker(payload)) {
      Value v = u.unpackValue();
      assertThat(u.hasNext()).isFalse();
      ArrayValue batch = v.asArrayValue();
      assertThat(batch.size()).isEqualTo(2);
      assertThat(batch.get(0).isFloatValue()).as("ts is a float").isTrue();
      List<ArrayValue> events = new ArrayList<>();
      for (Value e : batch.get(1).asArrayValue()) {
        events.add(e.asArrayValue());
      }
      return events;
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void aPromptsBlocksAreStoredWithTheirTokensChainedToTheirParentsThenClearedAndReplayed() throws Exception {
    String prompt = "x".repeat(200);
    chat(prompt);
    List<Received> first = until("BlockStored");
    ArrayValue stored = first.getLast().events().stream()
        .filter(e -> e.get(0).asStringValue().asString().equals("BlockStored")).findFirst().orElseThrow();
    // BlockStored: [tag, block_hashes: list[int], parent_block_hash: int | None, token_ids: list[int],
    //   block_size: int, lora_id: int | None, medium: str | None, lora_name: str | None]
    assertThat(stored.size()).isEqualTo(8);
    int[] expected = SimTokens.encode("user: " + prompt + "\n");
    int blocks = expected.length / 16;
    assertThat(stored.get(1).asArrayValue().size()).as("one hash per full block").isEqualTo(blocks);
    stored.get(1).asArrayValue().forEach(h -> assertThat(h.isIntegerValue()).isTrue());
    assertThat(stored.get(2).isNilValue()).as("the first block has no parent").isTrue();
    List<Integer> tokens = new ArrayList<>();
    stored.get(3).asArrayValue().forEach(t -> tokens.add(t.asIntegerValue().toInt()));
    assertThat(tokens).hasSize(blocks * 16);
    for (int i = 0; i < tokens.size(); i++) {
      assertThat(tokens.get(i)).isEqualTo(expected[i]);
    }
    assertThat(stored.get(4).asIntegerValue().toInt()).isEqualTo(16);
    assertThat(stored.get(5).isNilValue()).as("no LoRA").isTrue();
    assertThat(stored.get(6).asStringValue().asString()).isEqualTo("GPU");
    assertThat(stored.get(7).isNilValue()).isTrue();
    long lastHash = stored.get(1).asArrayValue().get(blocks - 1).asIntegerValue().toLong();

    chat(prompt + "y".repeat(64)); // the same prefix and 16 more tokens: one new block, chained to the last one
    ArrayValue more = until("BlockStored").getLast().events().stream()
        .filter(e -> e.get(0).asStringValue().asString().equals("BlockStored")).findFirst().orElseThrow();
    assertThat(more.get(2).asIntegerValue().toLong()).as("parent: the prefix's last block").isEqualTo(lastHash);

    HTTP.send(HttpRequest.newBuilder(URI.create("http://" + HOST + ":8000/reset_prefix_cache"))
        .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.discarding());
    List<Received> cleared = until("AllBlocksCleared");
    long lastSeq = cleared.getLast().seq();

    // replay: the start as 8 bytes; [seq, payload] each, then [-1, empty]. vLLM's example asks with a REQ socket,
    // which can read only the first of several answers, so a DEALER (with REQ's empty delimiter) asks here
    try (ZMQ.Socket req = zmq.createSocket(SocketType.DEALER)) {
      req.setHandshakeIvl(1_000);
      req.connect("tcp://" + HOST + ":5558");
      req.setReceiveTimeOut(5_000);
      req.sendMore(new byte[0]);
      req.send(ByteBuffer.allocate(8).putLong(0).array());
      List<Long> replayed = new ArrayList<>();
      while (true) {
        ZMsg m = ZMsg.recvMsg(req);
        assertThat(m == null ? null : m.pop().size()).as("the empty delimiter").isZero();
        assertThat(m).as("a replay answer within 5 s").isNotNull();
        long seq = ByteBuffer.wrap(m.getFirst().getData()).getLong();
        if (seq == -1) {
          assertThat(m.getLast().size()).isZero();
          break;
        }
        batch(m.getLast().getData());
        replayed.add(seq);
      }
      assertThat(replayed).as("every batch from 0, in order").startsWith(0L).endsWith(lastSeq)
          .hasSize((int) lastSeq + 1);
    }
  }

  @Test
  void evictionsAreReportedAsRemovedBlocks() throws Exception {
    for (int i = 0; i < 6; i++) {
      chat(("document " + i + " ").repeat(200)); // 34 blocks each of 64: the later documents evict the earlier ones
    }
    ArrayValue removed = until("BlockRemoved").getLast().events().stream()
        .filter(e -> e.get(0).asStringValue().asString().equals("BlockRemoved")).findFirst().orElseThrow();
    // BlockRemoved: [tag, block_hashes: list[int], medium: str | None]
    assertThat(removed.size()).isEqualTo(3);
    assertThat(removed.get(1).asArrayValue().size()).isPositive();
    assertThat(removed.get(2).asStringValue().asString()).isEqualTo("GPU");
  }
}
