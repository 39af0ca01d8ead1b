package io.llmgw.sim.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.llmgw.sim.engine.SequenceListener.Usage;
import java.util.ArrayList;
import java.util.List;

/**
 * The Responses API's shapes, as vLLM answers them: the {@code response} object and a streamed call's events, for
 * one output item, an assistant message or (with tools) a {@code function_call}.
 */
final class ResponsesShapes {
  private ResponsesShapes() {}

  /**
   * A {@code response} object: {@code in_progress} with no output and no usage while {@code text} is null (the start
   * of a stream), else its one output item: {@code completed}, or as vLLM and OpenAI answer a response cut by its
   * token limit, {@code incomplete} with {@code incomplete_details.reason: max_output_tokens}.
   *
   * @param plan the call the answer makes, or null for a message
   */
  static ObjectNode response(OpenAiRequest r, String id, long created, String text, String finish, Usage usage,
      Plan plan) {
    boolean cut = "length".equals(finish);
    ObjectNode root = OpenAiResponses.JSON.createObjectNode().put("id", id).put("object", "response")
        .put("created_at", created).put("model", r.model())
        .put("status", text == null ? "in_progress" : cut ? "incomplete" : "completed").putNull("error");
    if (cut) {
      root.putObject("incomplete_details").put("reason", "max_output_tokens");
    } else {
      root.putNull("incomplete_details");
    }
    root.putNull("instructions").put("parallel_tool_calls", true).put("temperature", 1.0).put("top_p", 1.0)
        .put("tool_choice", "auto");
    root.putObject("metadata");
    root.putArray("tools");
    ArrayNode output = root.putArray("output");
    if (text == null) {
      root.putNull("usage");
      return root;
    }
    output.add(item(id, text, plan, true));
    ObjectNode u = root.putObject("usage").put("input_tokens", usage.promptTokens())
        .put("output_tokens", usage.completionTokens())
        .put("total_tokens", usage.promptTokens() + usage.completionTokens());
    u.putObject("input_tokens_details").put("cached_tokens", usage.cachedTokens());
    u.putObject("output_tokens_details").put("reasoning_tokens", 0);
    return root;
  }

  /** The output item: the assistant message, or the function call with its arguments; in progress until done. */
  private static ObjectNode item(String responseId, String text, Plan plan, boolean done) {
    if (plan != null && plan.toolCall()) {
      return OpenAiResponses.JSON.createObjectNode().put("type", "function_call").put("id", itemId(responseId, plan))
          .put("call_id", "call_" + plan.callId()).put("name", plan.structure().toolName())
          .put("arguments", done ? text : "").put("status", done ? "completed" : "in_progress");
    }
    ObjectNode message = OpenAiResponses.JSON.createObjectNode().put("type", "message")
        .put("id", itemId(responseId, null)).put("status", done ? "completed" : "in_progress").put("role", "assistant");
    ArrayNode content = message.putArray("content");
    if (done) {
      content.add(outputText(text));
    }
    return message;
  }

  private static String itemId(String responseId, Plan plan) {
    return plan != null && plan.toolCall() ? "fc_" + plan.callId() : "msg_" + responseId;
  }

  private static ObjectNode outputText(String text) {
    ObjectNode part = OpenAiResponses.JSON.createObjectNode().put("type", "output_text").put("text", text);
    part.putArray("annotations");
    part.putArray("logprobs");
    return part;
  }

  /**
   * The events before the first token, in vLLM's order: {@code response.created}, {@code response.in_progress},
   * {@code response.output_item.added}, and for a message {@code response.content_part.added} (its text part).
   */
  static List<ObjectNode> start(OpenAiRequest r, String id, long created, Plan plan) {
    ObjectNode inProgress = response(r, id, created, null, null, null, plan);
    List<ObjectNode> out = new ArrayList<>();
    out.add(event("response.created").set("response", inProgress));
    out.add(event("response.in_progress").set("response", inProgress));
    out.add(event("response.output_item.added").put("output_index", 0).set("item", item(id, "", plan, false)));
    if (plan == null || !plan.toolCall()) {
      out.add(event("response.content_part.added").put("output_index", 0).put("item_id", itemId(id, null))
          .put("content_index", 0).set("part", outputText("")));
    }
    return out;
  }

  /** One token: more text, or more of the call's arguments. */
  static ObjectNode delta(String id, String piece, Plan plan) {
    if (plan != null && plan.toolCall()) {
      return event("response.function_call_arguments.delta").put("item_id", itemId(id, plan)).put("output_index", 0)
          .put("delta", piece);
    }
    ObjectNode e = event("response.output_text.delta").put("content_index", 0).put("output_index", 0)
        .put("item_id", itemId(id, null)).put("delta", piece);
    e.putArray("logprobs");
    return e;
  }

  /**
   * The closing events, in vLLM's order: for a message {@code response.output_text.done} and
   * {@code response.content_part.done}, for a call {@code response.function_call_arguments.done}; then
   * {@code response.output_item.done} and {@code response.completed} (the whole response, with usage; vLLM names the
   * last event so even when the response is {@code incomplete}).
   */
  static List<ObjectNode> end(OpenAiRequest r, String id, long created, String text, String finish, Usage usage,
      Plan plan) {
    List<ObjectNode> out = new ArrayList<>();
    if (plan != null && plan.toolCall()) {
      out.add(event("response.function_call_arguments.done").put("item_id", itemId(id, plan)).put("output_index", 0)
          .put("arguments", text));
    } else {
      ObjectNode done = event("response.output_text.done").put("item_id", itemId(id, null)).put("output_index", 0)
          .put("content_index", 0).put("text", text);
      done.putArray("logprobs");
      out.add(done);
      out.add(event("response.content_part.done").put("item_id", itemId(id, null)).put("output_index", 0)
          .put("content_index", 0).set("part", outputText(text)));
    }
    out.add(event("response.output_item.done").put("output_index", 0).set("item", item(id, text, plan, true)));
    out.add(event("response.completed").set("response", response(r, id, created, text, finish, usage, plan)));
    return out;
  }

  private static ObjectNode event(String type) {
    return OpenAiResponses.JSON.createObjectNode().put("type", type);
  }
}
