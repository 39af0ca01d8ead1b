package io.llmgw.extproc.request.prepare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.llmgw.extproc.request.RequestContext;
import io.llmgw.picker.Plugin;
import io.llmgw.picker.attributes.AttributeKey;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Producers run after the producers of what they consume; what is consumed and made by nobody stops start-up. */
class ProducersTest {
  static final AttributeKey<String> TOKENS = AttributeKey.of("test-tokens", String.class, "test-tokens-producer");
  static final AttributeKey<String> TENANT = AttributeKey.of("test-tenant", String.class, null);

  record Fake(String type, Set<AttributeKey<?>> produces, Set<AttributeKey<?>> consumes) implements Producer {
    @Override
    public void produce(RequestContext ctx) {}
  }

  record Consumer(String type, Set<AttributeKey<?>> consumes) implements Plugin {}

  @Test
  void producersRunAfterWhatTheyConsumeAndDefaultsJoinForWhatNobodyListed() {
    Producer budget = new Fake("budget", Set.of(TENANT), Set.of(TOKENS));
    Producer tokens = new Fake("test-tokens-producer", Set.of(TOKENS), Set.of());
    List<Producer> order = Producers.order(List.of(budget), List.of(new Consumer("scorer", Set.of(TENANT))),
        type -> type.equals("test-tokens-producer") ? tokens : null);
    assertThat(order).containsExactly(tokens, budget);
  }

  @Test
  void anAttributeNobodyMakesIsAnErrorNamingTheConsumerAndTheAttribute() {
    assertThatThrownBy(() -> Producers.order(List.of(), List.of(new Consumer("tenant-scorer", Set.of(TENANT))),
        type -> null)).hasMessageContaining("plugin tenant-scorer consumes attribute test-tenant")
        .hasMessageContaining("which no producer makes; list a producer of it");
    assertThatThrownBy(() -> Producers.order(List.of(), List.of(new Consumer("scorer", Set.of(TOKENS))),
        type -> null)).hasMessageContaining("its producer test-tokens-producer is not known");
  }

  @Test
  void twoMakersOrACircleAreRefused() {
    assertThatThrownBy(() -> Producers.order(List.of(new Fake("a", Set.of(TENANT), Set.of()),
        new Fake("b", Set.of(TENANT), Set.of())), List.of(), type -> null))
        .hasMessageContaining("attribute test-tenant is made by two producers, a and b");
    assertThatThrownBy(() -> Producers.order(List.of(new Fake("a", Set.of(TENANT), Set.of(TOKENS)),
        new Fake("b", Set.of(TOKENS), Set.of(TENANT))), List.of(), type -> null))
        .hasMessageContaining("consumes, through others, what it makes");
  }
}
