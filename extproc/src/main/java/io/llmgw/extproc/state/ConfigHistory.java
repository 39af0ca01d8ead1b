package io.llmgw.extproc.state;

import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * The last configuration changes the EPP applied or refused, newest first: what an operator asks after an edit ("did
 * it take, and what did it change?"), on {@code /admin/status} beside the reload's log line. Bounded; a change that
 * changes nothing is not one.
 */
public final class ConfigHistory {
  /** How many changes are kept. */
  public static final int KEPT = 16;

  /**
   * One change: when, and either what it changed ({@code routes +chat ~sql; pods -a}) or why it was refused (then the
   * configuration before it stays in force).
   */
  public record Change(long atEpochMillis, String changed, String refused) {}

  private final Clock clock;
  private final Deque<Change> changes = new ArrayDeque<>();

  public ConfigHistory(Clock clock) {
    this.clock = clock;
  }

  public synchronized void applied(String changed) {
    add(new Change(clock.millis(), changed, null));
  }

  public synchronized void refused(String problem) {
    add(new Change(clock.millis(), null, problem));
  }

  private void add(Change change) {
    changes.addFirst(change);
    if (changes.size() > KEPT) {
      changes.removeLast();
    }
  }

  public synchronized List<Change> recent() {
    return new ArrayList<>(changes);
  }
}
