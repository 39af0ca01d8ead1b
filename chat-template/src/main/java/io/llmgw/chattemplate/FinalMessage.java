package io.llmgw.chattemplate;

import io.llmgw.chattemplate.jinja.StringMethods;
import java.util.List;
import java.util.Map;

/**
 * {@code continue_final_message}: the rendered chat is cut just after the last message's text, so that the model goes
 * on with it instead of starting a new turn; Transformers' rule, with Python's whitespace.
 */
final class FinalMessage {
  private FinalMessage() {
  }

  /** @throws IllegalArgumentException when the final message has no text, or its text is not in the rendered chat */
  static String continueFrom(String rendered, List<Object> messages) {
    if (messages.isEmpty() || !(messages.get(messages.size() - 1) instanceof Map<?, ?> last)) {
      throw new IllegalArgumentException("continue_final_message needs a final message");
    }
    String text = finalText(last.get("content"));
    String stripped = StringMethods.strip(text, null, true, true);
    int at = rendered.lastIndexOf(stripped);
    if (at < 0) {
      throw new IllegalArgumentException(
          "continue_final_message is set but the final message does not appear in the rendered chat");
    }
    int leftStripped = StringMethods.strip(text, null, true, false).length();
    int end = Math.min(rendered.length(), at + leftStripped);
    boolean spacingKept = rendered.substring(at, end).equals(text);
    return rendered.substring(0, at + (spacingKept ? leftStripped : stripped.length()));
  }

  private static String finalText(Object content) {
    if (content instanceof String s) {
      return s;
    }
    if (content instanceof List<?> parts) {
      for (int i = parts.size() - 1; i >= 0; i--) {
        if (parts.get(i) instanceof Map<?, ?> part && part.get("text") instanceof String text) {
          return text;
        }
      }
    }
    throw new IllegalArgumentException("continue_final_message is set but the final message has no text to continue");
  }
}
