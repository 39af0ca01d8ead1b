package io.llmgw.extproc.request.residency;

import io.llmgw.adapters.LoadFailure;
import io.llmgw.adapters.LoadQueue;
import io.llmgw.api.ErrorCode;
import io.llmgw.api.InferencePool;
import io.llmgw.extproc.reply.ErrorReply;
import io.llmgw.extproc.request.Choice;
import io.llmgw.extproc.request.RequestContext;
import io.llmgw.extproc.request.Step;
import io.llmgw.extproc.state.PoolView;
import io.llmgw.picker.EndpointState;
import io.llmgw.picker.Residency;
import io.llmgw.picker.Ticker;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;
import java.util.function.DoubleConsumer;

/**
 * Adapters as data: a target with a {@code source} that no endpoint the request may use holds is loaded there while
 * the request waits (sharing the load with every other request for it, bounded by {@code loadWaitTimeout}), then the
 * request goes to the pod it was loaded on; a load that fails is answered 503 naming the adapter and why. A rollout's
 * redirect to the version still serving holds only while that version is resident; after that the request goes back
 * to the route's target. Targets without a source need no particular endpoint, but one that no endpoint lists is
 * answered 503 unless its pool's pods resolve adapters themselves
 * ({@link InferencePool#adaptersResolvedByServer}).
 */
public final class JustInTimeLoader implements Loader {
  public static final String TYPE = "just-in-time-loader";

  private final LoadQueue loads;
  private final BiFunction<List<PoolView>, Set<String>, List<EndpointState>> allowedNow;
  private final Duration loadWaitTimeout;
  private final Ticker ticker;
  private final DoubleConsumer waitSeconds;

  /**
   * @param allowedNow the endpoints of these pools the subset hint (or null) allows, read again when a load picks
   *     its pod
   * @param waitSeconds told how long each request waited for its load (to succeed or fail)
   */
  public JustInTimeLoader(LoadQueue loads, BiFunction<List<PoolView>, Set<String>, List<EndpointState>> allowedNow,
      Duration loadWaitTimeout, Ticker ticker, DoubleConsumer waitSeconds) {
    this.loads = loads;
    this.allowedNow = allowedNow;
    this.loadWaitTimeout = loadWaitTimeout;
    this.ticker = ticker;
    this.waitSeconds = waitSeconds;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public Outcome prepare(RequestContext ctx, List<EndpointState> allowed) {
    Choice choice = ctx.choice();
    if (choice.revertTo() != null) {
      Set<String> holders = Residency.holders(choice.target(), allowed);
      if (!holders.isEmpty()) {
        return new Outcome.Ready(choice, holders);
      }
      choice = choice.revertTo(); // the old version left while the request waited
    }
    if (choice.source() == null) {
      return new Outcome.Ready(choice, resolvedByServer(choice.pools()) ? null : servers(choice.target(), allowed));
    }
    Set<String> holders = Residency.holders(choice.target(), allowed);
    if (!holders.isEmpty() || allowed.isEmpty()) {
      return new Outcome.Ready(choice, holders); // with nothing allowed, the subset filter answers
    }
    return new Outcome.Loading(choice, new Step.Wait(load(ctx, choice), () -> {}));
  }

  /**
   * For a target that cannot be loaded: no endpoint (an empty set, so the EPP answers 503 itself) when every endpoint
   * has listed its models and none lists it, since each would answer 404; else null, any endpoint may serve it (some
   * pod's list is not known yet, or one lists it).
   */
  private static Set<String> servers(String target, List<EndpointState> allowed) {
    for (EndpointState e : allowed) {
      if (e.metrics().baseModels().isEmpty() || e.serves(target)) {
        return null;
      }
    }
    return allowed.isEmpty() ? null : Set.of();
  }

  /** Some pool's pods load an adapter nobody listed when a request names it: any of them may serve it. */
  private static boolean resolvedByServer(List<PoolView> pools) {
    for (PoolView p : pools) {
      if (p.pool().adaptersResolvedByServer()) {
        return true;
      }
    }
    return false;
  }

  private CompletableFuture<Step.Resumption> load(RequestContext ctx, Choice choice) {
    long started = ticker.nanos();
    List<PoolView> pools = choice.pools();
    Set<String> subset = ctx.proxySubset();
    return loads.ensureLoaded(choice.target(), choice.source(), () -> allowedNow.apply(pools, subset))
        .orTimeout(loadWaitTimeout.toMillis(), TimeUnit.MILLISECONDS)
        .handle((address, error) -> {
          waitSeconds.accept((ticker.nanos() - started) / 1e9);
          if (error == null) {
            return new Step.Resumption.Proceed(address);
          }
          Throwable cause = LoadFailure.unwrap(error);
          String why = cause instanceof TimeoutException ? "it was not loaded within " + loadWaitTimeout
              : cause.getMessage();
          return new Step.Resumption.Refuse(ErrorReply.unavailable(ErrorCode.ADAPTER_UNAVAILABLE, "adapter '"
              + choice.target() + "' for model '" + ctx.requestedModel() + "' is unavailable: " + why));
        });
  }
}
