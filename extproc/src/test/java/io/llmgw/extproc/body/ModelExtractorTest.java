package io.llmgw.extproc.body;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ModelExtractorTest {
  static final String BODY = "{\"messages\":[{\"role\":\"user\",\"content\":\"hi \\\"model\\\": x\"}],"
      + "\"metadata\":{\"model\":\"nested\"},\"model\":\"sql-lora\",\"stream\":true}";

  static Object scan(byte[] body, int chunk) {
    ModelExtractor x = new ModelExtractor();
    for (int off = 0; off < body.length; off += chunk) {
      x.feed(UnsafeByteOperations.unsafeWrap(body, off, Math.min(chunk, body.length - off)));
    }
    return x.finish();
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 7, 16, 1000})
  void findsTheTopLevelModelWhateverTheChunking(int chunk) {
    byte[] body = BODY.getBytes(StandardCharsets.UTF_8);
    Object r = scan(body, chunk);
    assertThat(r).isInstanceOfSatisfying(ExtractedBody.class, e -> {
      assertThat(e.model()).isEqualTo("sql-lora");
      assertThat(new String(body, (int) e.modelStart(), (int) (e.modelEnd() - e.modelStart()), StandardCharsets.UTF_8))
          .isEqualTo("\"sql-lora\"");
      assertThat(
          new String(body, (int) e.promptStart(), (int) (e.promptEnd() - e.promptStart()), StandardCharsets.UTF_8))
          .startsWith("[{\"role\"").endsWith("}]");
    });
  }

  /** Issue 17, item 1: the output a request allows, for the latency model; what is not a positive int counts as unsaid. */
  @ParameterizedTest
  @ValueSource(ints = {1, 3, 1000})
  void theOutputTheRequestAllowsIsFound(int chunk) {
    assertThat(((ExtractedBody) scan(bytes("{\"model\":\"m\",\"max_tokens\":64}"), chunk)).maxTokens()).isEqualTo(64);
    assertThat(((ExtractedBody) scan(bytes("{\"max_completion_tokens\":32,\"model\":\"m\",\"max_tokens\":64}"), chunk))
        .maxTokens()).as("the newer name wins").isEqualTo(32);
    assertThat(((ExtractedBody) scan(bytes("{\"model\":\"m\",\"max_tokens\":-5}"), chunk)).maxTokens()).isZero();
    assertThat(((ExtractedBody) scan(bytes("{\"model\":\"m\",\"max_tokens\":99999999999}"), chunk)).maxTokens())
        .isZero();
    assertThat(((ExtractedBody) scan(bytes("{\"model\":\"m\",\"max_tokens\":\"12\"}"), chunk)).maxTokens()).isZero();
    assertThat(((ExtractedBody) scan(bytes("{\"model\":\"m\",\"o\":{\"max_tokens\":7}}"), chunk)).maxTokens()).isZero();
  }

  /** Issue 17, item 2: OpenAI's top-level {@code user} field names a session; a nested one, a number or a huge one do not. */
  @ParameterizedTest
  @ValueSource(ints = {1, 5, 1000})
  void theTopLevelUserFieldIsFoundForSessionAffinity(int chunk) {
    assertThat(((ExtractedBody) scan(bytes("{\"user\":\"alice-7\",\"model\":\"m\",\"messages\":[{\"role\":\"user\","
        + "\"content\":\"x\"}]}"), chunk)).user()).isEqualTo("alice-7");
    assertThat(((ExtractedBody) scan(bytes(BODY), chunk)).user()).as("\"user\" only as a role").isNull();
    assertThat(((ExtractedBody) scan(bytes("{\"model\":\"m\",\"user\":42}"), chunk)).user()).isNull();
    assertThat(((ExtractedBody) scan(bytes("{\"model\":\"m\",\"metadata\":{\"user\":\"bob\"}}"), chunk)).user())
        .isNull();
    assertThat(((ExtractedBody) scan(bytes("{\"model\":\"m\",\"user\":\"" + "u".repeat(257) + "\"}"), chunk))
        .user()).as("longer than a session id may be").isNull();
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 4, 64})
  void offsetsHoldForPrettyPrintedBodies(int chunk) {
    String pretty = "{\n  \"prompt\" :\t \"Once upon\",\n  \"model\" :   \"m\u00e9\\\"x\"\n}\n";
    byte[] body = bytes(pretty);
    ExtractedBody e = (ExtractedBody) scan(body, chunk);
    assertThat(e.model()).isEqualTo("m\u00e9\"x");
    assertThat(new String(body, (int) e.modelStart(), (int) (e.modelEnd() - e.modelStart()), StandardCharsets.UTF_8))
        .isEqualTo("\"m\u00e9\\\"x\"");
    assertThat(new String(body, (int) e.promptStart(), (int) (e.promptEnd() - e.promptStart()), StandardCharsets.UTF_8))
        .isEqualTo("\"Once upon\"");
  }

  @Test
  void everyProblemHasItsOwnAnswer() {
    assertThat(scan(bytes("not json"), 3)).isEqualTo(BodyProblem.NOT_JSON);
    assertThat(scan(bytes("{\"model\":\"a\""), 3)).isEqualTo(BodyProblem.NOT_JSON);
    assertThat(scan(bytes(""), 3)).isEqualTo(BodyProblem.NOT_JSON);
    assertThat(scan(bytes("{\"model\":\"a\"} {}"), 3)).isEqualTo(BodyProblem.NOT_JSON);
    assertThat(scan(bytes("[{\"model\":\"a\"}]"), 3)).isEqualTo(BodyProblem.NOT_AN_OBJECT);
    assertThat(scan(bytes("\"model\""), 3)).isEqualTo(BodyProblem.NOT_AN_OBJECT);
    assertThat(scan(bytes("{\"model\":42}"), 3)).isEqualTo(BodyProblem.MODEL_NOT_A_STRING);
    assertThat(scan(bytes("{\"model\":{\"x\":1}}"), 3)).isEqualTo(BodyProblem.MODEL_NOT_A_STRING);
    assertThat(scan(bytes("{\"model\":\"\"}"), 3)).isEqualTo(BodyProblem.MODEL_NOT_A_STRING);
    assertThat(scan(bytes("{\"prompt\":\"x\",\"meta\":{\"model\":\"a\"}}"), 3)).isEqualTo(BodyProblem.NO_MODEL);
  }

  /** Issue 13, item 4: the pod's JSON reader takes the last of a repeated key, the scan the first; neither may win. */
  @ParameterizedTest
  @ValueSource(ints = {1, 5, 1000})
  void item4ARepeatedTopLevelKeyIsRefusedSoTheEppAndThePodCannotReadTheBodyDifferently(int chunk) {
    assertThat(scan(bytes("{\"model\":\"sql-lora\",\"model\":\"summarize-lora\"}"), chunk))
        .isEqualTo(BodyProblem.DUPLICATE_KEY);
    assertThat(scan(bytes("{\"model\":\"a\",\"messages\":[],\"messages\":[{\"role\":\"user\"}]}"), chunk))
        .isEqualTo(BodyProblem.DUPLICATE_KEY);
    assertThat(scan(bytes("{\"model\":\"a\",\"x\":{\"k\":1},\"y\":{\"k\":2}}"), chunk))
        .as("the same key in different nested objects is not a repeat").isInstanceOf(ExtractedBody.class);
    assertThat(BodyProblem.DUPLICATE_KEY.message()).contains("repeats a top-level key");
    // a known key is recognised by its bytes, so the same key escaped is still the same key; unknown keys too
    assertThat(scan(bytes("{\"model\":\"a\",\"mod\\u0065l\":\"b\"}"), chunk)).isEqualTo(BodyProblem.DUPLICATE_KEY);
    assertThat(scan(bytes("{\"mod\\u0065l\":\"a\",\"model\":\"b\"}"), chunk)).isEqualTo(BodyProblem.DUPLICATE_KEY);
    assertThat(scan(bytes("{\"model\":\"a\",\"top_k\":1,\"top_\\u006b\":2}"), chunk))
        .isEqualTo(BodyProblem.DUPLICATE_KEY);
    assertThat(scan(bytes("{\"model\":\"a\",\"top_k\":1,\"top_p\":0.9,\"stream\":true}"), chunk))
        .isInstanceOf(ExtractedBody.class);
  }

  @Test
  void item4NestingDeeperThanTheLimitIsRefusedAndSaysSo() {
    int over = ModelExtractor.MAX_NESTING + 1;
    String deep = "{\"model\":\"a\",\"x\":" + "[".repeat(over) + "]".repeat(over) + "}";
    assertThat(scan(bytes(deep), 64)).isEqualTo(BodyProblem.TOO_DEEP);
    assertThat(BodyProblem.TOO_DEEP.message()).contains(Integer.toString(ModelExtractor.MAX_NESTING));
    String atLimit = "{\"model\":\"a\",\"x\":" + "[".repeat(ModelExtractor.MAX_NESTING - 1)
        + "]".repeat(ModelExtractor.MAX_NESTING - 1) + "}";
    assertThat(scan(bytes(atLimit), 64)).isInstanceOf(ExtractedBody.class);
  }

  /**
   * Protobuf hands a body frame out as an array, a slice of one, a rope of pieces or an off-heap buffer; the scan reads
   * each in place (the last through a copy) and must find the same body in all of them, and leave their bytes as they
   * were.
   */
  @Test
  void readsEveryFormOfAChunkAlikeAndLeavesItsBytesAlone() {
    byte[] raw = bytes(BODY);
    Object expected = scan(raw, raw.length);
    assertThat(expected).isInstanceOf(ExtractedBody.class);
    byte[] padded = new byte[raw.length + 10];
    System.arraycopy(raw, 0, padded, 7, raw.length);
    ByteBuffer direct = ByteBuffer.allocateDirect(raw.length).put(raw).flip();
    ByteString rope = ByteString.copyFrom(raw, 0, 9).concat(ByteString.copyFrom(raw, 9, 40))
        .concat(UnsafeByteOperations.unsafeWrap(direct.duplicate().position(49)));
    List<ByteString> forms = List.of(ByteString.copyFrom(raw), UnsafeByteOperations.unsafeWrap(padded, 7, raw.length),
        UnsafeByteOperations.unsafeWrap(direct), rope);
    for (ByteString form : forms) {
      ModelExtractor x = new ModelExtractor();
      x.feed(ByteString.EMPTY);
      x.feed(form);
      assertThat(x.finish()).as(form.getClass().getSimpleName()).isEqualTo(expected);
      assertThat(form.toByteArray()).isEqualTo(raw);
    }
    // a problem ends the scan: what comes after it is not read, however it comes
    ModelExtractor broken = new ModelExtractor();
    broken.feed(ByteString.copyFromUtf8("[1,"));
    broken.feed(UnsafeByteOperations.unsafeWrap(direct.duplicate()));
    assertThat(broken.finish()).isEqualTo(BodyProblem.NOT_AN_OBJECT);
  }

  @Test
  void rewritingSplicesOnlyTheModelValue() {
    RequestBody body = new RequestBody();
    byte[] raw = bytes(BODY);
    body.append(ByteString.copyFrom(raw, 0, 10));
    body.append(ByteString.copyFrom(raw, 10, raw.length - 10));
    ExtractedBody found = (ExtractedBody) scan(raw, 5);

    String rewritten = body.withModel(found, "sql-v\"2").toStringUtf8();

    assertThat(rewritten).isEqualTo(BODY.replace("\"model\":\"sql-lora\"", "\"model\":\"sql-v\\\"2\""));
  }

  @Test
  void reEmissionChunksStayUnderTheLimitAndReassembleExactly() {
    byte[] raw = new byte[150_001];
    java.util.Arrays.fill(raw, (byte) 'x');
    var chunks = RequestBody.chunks(ByteString.copyFrom(raw), RequestBody.MAX_CHUNK_BYTES);
    assertThat(chunks).hasSize(3).allMatch(c -> c.size() <= 62_000);
    assertThat(chunks.stream().reduce(ByteString.EMPTY, ByteString::concat).toByteArray()).isEqualTo(raw);
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Issue 50, item 3: vLLM's cache_salt keeps a request's cache apart; its value is read, within a bound. */
  @Test
  void theCacheSaltIsReadAndALongOneIsMarkedNotKept() {
    ExtractedBody salted = (ExtractedBody) scan(("{\"model\":\"m\",\"cache_salt\":\"tenant-a\",\"prompt\":\"p\"}")
        .getBytes(StandardCharsets.UTF_8), 3);
    assertThat(salted.cacheSalt()).isEqualTo("tenant-a");
    ExtractedBody none = (ExtractedBody) scan("{\"model\":\"m\",\"prompt\":\"p\"}".getBytes(StandardCharsets.UTF_8),
        5);
    assertThat(none.cacheSalt()).isNull();
    ExtractedBody number = (ExtractedBody) scan("{\"model\":\"m\",\"cache_salt\":7}".getBytes(
        StandardCharsets.UTF_8), 5);
    assertThat(number.cacheSalt()).as("not a string: vLLM refuses it; nothing to key by").isNull();
    String longSalt = "s".repeat(ExtractedBody.MAX_SALT_CHARS + 1);
    ExtractedBody tooLong = (ExtractedBody) scan(("{\"model\":\"m\",\"cache_salt\":\"" + longSalt + "\"}")
        .getBytes(StandardCharsets.UTF_8), 64);
    assertThat(tooLong.cacheSalt()).isEqualTo(ExtractedBody.LONG_SALT);
  }
}
