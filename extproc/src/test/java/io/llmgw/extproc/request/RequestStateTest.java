package io.llmgw.extproc.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.llmgw.extproc.testing.TestGateway;
import org.junit.jupiter.api.Test;

/** The lifecycle's states move forward only, a wait resumes where it waited, and the end is final. */
class RequestStateTest {
  @Test
  void theDecisionPhasesRunInOrderAndWaitsResumeAtTheNextPhase() {
    assertThat(RequestState.RECEIVING.canMoveTo(RequestState.RESOLVE)).isTrue();
    assertThat(RequestState.ADMIT.canMoveTo(RequestState.QUEUED)).isTrue();
    assertThat(RequestState.QUEUED.canMoveTo(RequestState.ADMIT)).as("the admission steps after the wait").isTrue();
    assertThat(RequestState.LOADING.canMoveTo(RequestState.SCHEDULE)).isTrue();
    assertThat(RequestState.PREPARE.canMoveTo(RequestState.PREPARING)).isTrue();
    assertThat(RequestState.PREPARING.canMoveTo(RequestState.ADMIT)).as("a render server answered").isTrue();
    assertThat(RequestState.PREPARING.canMoveTo(RequestState.PREPARE)).as("never prepared twice").isFalse();
    assertThat(RequestState.QUEUED.canMoveTo(RequestState.LOAD)).as("never past the steps after the wait").isFalse();
    assertThat(RequestState.LOADING.canMoveTo(RequestState.LOAD)).as("never prepared twice").isFalse();
    assertThat(RequestState.SCHEDULE.canMoveTo(RequestState.RESOLVE)).as("never re-entered from the top").isFalse();
    assertThat(RequestState.RECEIVING.canMoveTo(RequestState.ROUTED)).isFalse();
  }

  @Test
  void anyStateMayEndButNothingFollowsTheEnd() {
    for (RequestState s : RequestState.values()) {
      if (!s.terminal()) {
        assertThat(s.canMoveTo(RequestState.ANSWERED)).isTrue();
        assertThat(s.canMoveTo(RequestState.DONE)).isTrue();
      } else {
        assertThat(s.canMoveTo(RequestState.DONE)).isFalse();
      }
    }
  }

  @Test
  void anIllegalMoveIsABugThatNamesTheRequestAndBothStates() {
    try (TestGateway g = new TestGateway(1, "")) {
      RequestContext ctx = Contexts.arrived(g, "m");
      assertThatThrownBy(() -> ctx.moveTo(RequestState.ROUTED)).isInstanceOf(IllegalStateException.class)
          .hasMessage("request " + ctx.requestId() + " cannot go from RECEIVING to ROUTED");
    }
  }

  @Test
  void onlyPreparingQueuedAndLoadingWaitAndOnlyRoutedAndRespondingCountInFlight() {
    for (RequestState s : RequestState.values()) {
      assertThat(s.waiting()).isEqualTo(s == RequestState.PREPARING || s == RequestState.QUEUED
          || s == RequestState.LOADING);
      assertThat(s.routed()).isEqualTo(s == RequestState.ROUTED || s == RequestState.RESPONDING);
    }
  }
}
