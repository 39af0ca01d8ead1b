package io.llmgw.chattemplate;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Random;

/**
 * Generated chat requests as clients send them: system prompts, many turns, tool definitions, tool calls and their
 * results, reasoning, multi-part and image content, text in many scripts with emoji, text that looks like template
 * syntax or special tokens, long messages, empty content, and (a few) conversations a template refuses.
 */
final class Conversations {
  static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] WORDS = {"the", "cache", "route", "pod", "model", "adapter", "token", "prefix",
      "latency", "queue", "because", "whereas", "GPU", "vLLM", "Envoy", "answer", "question", "why", "how", "it's",
      "don't", "42", "3.14", "1e-5", "-7", "x=y+1", "a\\b", "\"quoted\"", "'single'", "tab\there", "{{ x }}",
      "{% if %}", "{# c #}", "<b>bold</b>", "&amp;", "café", "naïve", "straße", "Ελληνικά", "русский", "日本語の文",
      "中文句子", "한국어", "עברית", "العربية", "हिन्दी", "ไทย", "👋", "👋🏽", "🧑‍💻", "🇫🇷", "❤️", "😀😃", "∑∫√",
      "½", "\u00a0nbsp", "—", "…", "«»", "", "  ", "\n", "\n\n", "<|im_end|>", "<|eot_id|>", "<end_of_turn>",
      "<think>", "</think>", "<tool_call>", "<start_of_image>"};
  private static final String[] EDGES = {"", "", "", " ", "  ", "\n", "\n\n", "\t", " \n "};
  /**
   * Qwen's template strips newlines only ({@code lstrip('\n')}) from assistant text; Hugging Face's JavaScript Jinja
   * ignores the argument and strips all whitespace, unlike Python (and so vLLM): assistant text there starts and ends
   * with newlines only, where the two agree. {@code ChatTemplateTest} holds Python's meaning.
   */
  private static final String[] NEWLINE_EDGES = {"", "", "\n", "\n\n"};

  private final Random random;
  private final String model;

  Conversations(long seed, String model) {
    this.random = new Random(seed);
    this.model = model;
  }

  String text(int maxWords) {
    return text(maxWords, EDGES);
  }

  private String text(int maxWords, String[] edges) {
    StringBuilder core = new StringBuilder();
    int words = random.nextInt(maxWords + 1);
    for (int i = 0; i < words; i++) {
      String word = WORDS[random.nextInt(WORDS.length)];
      if (edges == NEWLINE_EDGES && word.endsWith("think>")) {
        word = "think"; // Qwen's template cuts assistant text at these tags, and strips the pieces as above
      }
      core.append(i == 0 ? "" : random.nextInt(12) == 0 ? "\n" : " ").append(word);
    }
    String text = edges == NEWLINE_EDGES ? trimAnySpace(core.toString()) : core.toString();
    return edges[random.nextInt(edges.length)] + text + edges[random.nextInt(edges.length)];
  }

  private static String trimAnySpace(String s) {
    int start = 0;
    int end = s.length();
    while (start < end && (Character.isWhitespace(s.charAt(start)) || Character.isSpaceChar(s.charAt(start)))) {
      start++;
    }
    while (end > start && (Character.isWhitespace(s.charAt(end - 1)) || Character.isSpaceChar(s.charAt(end - 1)))) {
      end--;
    }
    return s.substring(start, end);
  }

  private String messageText() {
    return messageText(EDGES);
  }

  private String messageText(String[] edges) {
    int kind = random.nextInt(20);
    return kind == 0 ? "" : kind == 1 ? text(1500, edges) : text(40, edges);
  }

  ObjectNode request() {
    ObjectNode request = JSON.createObjectNode().put("model", model);
    ArrayNode messages = request.putArray("messages");
    boolean alternating = model.equals("gemma3") && random.nextInt(25) != 0; // a few break the roles rule
    ArrayNode tools = random.nextInt(3) == 0 ? tools(request) : null;
    if (random.nextBoolean()) {
      messages.add(message("system", messageText()));
    }
    int turns = 1 + random.nextInt(random.nextInt(4) == 0 ? 24 : 6);
    for (int t = 0; t < turns; t++) {
      messages.add(userMessage());
      if (t == turns - 1 && random.nextBoolean()) {
        break;
      }
      if (!alternating && tools != null && random.nextInt(3) == 0) {
        toolRound(messages, tools);
      }
      messages.add(assistantMessage(alternating));
      if (!alternating && random.nextInt(15) == 0) {
        messages.add(random.nextBoolean() ? message("user", messageText()) : assistantMessage(true));
      }
    }
    if (random.nextInt(4) == 0) {
      request.put("add_generation_prompt", false);
    }
    if (model.equals("qwen3") && random.nextInt(4) == 0) {
      request.putObject("chat_template_kwargs").put("enable_thinking", random.nextBoolean());
    }
    return request;
  }

  private ObjectNode message(String role, String content) {
    return JSON.createObjectNode().put("role", role).put("content", content);
  }

  private ObjectNode userMessage() {
    if (random.nextInt(5) != 0) {
      return message("user", messageText());
    }
    ObjectNode m = JSON.createObjectNode().put("role", "user");
    ArrayNode parts = m.putArray("content");
    int n = 1 + random.nextInt(3);
    for (int i = 0; i < n; i++) {
      if (model.equals("gemma3") && random.nextInt(4) == 0) {
        parts.addObject().put("type", "image_url").putObject("image_url").put("url", "data:image/png;base64,AAAA");
      } else {
        parts.addObject().put("type", "text").put("text", messageText());
      }
    }
    return m;
  }

  private ObjectNode assistantMessage(boolean plain) {
    String[] edges = model.equals("qwen3") ? NEWLINE_EDGES : EDGES;
    String content = messageText(edges);
    if (!plain && model.equals("qwen3") && random.nextInt(3) == 0) {
      content = "<think>\n" + text(30, edges) + "\n</think>\n\n" + content;
    }
    return message("assistant", content);
  }

  private void toolRound(ArrayNode messages, ArrayNode tools) {
    ObjectNode call = JSON.createObjectNode().put("role", "assistant");
    if (random.nextBoolean()) {
      call.putNull("content");
    } else {
      call.put("content", text(10, model.equals("qwen3") ? NEWLINE_EDGES : EDGES));
    }
    ArrayNode calls = call.putArray("tool_calls");
    int n = 1 + random.nextInt(2);
    for (int i = 0; i < n; i++) {
      ObjectNode function = calls.addObject().put("id", "call_" + random.nextInt(1_000_000)).put("type", "function")
          .putObject("function").put("name", tools.get(random.nextInt(tools.size())).path("function").path("name")
              .asText());
      function.put("arguments", random.nextInt(10) == 0 ? "" : arguments().toString());
    }
    messages.add(call);
    for (int i = 0; i < n; i++) {
      messages.add(JSON.createObjectNode().put("role", "tool").put("tool_call_id", "call_" + i)
          .put("content", random.nextBoolean() ? arguments().toString() : messageText()));
    }
  }

  private ObjectNode arguments() {
    ObjectNode args = JSON.createObjectNode();
    int n = random.nextInt(4);
    for (int i = 0; i < n; i++) {
      String key = new String[] {"city", "unit", "query", "limit", "ratio", "tags", "exact", "nested", "ünïcode"}[random
          .nextInt(9)];
      switch (random.nextInt(6)) {
        case 0 -> args.put(key, text(4));
        case 1 -> args.put(key, random.nextInt(2000) - 1000);
        case 2 -> args.put(key, (random.nextInt(400) - 200) + 0.25);
        case 3 -> args.put(key, random.nextBoolean());
        case 4 -> args.putArray(key).add(text(2)).add(random.nextInt(9));
        default -> args.putObject(key).put("inner", text(3)).putNull("none");
      }
    }
    return args;
  }

  private ArrayNode tools(ObjectNode request) {
    ArrayNode tools = request.putArray("tools");
    int n = 1 + random.nextInt(3);
    for (int i = 0; i < n; i++) {
      ObjectNode function = tools.addObject().put("type", "function").putObject("function")
          .put("name", "tool_" + i + "_" + new String[] {"weather", "search", "calc"}[random.nextInt(3)]);
      if (random.nextInt(4) != 0) {
        function.put("description", text(12));
      }
      if (random.nextInt(5) != 0) {
        ObjectNode parameters = function.putObject("parameters").put("type", "object");
        ObjectNode properties = parameters.putObject("properties");
        properties.putObject("city").put("type", "string").put("description", text(5));
        properties.putObject("unit").put("type", "string").putArray("enum").add("celsius").add("fahrenheit");
        properties.putObject("limit").put("type", "integer").put("minimum", 1).put("maximum", 50);
        parameters.putArray("required").add("city");
      }
      if (random.nextInt(6) == 0) {
        function.put("strict", true);
      }
    }
    return tools;
  }
}
