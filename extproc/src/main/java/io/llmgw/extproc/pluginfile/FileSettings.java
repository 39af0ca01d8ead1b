package io.llmgw.extproc.pluginfile;

import java.time.Duration;

/**
 * What an llm-d configuration sets beyond plugins, in this EPP's terms: the data layer's scrape interval and the KV
 * events its precise prefix plugins follow. Each is null when the file leaves it; a flag given on the command line
 * wins, and a flag that contradicts the file is refused where the two are joined.
 *
 * @param kvEventsPort each pod's KV-event publisher port (llm-d's {@code podDiscoveryConfig.socketPort}, 5557)
 * @param kvEventsReplayPort each pod's replay port ({@code replaySocketPort}), or null
 * @param kvEventsTopic the subscription's topic prefix ({@code topicFilter})
 * @param scrapeInterval the metrics data source's {@code interval}
 */
public record FileSettings(Integer kvEventsPort, Integer kvEventsReplayPort, String kvEventsTopic,
    Duration scrapeInterval) {
  public static final FileSettings NONE = new FileSettings(null, null, null, null);
}
