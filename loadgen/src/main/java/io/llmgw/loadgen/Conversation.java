package io.llmgw.loadgen;

import java.util.Random;

/**
 * One chat session of a conversational {@link Workload}: its turns are drawn when it is made (so a seed fixes every
 * prompt whatever the timing), and each turn's body holds the whole conversation so far. The replies in the history are
 * words of the length the turn asked for, not what the pod streamed: what matters to a prefix cache is that the next
 * prompt starts with this one, and that holds either way.
 */
final class Conversation {
  private final String id;
  private final String model;
  private final String[] userTurns;
  private final int[] outputTokens;
  private final String[] replies;
  private final StringBuilder history;
  private int next;

  Conversation(Workload workload, String id, Random random) {
    this.id = id;
    this.model = Workload.modelOf(workload.models().get(workload.pickModel(random)));
    int turns = workload.turns(random);
    userTurns = new String[turns];
    outputTokens = new int[turns];
    replies = new String[turns];
    for (int i = 0; i < turns; i++) {
      userTurns[i] = Workload.words(random, workload.userTokens(random));
      outputTokens[i] = workload.outputTokens(random);
      replies[i] = Workload.words(random, outputTokens[i]);
    }
    history = new StringBuilder("{\"role\":\"system\",\"content\":\"").append(workload.systemPrompt(model))
        .append("\"}");
  }

  String id() {
    return id;
  }

  String model() {
    return model;
  }

  int turns() {
    return userTurns.length;
  }

  boolean hasNext() {
    return next < userTurns.length;
  }

  /** The next turn's body: the conversation so far, then the new user turn; its reply joins the history. */
  String nextBody() {
    int turn = next++;
    history.append(",{\"role\":\"user\",\"content\":\"").append(userTurns[turn]).append("\"}");
    String body = "{\"model\":\"" + model + "\",\"stream\":true,\"stream_options\":{\"include_usage\":true},"
        + "\"max_tokens\":" + outputTokens[turn] + ",\"messages\":[" + history + "]}";
    history.append(",{\"role\":\"assistant\",\"content\":\"").append(replies[turn]).append("\"}");
    return body;
  }
}
