package io.llmgw.extproc.request;

import io.llmgw.picker.Plugin;
import io.llmgw.picker.PluginId;
import io.llmgw.picker.PluginTimings;
import io.llmgw.picker.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * A lifecycle plugin and where its durations go. Only a request whose timing was sampled ({@link RequestContext#timed})
 * reads the clock around its plugins: the other requests pay nothing for the histogram.
 */
record TimedPlugin<T extends Plugin>(T plugin, LongConsumer durations) {
  /** What {@link #start} returns when the call is not timed. */
  private static final long NOT_TIMED = Long.MIN_VALUE;

  static <T extends Plugin> List<TimedPlugin<T>> of(String point, List<T> plugins, PluginTimings timings) {
    List<TimedPlugin<T>> out = new ArrayList<>(plugins.size());
    for (T p : plugins) {
      out.add(new TimedPlugin<>(p, timings.sink(point, PluginId.of(p))));
    }
    return out;
  }

  static List<PluginId> ids(List<? extends TimedPlugin<?>> plugins) {
    return plugins.stream().map(t -> PluginId.of(t.plugin())).toList();
  }

  /** The clock before the call when this request's calls are timed. */
  long start(RequestContext ctx, Ticker ticker) {
    return ctx.timed() && durations != PluginTimings.NOT_TIMED ? ticker.nanos() : NOT_TIMED;
  }

  void stop(long start, Ticker ticker) {
    if (start != NOT_TIMED) {
      durations.accept(ticker.nanos() - start);
    }
  }
}
