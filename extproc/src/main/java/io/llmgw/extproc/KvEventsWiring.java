package io.llmgw.extproc;

import io.llmgw.picker.scorers.PrecisePrefixCacheScorer;
import io.llmgw.scraper.kvevents.KvEventSubscriber;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The pods' KV-cache events, followed when they are on, and a warning when the scheduling and they disagree. */
final class KvEventsWiring {
  private static final Logger LOG = LoggerFactory.getLogger(KvEventsWiring.class);

  private KvEventsWiring() {}

  /** The subscriber (not started) over the datastore's pods, or null when the events are off. */
  static KvEventSubscriber subscriber(EppSettings s, Components parts) {
    boolean readsEvents = parts.profile().allPlugins().stream().anyMatch(p -> p instanceof PrecisePrefixCacheScorer);
    if (readsEvents && !s.scrape().kvEvents().enabled()) {
      LOG.warn("{} has no KV-cache events to read (--kv-events-port is off): it scores every pod as the approximate "
          + "prefix-cache-scorer does", PrecisePrefixCacheScorer.TYPE);
    } else if (!readsEvents && s.scrape().kvEvents().enabled()) {
      LOG.warn("--kv-events-port is set but no scheduling plugin reads the events ({}, as --policy precise has): "
          + "the EPP follows them for nothing", PrecisePrefixCacheScorer.TYPE);
    }
    if (!s.scrape().kvEvents().enabled()) {
      return null;
    }
    KvEventSubscriber kvEvents = new KvEventSubscriber(s.scrape().kvEvents(), parts.engineBlocks());
    parts.datastore().onChange(t -> kvEvents.pods(t.addresses()));
    parts.metrics().watchKvEvents(kvEvents.stats());
    return kvEvents;
  }
}
