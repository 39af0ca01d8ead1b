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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Issue 17, item 2 and issue 29, item 2: a session has a home pod every replica agrees on, kept while it has room, and
 * left by all replicas together when it has not.
 */
class SessionAffinityScorerTest {
  final AtomicLong nanos = new AtomicLong();
  final List<EndpointState> idle = IntStream.rangeClosed(1, 8)
      .mapToObj(n -> pod(n, metrics(0, 0.1, Set.of()), new Pods.Pending())).toList();

  SessionAffinityScorer scorer() {
    return new SessionAffinityScorer(SessionAffinityScorer.DEFAULT_BALANCE, 5, 0.8);
  }

  static double[] score(SessionAffinityScorer s, String session, List<EndpointState> candidates) {
    double[] out = new double[candidates.size()];
    s.score(PickRequest.of("m").with(RequestAttributes.SESSION_ID, session), candidates, out);
    return out;
  }

  @Test
  void aSessionHasOneHomeWhateverTheScorerInstanceOrTheCandidatesOrder() {
    SessionAffinityScorer one = scorer();
    SessionAffinityScorer other = scorer(); // another replica: no state in common
    List<EndpointState> reversed = new ArrayList<>(idle);
    Collections.reverse(reversed);
    for (int i = 0; i < 200; i++) {
      String session = "chat-" + i;
      double[] a = score(one, session, idle);
      double[] b = score(other, session, reversed);
      int home = argmax(a);
      assertThat(Arrays.stream(a).filter(x -> x > 0).count()).as("one home").isEqualTo(1);
      assertThat(a[home]).as("an idle home").isEqualTo(1.0);
      assertThat(idle.get(home).address()).isEqualTo(reversed.get(argmax(b)).address());
    }
    assertThat(score(one, null, idle)).as("no session").containsOnly(0.0);
  }

  @Test
  void sessionsSpreadOverThePods() {
    int[] homes = new int[idle.size()];
    for (int i = 0; i < 8_000; i++) {
      homes[argmax(score(scorer(), "s-" + i, idle))]++;
    }
    assertThat(IntStream.of(homes).boxed().toList()).allSatisfy(n -> assertThat(n).isBetween(800, 1_200));
  }

  @Test
  void aHomeWhoseQueueOutgrowsTheBoundSendsItsSessionsToTheSameNextPodAndTakesThemBackWhenItDrains() {
    String session = "conversation-7";
    int home = argmax(score(scorer(), session, idle));
    List<EndpointState> busy = new ArrayList<>(idle);
    busy.set(home, pod(home + 1, metrics(3, 0.1, Set.of()), new Pods.Pending()));
    double[] moved = score(scorer(), session, busy);
    int next = argmax(moved);
    assertThat(next).isNotEqualTo(home);
    assertThat(score(scorer(), session, busy)).as("another replica moves it to the same pod").containsExactly(moved);
    List<EndpointState> withoutHome = new ArrayList<>(idle);
    withoutHome.remove(home);
    assertThat(withoutHome.get(argmax(score(scorer(), session, withoutHome))).address())
        .as("the next pod is the one it would have without its home").isEqualTo(idle.get(next).address());
    assertThat(argmax(score(scorer(), session, idle))).as("back home once it drains").isEqualTo(home);
  }

  @Test
  void aQueueWithinTheBoundWeakensThePreferenceAndAFullCacheEndsIt() {
    EndpointState some = pod(1, metrics(2, 0.1, Set.of()), new Pods.Pending());
    EndpointState queued = pod(2, metrics(2, 0.1, Set.of()), new Pods.Pending());
    EndpointState fullCache = pod(3, metrics(2, 0.85, Set.of()), new Pods.Pending());
    List<EndpointState> pods = List.of(some, queued, fullCache);
    for (int i = 0; i < 50; i++) {
      double[] out = score(scorer(), "s" + i, pods);
      assertThat(out[2]).as("a full KV cache is never home").isZero();
      assertThat(out[0] + out[1]).as("queue 2 of 5").isEqualTo(0.6);
    }
  }

  @Test
  void onlyTheLeavingPodsSessionsMove() {
    List<EndpointState> seven = idle.subList(0, 7);
    int moved = 0;
    for (int i = 0; i < 1_000; i++) {
      String before = idle.get(argmax(score(scorer(), "s-" + i, idle))).address();
      String after = seven.get(argmax(score(scorer(), "s-" + i, seven))).address();
      if (!before.equals(after)) {
        assertThat(before).isEqualTo(idle.get(7).address());
        moved++;
      }
    }
    assertThat(moved).isBetween(80, 180);
  }

  static int argmax(double[] scores) {
    int best = 0;
    for (int i = 1; i < scores.length; i++) {
      if (scores[i] > scores[best]) {
        best = i;
      }
    }
    return best;
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
    assertThat(profile(Map.of("balance", 1.5, "maxQueue", 2)).allPlugins())
        .anyMatch(p -> p instanceof SessionAffinityScorer);
    assertThatThrownBy(() -> profile(Map.of("sessionHeader", "x-chat-id"))).hasMessageContaining("sessionHeader")
        .hasMessageContaining("now a parameter of the session-id-producer");
    assertThatThrownBy(() -> profile(Map.of("balance", 0.5))).hasMessageContaining("balance");
    assertThatThrownBy(() -> profile(Map.of("maxSessions", 5))).hasMessageContaining("unknown parameter");
  }

  @Test
  void itConsumesTheSessionAttribute() {
    assertThat(scorer().consumes()).containsExactly(RequestAttributes.SESSION_ID);
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
