package io.llmgw.cli;

import io.llmgw.extproc.pluginfile.FileSettings;

import io.llmgw.scraper.kvevents.KvEventSettings;
import picocli.CommandLine.Option;

/** The serve command's flags for the pods' KV-cache events: where they are published, and what a pod may cost. */
final class KvEventOptions {
  @Option(names = "--kv-events-port", paramLabel = "PORT", defaultValue = "0",
      description = "Subscribe to every pod's KV-cache events (vLLM's --kv-events-config ZeroMQ endpoint) on this port; "
          + "what the precise-prefix-cache-scorer (--policy precise) reads (default: off).")
  int port;

  @Option(names = "--kv-events-replay-port", paramLabel = "PORT", defaultValue = "0",
      description = "The pods' KV-event replay endpoint, asked for missed batches (default: off; vLLM's example uses "
          + "the event port + 1).")
  int replayPort;

  @Option(names = "--kv-events-topic", defaultValue = "",
      description = "Subscribe to this topic prefix only (default: every topic).")
  String topic;

  @Option(names = "--kv-events-max-message-bytes", paramLabel = "BYTES",
      defaultValue = "" + KvEventSettings.DEFAULT_MAX_MESSAGE_BYTES,
      description = "The largest event batch read; a pod that sends a larger one is disconnected, counted as a loss "
          + "and connected again (default: ${DEFAULT-VALUE}).")
  int maxMessageBytes;

  @Option(names = "--kv-events-budget-bytes", paramLabel = "BYTES",
      defaultValue = "" + KvEventSettings.DEFAULT_BUDGET_BYTES,
      description = "Undecoded events held for all pods together, each pod an equal share (at least 1 MiB), which also "
          + "caps the batch size with many pods (default: ${DEFAULT-VALUE}).")
  long budgetBytes;

  @Option(names = "--kv-events-pod-bytes-per-second", paramLabel = "BYTES",
      defaultValue = "" + KvEventSettings.DEFAULT_POD_BYTES_PER_SECOND,
      description = "A pod that sends more within a second is distrusted (routed on the approximate prefix index) and "
          + "not listened to for 1 s, doubling to 60 s while it goes on (default: ${DEFAULT-VALUE}).")
  long podBytesPerSecond;

  KvEventSettings settings(KvEventSettings defaults) {
    return settings(defaults, FileSettings.NONE);
  }

  /**
   * The flags over what an llm-d plugin file says (its precise prefix plugins follow each pod's events at 5557 unless
   * it names another port); a flag given and a file saying otherwise are refused together.
   */
  KvEventSettings settings(KvEventSettings defaults, FileSettings file) {
    int p = pick("--kv-events-port", port, file.kvEventsPort());
    int r = pick("--kv-events-replay-port", replayPort, file.kvEventsReplayPort());
    String t = !topic.isEmpty() || file.kvEventsTopic() == null ? topic : file.kvEventsTopic();
    if (!topic.isEmpty() && file.kvEventsTopic() != null && !topic.equals(file.kvEventsTopic())) {
      throw new IllegalArgumentException("--kv-events-topic " + topic + " and the plugin file's topicFilter "
          + file.kvEventsTopic() + " disagree; give one");
    }
    return new KvEventSettings(p, r, t, defaults.replayTimeout(), maxMessageBytes, budgetBytes, podBytesPerSecond);
  }

  private static int pick(String flag, int given, Integer fromFile) {
    if (fromFile == null || given == fromFile) {
      return given;
    }
    if (given != 0) {
      throw new IllegalArgumentException(flag + " " + given + " and the plugin file's " + fromFile + " disagree; "
          + "give one");
    }
    return fromFile;
  }
}
