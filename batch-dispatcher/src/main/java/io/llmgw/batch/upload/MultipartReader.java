package io.llmgw.batch.upload;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Reads {@code multipart/form-data} (RFC 7578) from a stream one part at a time, never holding more than its buffer:
 * a part's content goes to whoever asks for it, so a 200 MB file, with or without a filename, is never in memory. A
 * body that ends before the closing delimiter is {@link Malformed}, as is a part whose headers run past
 * {@link #MAX_HEADER_BYTES}.
 */
final class MultipartReader {
  static final int MAX_HEADER_BYTES = 16 * 1024;

  /** The body is not well-formed multipart. */
  static final class Malformed extends IOException {
    Malformed(String message) {
      super(message);
    }
  }

  /** One part's headers: its form field name and, for a file, its filename (null when none was sent). */
  record Part(String name, String filename) {}

  private final InputStream in;
  private final byte[] delimiter;
  private final byte[] buf = new byte[64 * 1024];
  private int pos;
  private int end;
  private boolean eof;
  private boolean done;
  /** Whether a delimiter was just read: the next part's headers (or the closing dashes) come next. */
  private boolean atDelimiter;

  MultipartReader(InputStream in, String boundary) {
    this.in = in;
    this.delimiter = ("\r\n--" + boundary).getBytes(StandardCharsets.ISO_8859_1);
    // the first delimiter may open the body with no line break before it: read as if one were there
    buf[0] = '\r';
    buf[1] = '\n';
    end = 2;
  }

  /** The boundary of a {@code multipart/form-data} content type, or null when it has none usable. */
  static String boundary(String contentType) {
    if (contentType == null || !contentType.toLowerCase(Locale.ROOT).startsWith("multipart/form-data")) {
      return null;
    }
    for (String param : contentType.split(";")) {
      String p = param.strip();
      if (p.toLowerCase(Locale.ROOT).startsWith("boundary=")) {
        String b = p.substring("boundary=".length());
        if (b.length() >= 2 && b.startsWith("\"") && b.endsWith("\"")) {
          b = b.substring(1, b.length() - 1);
        }
        return b.isEmpty() || b.length() > 70 ? null : b;
      }
    }
    return null;
  }

  /** Moves past the current part (or the preamble) to the next; null after the closing delimiter. */
  Part next() throws IOException {
    if (done) {
      return null;
    }
    if (!atDelimiter) {
      copyPart(OutputStream.nullOutputStream(), Long.MAX_VALUE); // what is left of this part, or the preamble
    }
    atDelimiter = false;
    if (!fill(2)) {
      throw new Malformed("the body ends right after a delimiter");
    }
    if (buf[pos] == '-' && buf[pos + 1] == '-') {
      done = true;
      return null;
    }
    return headers();
  }

  /**
   * Copies the current part's content to {@code out} up to the next delimiter; answers the bytes copied, or -1 when
   * the part is longer than {@code limit} (what is past the limit is read and dropped).
   */
  long copyPart(OutputStream out, long limit) throws IOException {
    if (atDelimiter || done) {
      return 0; // this part was read already
    }
    long copied = 0;
    boolean over = false;
    while (true) {
      fill(delimiter.length);
      int at = indexOfDelimiter();
      int upTo = at >= 0 ? at : eof ? end : Math.max(pos, end - delimiter.length + 1);
      int n = upTo - pos;
      if (!over && copied + n > limit) {
        over = true;
      }
      if (!over) {
        out.write(buf, pos, n);
      }
      copied += n;
      pos = upTo;
      if (at >= 0) {
        pos += delimiter.length;
        atDelimiter = true;
        return over ? -1 : copied;
      }
      if (eof) {
        throw new Malformed("the body ended before its closing boundary");
      }
    }
  }

  private Part headers() throws IOException {
    skipLineBreak();
    String name = null;
    String filename = null;
    int total = 0;
    while (true) {
      String line = line(MAX_HEADER_BYTES - total);
      total += line.length() + 2;
      if (line.isEmpty()) {
        break;
      }
      int colon = line.indexOf(':');
      if (colon > 0 && line.substring(0, colon).strip().equalsIgnoreCase("content-disposition")) {
        name = param(line.substring(colon + 1), "name");
        filename = param(line.substring(colon + 1), "filename");
      }
    }
    if (name == null) {
      throw new Malformed("a part has no Content-Disposition name");
    }
    return new Part(name, filename);
  }

  /** After a delimiter: optional whitespace, then CRLF. */
  private void skipLineBreak() throws IOException {
    while (fill(1) && (buf[pos] == ' ' || buf[pos] == '\t')) {
      pos++;
    }
    if (!fill(2) || buf[pos] != '\r' || buf[pos + 1] != '\n') {
      throw new Malformed("a delimiter is not followed by a line break");
    }
    pos += 2;
  }

  private String line(int max) throws IOException {
    StringBuilder line = new StringBuilder();
    while (true) {
      if (!fill(2)) {
        throw new Malformed("the body ended inside a part's headers");
      }
      if (buf[pos] == '\r' && buf[pos + 1] == '\n') {
        pos += 2;
        return line.toString();
      }
      if (line.length() >= max) {
        throw new Malformed("a part's headers are longer than " + MAX_HEADER_BYTES + " bytes");
      }
      line.append((char) (buf[pos++] & 0xff));
    }
  }

  /** A parameter of a Content-Disposition value, quoted or not; the header's bytes are read as UTF-8. */
  private static String param(String value, String wanted) {
    for (String p : value.split(";")) {
      int eq = p.indexOf('=');
      if (eq > 0 && p.substring(0, eq).strip().equalsIgnoreCase(wanted)) {
        String v = p.substring(eq + 1).strip();
        if (v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")) {
          v = v.substring(1, v.length() - 1);
        }
        return new String(v.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
      }
    }
    return null;
  }

  private int indexOfDelimiter() {
    outer : for (int i = pos; i + delimiter.length <= end; i++) {
      for (int j = 0; j < delimiter.length; j++) {
        if (buf[i + j] != delimiter[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  /** Reads until at least {@code n} bytes are buffered; false when the stream ended first. */
  private boolean fill(int n) throws IOException {
    if (end - pos >= n) {
      return true;
    }
    if (pos > 0) {
      System.arraycopy(buf, pos, buf, 0, end - pos);
      end -= pos;
      pos = 0;
    }
    while (end - pos < n && !eof) {
      int r = in.read(buf, end, buf.length - end);
      if (r < 0) {
        eof = true;
      } else {
        end += r;
      }
    }
    return end - pos >= n;
  }
}
