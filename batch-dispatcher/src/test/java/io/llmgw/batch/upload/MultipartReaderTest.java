package io.llmgw.batch.upload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Issue 47: multipart read as a stream, whatever the chunking, and a body cut short refused rather than waited on. */
class MultipartReaderTest {
  static final String BOUNDARY = "----b0undary";

  static byte[] body(String purpose, byte[] file, boolean named, boolean closed) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\n" + purpose
        + "\r\n--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"file\""
        + (named ? "; filename=\"in.jsonl\"" : "") + "\r\nContent-Type: application/jsonl\r\n\r\n")
        .getBytes(StandardCharsets.UTF_8));
    out.writeBytes(file);
    if (closed) {
      out.writeBytes(("\r\n--" + BOUNDARY + "--\r\n").getBytes(StandardCharsets.UTF_8));
    }
    return out.toByteArray();
  }

  /** Reads a few bytes at a time, as a network would deliver them. */
  static InputStream dribbled(byte[] bytes, long seed) {
    Random random = new Random(seed);
    return new FilterInputStream(new ByteArrayInputStream(bytes)) {
      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        return super.read(b, off, Math.min(len, 1 + random.nextInt(97)));
      }
    };
  }

  record Read(List<MultipartReader.Part> parts, List<byte[]> contents) {}

  static Read readAll(InputStream in) throws IOException {
    MultipartReader r = new MultipartReader(in, BOUNDARY);
    List<MultipartReader.Part> parts = new ArrayList<>();
    List<byte[]> contents = new ArrayList<>();
    for (MultipartReader.Part p; (p = r.next()) != null;) {
      ByteArrayOutputStream content = new ByteArrayOutputStream();
      assertThat(r.copyPart(content, Long.MAX_VALUE)).isEqualTo(content.size());
      parts.add(p);
      contents.add(content.toByteArray());
    }
    return new Read(parts, contents);
  }

  @Test
  void partsAndTheirContentAreReadWhateverTheChunkingAndContent() throws Exception {
    byte[] file = new byte[200_000];
    new Random(7).nextBytes(file);
    // the delimiter's own bytes, and all but its last byte, inside the content
    byte[] tricky = ("x\r\n--" + BOUNDARY.substring(0, BOUNDARY.length() - 1) + "z\r\n--" + "\r\n").getBytes(
        StandardCharsets.UTF_8);
    System.arraycopy(tricky, 0, file, 100_000, tricky.length);
    for (long seed = 0; seed < 20; seed++) {
      Read read = readAll(dribbled(body("batch", file, seed % 2 == 0, true), seed));
      assertThat(read.parts()).extracting(MultipartReader.Part::name).containsExactly("purpose", "file");
      assertThat(read.parts().get(1).filename()).isEqualTo(seed % 2 == 0 ? "in.jsonl" : null);
      assertThat(new String(read.contents().get(0), StandardCharsets.UTF_8)).isEqualTo("batch");
      assertThat(read.contents().get(1)).isEqualTo(file);
    }
  }

  @Test
  void aBodyWithoutItsClosingDelimiterIsMalformedNotAwaited() {
    assertThatThrownBy(() -> readAll(new ByteArrayInputStream(body("batch", "{}\n".getBytes(), true, false))))
        .isInstanceOf(MultipartReader.Malformed.class).hasMessageContaining("closing boundary");
    assertThatThrownBy(() -> readAll(new ByteArrayInputStream(("--" + BOUNDARY + "\r\nContent-Disposition: "
        + "form-data; name=\"file\"").getBytes()))).isInstanceOf(MultipartReader.Malformed.class);
    assertThatThrownBy(() -> readAll(new ByteArrayInputStream(("--" + BOUNDARY + "\r\n" + "X: "
        + "y".repeat(MultipartReader.MAX_HEADER_BYTES) + "\r\n\r\n").getBytes())))
        .isInstanceOf(MultipartReader.Malformed.class).hasMessageContaining("headers are longer");
  }

  @Test
  void aPartOverItsLimitIsReadToItsEndAndSaidSo() throws Exception {
    MultipartReader r = new MultipartReader(new ByteArrayInputStream(body("batch", new byte[5_000], true, true)),
        BOUNDARY);
    assertThat(r.next().name()).isEqualTo("purpose");
    assertThat(r.copyPart(OutputStream.nullOutputStream(), 100)).isEqualTo(5);
    assertThat(r.next().name()).isEqualTo("file");
    assertThat(r.copyPart(OutputStream.nullOutputStream(), 4_999)).isEqualTo(-1);
    assertThat(r.next()).as("and the rest reads on").isNull();
  }

  @Test
  void theBoundaryComesFromTheContentType() {
    assertThat(MultipartReader.boundary("multipart/form-data; boundary=abc")).isEqualTo("abc");
    assertThat(MultipartReader.boundary("Multipart/Form-Data; charset=utf-8; boundary=\"a b\"")).isEqualTo("a b");
    assertThat(MultipartReader.boundary("application/json")).isNull();
    assertThat(MultipartReader.boundary("multipart/form-data")).isNull();
    assertThat(MultipartReader.boundary(null)).isNull();
  }
}
