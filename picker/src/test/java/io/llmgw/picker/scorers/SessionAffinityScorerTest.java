package io.llmgw.picker.scorers;

import static io.llmgw.picker.Pods.metrics;
import static io.llmgw.picker.Pods.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.PickRequest;
import io.llmgw.picker.PluginTimings;
import io.llmgw.picker.Pods;
import io.llmgw.picker.SchedulingProfile;
import io.llmgw.picker.SessionKey;
import io.llmgw.picker.attributes.RequestAttributes;
import io.llmgw.picker.config.PluginEnv;
import io.llmgw.picker.config.PluginRegistry;
import io.llmgw.picker.config.PluginSpec;
import io.llmgw.picker.config.ProfileSpec;
import io.llmgw.picker.config.SchedulingConfig;
import io.llmgw.picker.pickers.MaxScorePicker;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Issue 17, item 2: a session's next request goes where its last one went, while that pod can take it; memory stays capped. */
class SessionAffinityScorerTest {
  final AtomicLong nanos = new AtomicLong();
  final EndpointState a = pod(1, metrics(0, 0.1, Set.of()), new Pods.Pending());
  final EndpointState b = pod(2, metrics(0, 0.1, Set.of()), new Pods.Pending());
  final EndpointState c = pod(3, metrics(0, 0.1, Set.of()), new Pods.Pending());

  SessionAffinityScorer scorer(int maxSessions) {
    return new SessionAffinityScorer(maxSessions, 60, 5, 0.8,
        nanos::get);
  }

  static double[] score(SessionAffinityScorer s, String session, List<EndpointState> candidates) {
    double[] out = new double[candidates.size()];
    s.score(PickRequest.of("m").with(RequestAttributes.SESSION_ID, session), candidates, out);
    return out;
  }

  @Test
  void theSessionsLastPodScoresOneAndNoOtherDoes() {
    SessionAffinityScorer s = scorer(10);
    assertThat(score(s, "chat-1", List.of(a, b, c))).containsExactly(0, 0, 0);
    s.onPicked(PickRequest.of("m").with(RequestAttributes.SESSION_ID, "chat-1"), b);
    assertThat(score(s, "chat-1", List.of(a, b, c))).containsExactly(0, 1, 0);
    assertThat(score(s, "chat-2", List.of(a, b, c))).as("another session").containsExactly(0, 0, 0);
    assertThat(score(s, null, List.of(a, b, c))).as("no session").containsExactly(0, 0, 0);
    assertThat(score(s, "chat-1", List.of(a, c))).as("its pod filtered out").containsExactly(0, 0);
    s.onPicked(PickRequest.of("m").with(RequestAttributes.SESSION_ID, "chat-1"), c);
    assertThat(score(s, "chat-1", List.of(a, b, c))).as("it moved").containsExactly(0, 0, 1);
  }

  @Test
  void aQueueWeakensTheSessionsPreferenceAndAFullQueueOrCacheEndsIt() {
    SessionAffinityScorer s = scorer(10);
    EndpointState some = pod(1, metrics(2, 0.1, Set.of()), new Pods.Pending());
    EndpointState queued = pod(2, metrics(5, 0.1, Set.of()), new Pods.Pending());
    EndpointState fullCache = pod(3, metrics(0, 0.85, Set.of()), new Pods.Pending());
    s.onPicked(PickRequest.of("m").with(RequestAttributes.SESSION_ID, "some"), some);
    s.onPicked(PickRequest.of("m").with(RequestAttributes.SESSION_ID, "q"), queued);
    s.onPicked(PickRequest.of("m").with(RequestAttributes.SESSION_ID, "kv"), fullCache);
    assertThat(score(s, "some", List.of(some, queued, fullCache))).containsExactly(0.6, 0, 0);
    assertThat(score(s, "q", List.of(some, queued, fullCache))).containsExactly(0, 0, 0);
    assertThat(score(s, "kv", List.of(some, queued, fullCache))).containsExactly(0, 0, 0);
  }

  @Test
  void sessionsExpireAfterTheirTtlAndTheLeastRecentlyUsedGoFirst() {
    SessionAffinityScorer s = scorer(2);
    s.onPicked(PickRequest.of("m").with(RequestAttributes.SESSION_ID, "one"), a);
    s.onPicked(PickRequest.of("m").with(RequestAttributes.SESSION_ID, "two"), b);
    score(s, "one", List.of(a)); // "one" is now the more recently used
    s.onPicked(PickRequest.of("m").with(RequestAttributes.SESSION_ID, "three"), c);
    assertThat(score(s, "one", List.of(a))).containsExactly(1);
    assertThat(score(s, "two", List.of(b))).as("evicted: least recently used").containsExactly(0);
    assertThat(s.sessions()).isEqualTo(2);

    nanos.addAndGet(Duration.ofSeconds(61).toNanos());
    assertThat(score(s, "one", List.of(a))).as("expired").containsExactly(0);
    s.onPicked(PickRequest.of("m").with(RequestAttributes.SESSION_ID, "four"), a);
    assertThat(s.sessions()).as("the expired ones went with the next write").isEqualTo(1);
  }

  @Test
  void aFloodOfSessionIdsStaysWithinTheCap() {
    SessionAffinityScorer s = scorer(1_000);
    for (int i = 0; i < 200_000; i++) {
      s.onPicked(PickRequest.of("m").with(RequestAttributes.SESSION_ID, "flood-" + i), i % 2 == 0 ? a : b);
    }
    assertThat(s.sessions()).isEqualTo(1_000);
    assertThat(score(s, "flood-199999", List.of(a, b))).containsExactly(0, 1);
  }

  @Test
  void sessionsOfAPodThatLeftAreForgotten() {
    SessionAffinityScorer s = scorer(10);
    s.onPicked(PickRequest.of("m").with(RequestAttributes.SESSION_ID, "x"), a);
    s.onPicked(PickRequest.of("m").with(RequestAttributes.SESSION_ID, "y"), b);
    s.retainOnly(Set.of(b.address()));
    assertThat(s.sessions()).isEqualTo(1);
    assertThat(score(s, "y", List.of(a, b))).containsExactly(0, 1);
  }

  @Test
  void theSessionComesFromTheHeaderElseTheUserFieldWhenAskedAndNeverFromAHugeId() {
    SessionKey header = new SessionKey("x-session-id", false);
    SessionKey user = new SessionKey("x-conversation", true);
    assertThat(header.of(Map.of("x-session-id", "s1"), "u1")).isEqualTo("s1");
    assertThat(header.of(Map.of(), "u1")).isNull();
    assertThat(user.of(Map.of(), "u1")).isEqualTo("u1");
    assertThat(user.of(Map.of("x-conversation", "c1"), "u1")).isEqualTo("c1");
    assertThat(header.of(Map.of("x-session-id", "s".repeat(SessionKey.MAX_LENGTH + 1)), null)).isNull();
    assertThat(header.of(Map.of("x-session-id", "  "), null)).isNull();
  }

  @Test
  void theRegistryBuildsItFromParametersAndNamesWhatIsWrong() {
    assertThat(profile(Map.of("maxSessions", 5, "maxQueue", 2)).allPlugins())
        .anyMatch(p -> p instanceof SessionAffinityScorer);
    assertThatThrownBy(() -> profile(Map.of("sessionHeader", "x-chat-id"))).hasMessageContaining("sessionHeader")
        .hasMessageContaining("now a parameter of the session-id-producer");
    assertThatThrownBy(() -> profile(Map.of("maxSessions", 0))).hasMessageContaining("between 1 and 10000000");
    assertThatThrownBy(() -> profile(Map.of("ttl", 5))).hasMessageContaining("unknown parameter");
  }

  @Test
  void itConsumesTheSessionAttribute() {
    assertThat(scorer(10).consumes()).containsExactly(RequestAttributes.SESSION_ID);
  }

  SchedulingProfile profile(Map<String, Object> parameters) {
    PluginEnv env = new PluginEnv(Clock.systemUTC(), nanos::get, () -> new Random(1), Duration.ofMillis(200), 1,
        PluginTimings.NONE);
    PluginSpec scorer = PluginSpec.of(SessionAffinityScorer.TYPE, parameters);
    PluginSpec picker = PluginSpec.of(MaxScorePicker.TYPE);
    return PluginRegistry.builtIn().build(new SchedulingConfig("test", List.of(scorer, picker), List.of(
        new ProfileSpec("default", List.of(ProfileSpec.Ref.to(scorer.name(), 2), ProfileSpec.Ref.to(picker.name()))))),
        env, w -> {});
  }
}
