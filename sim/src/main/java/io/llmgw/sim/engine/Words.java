package io.llmgw.sim.engine;

import java.util.SplittableRandom;

/** Output text: one word per token, drawn from a small vocabulary, repeatable under a seed. */
final class Words {
  private static final String[] VOCABULARY = ("the a of to and in is that for it as with was on be by this are from "
      + "at or an which model adapter request token batch cache pool server route query answer data result value "
      + "table select where join order group count time first next last more less").split(" ");

  private Words() {}

  static String next(SplittableRandom random, int index) {
    String w = VOCABULARY[random.nextInt(VOCABULARY.length)];
    return index == 0 ? w : " " + w;
  }
}
