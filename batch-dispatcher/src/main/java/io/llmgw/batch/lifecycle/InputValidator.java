package io.llmgw.batch.lifecycle;

import static io.llmgw.api.ClientText.clean;

import io.llmgw.batch.dispatch.ResultLines;
import io.llmgw.batch.shared.BatchSettings;
import io.llmgw.batch.store.Batch;
import io.llmgw.batch.store.LineError;
import io.llmgw.batch.store.LineResult;
import io.llmgw.batch.store.QueuedLine;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Reads a batch's input file the way OpenAI validates it: each line a JSON object with a unique {@code custom_id},
 * {@code method} POST, the batch's endpoint as {@code url} and a {@code body} naming a {@code model}. Any bad line fails
 * the whole batch, naming the line; a line for a model no route serves is not an error of the file but of the line, and
 * goes to the error file.
 *
 * <p>Two passes over the stream, so that memory does not grow with the file or the line: {@link #check} reads every
 * line and keeps only the custom_ids; {@link #queue}, once the file is known good, reads it again and hands the lines
 * to the store a chunk at a time. A line's bytes are held once (up to the line limit), its body located in them and
 * copied once into the text queued.
 */
public final class InputValidator {
  private static final int MAX_ERRORS_LISTED = 100;
  private static final int MAX_CUSTOM_ID = 512;
  /** Lines handed to the store at once: at most this many, or this much body text, whichever comes first. */
  private static final int CHUNK_LINES = 500;
  private static final long CHUNK_CHARS = 8L << 20;

  private final BatchSettings settings;

  public InputValidator(BatchSettings settings) {
    this.settings = settings;
  }

  /** What the first pass decided: problems (the batch fails), else how many requests the file holds. */
  public record Outcome(List<LineError> errors, int total) {}

  /**
   * The most memory one validation takes, whatever the file: a line's bytes, its body's text, and a chunk of lines
   * (each chunk's text at most {@link #CHUNK_CHARS} past one line).
   */
  public long memoryBound() {
    long line = settings.limits().maxLineBytes();
    return 4 * line + 2 * CHUNK_CHARS + (long) settings.limits().maxLines() * (MAX_CUSTOM_ID + 100L);
  }

  /** The first pass: every line checked, nothing kept but the custom_ids. */
  public Outcome check(Batch b, InputStream content) throws IOException {
    List<LineError> errors = new ArrayList<>();
    int total = 0;
    Set<String> ids = new HashSet<>();
    int lineNumber = 0;
    LineSplitter lines = new LineSplitter(content, settings.limits().maxLineBytes());
    while (errors.size() < MAX_ERRORS_LISTED && lines.next()) {
      lineNumber++;
      if (lines.blank()) {
        continue;
      }
      if (total + 1 > settings.limits().maxLines()) {
        errors.add(new LineError("too_many_lines", "the file has more than " + settings.limits().maxLines()
            + " requests, the most one batch takes", null, lineNumber));
        break;
      }
      if (lines.length() > settings.limits().maxLineBytes()) {
        errors.add(new LineError("line_too_large", "line " + lineNumber + " is " + lines.length()
            + " bytes, more than the " + settings.limits().maxLineBytes() + " a request may be", null, lineNumber));
        continue;
      }
      LineFacts line = LineFacts.read(lines.bytes(), lines.kept(), lineNumber);
      String problem = line.problem() != null ? line.problem() : problem(b, line, lineNumber, ids);
      if (problem != null) {
        errors.add(new LineError("invalid_request", problem, null, lineNumber));
      } else {
        total++;
      }
    }
    if (errors.isEmpty() && total == 0) {
      errors.add(new LineError("empty_file", "the input file holds no requests", null, null));
    }
    return new Outcome(errors.isEmpty() ? List.of() : errors, total);
  }

  /**
   * The second pass, over a file {@link #check} found good: every line handed to {@code sink} in chunks, with the
   * pool its model is served by; answers the results known already (lines for models no route serves).
   */
  public List<LineResult> queue(Batch b, InputStream content, Map<String, String> modelPools,
      Consumer<List<QueuedLine>> sink) throws IOException {
    List<LineResult> known = new ArrayList<>();
    List<QueuedLine> chunk = new ArrayList<>();
    long chunkChars = 0;
    int lineNumber = 0;
    LineSplitter lines = new LineSplitter(content, settings.limits().maxLineBytes());
    while (lines.next()) {
      lineNumber++;
      if (lines.blank()) {
        continue;
      }
      LineFacts line = LineFacts.read(lines.bytes(), lines.kept(), lineNumber);
      if (line.problem() != null || line.model() == null) {
        throw new IOException("line " + lineNumber + " changed between the two readings of the file");
      }
      String pool = modelPools.get(line.model());
      QueuedLine q = new QueuedLine(b.id(), line.customId(), lineNumber, pool == null ? "" : pool,
          b.expiresAt() * 1000, b.endpoint(), pool == null ? "" : body(lines.bytes(), line));
      if (pool == null) {
        known.add(ResultLines.unanswered(q, ResultLines.MODEL_NOT_FOUND, "no route serves the model '"
            + clean(line.model()) + "'"));
        continue;
      }
      chunk.add(q);
      chunkChars += q.body().length();
      if (chunk.size() >= CHUNK_LINES || chunkChars >= CHUNK_CHARS) {
        sink.accept(List.copyOf(chunk));
        chunk.clear();
        chunkChars = 0;
      }
    }
    if (!chunk.isEmpty()) {
      sink.accept(List.copyOf(chunk));
    }
    return known;
  }

  /** The body's text as the line gave it, with vLLM's {@code priority} first when one is to be set and none is. */
  private String body(byte[] bytes, LineFacts line) {
    String text = new String(bytes, line.bodyFrom(), line.bodyTo() - line.bodyFrom(), StandardCharsets.UTF_8);
    Integer priority = settings.delivery().podPriority();
    if (priority == null || line.hasPriority()) {
      return text;
    }
    boolean empty = text.substring(1).strip().equals("}");
    return "{\"priority\":" + priority + (empty ? "}" : "," + text.substring(1));
  }

  private static String problem(Batch b, LineFacts line, int n, Set<String> ids) {
    String id = line.customId();
    if (id == null || id.isEmpty()) {
      return "line " + n + " has no custom_id (a non-empty string)";
    }
    if (id.length() > MAX_CUSTOM_ID) {
      return "line " + n + " has a custom_id longer than " + MAX_CUSTOM_ID + " characters";
    }
    if (!ids.add(id)) {
      return "line " + n + " repeats the custom_id '" + clean(id) + "'; each request needs its own";
    }
    if (!"POST".equals(line.method())) {
      return "line " + n + " has method " + (line.method() == null ? "none" : "'" + clean(line.method()) + "'")
          + "; only POST is supported";
    }
    if (!b.endpoint().equals(line.url())) {
      return "line " + n + " has url " + (line.url() == null ? "none" : "'" + clean(line.url()) + "'")
          + "; this batch's endpoint is " + b.endpoint();
    }
    if (line.bodyFrom() < 0) {
      return "line " + n + " has no body object";
    }
    if (line.model() == null || line.model().isEmpty()) {
      return "line " + n + " has no body.model";
    }
    if (line.stream()) {
      return "line " + n + " asks for a stream; batch requests cannot stream";
    }
    return null;
  }
}
