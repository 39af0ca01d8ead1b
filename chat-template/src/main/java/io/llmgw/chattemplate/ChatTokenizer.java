package io.llmgw.chattemplate;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import com.fasterxml.jackson.databind.JsonNode;
import io.llmgw.chattemplate.jinja.Template;
import io.llmgw.chattemplate.jinja.TemplateException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * A model's prompts as vLLM computes them from its Hugging Face files: a chat request rendered with the model's chat
 * template (as Transformers' {@code apply_chat_template} renders it for vLLM) and tokenized without adding special
 * tokens (vLLM's default for chat: the template writes them); a completion prompt tokenized with them. Thread-safe.
 */
public final class ChatTokenizer implements AutoCloseable {
  /** Rendering limits: a prompt of more characters, or a template that works longer, is refused. */
  public static final int MAX_RENDERED_CHARS = 32 << 20;
  static final long MAX_STEPS = 20_000_000;
  /** Token ids of prompt pieces kept for reuse, at most twice this. */
  static final long SEGMENT_CACHE_BYTES = 64L << 20;

  private final Path dir;
  private final HuggingFaceTokenizer tokenizer;
  private final Template template;
  private final Template toolUseTemplate;
  private final Map<String, Object> specialTokens;
  private final SegmentedEncoder encoder;

  private ChatTokenizer(Path dir, ModelFiles files) {
    this.dir = dir;
    this.template = files.chatTemplate() == null
        ? null
        : Template.parse(files.chatTemplate(), MAX_RENDERED_CHARS, MAX_STEPS);
    this.toolUseTemplate = files.toolUseTemplate() == null
        ? null
        : Template.parse(files.toolUseTemplate(), MAX_RENDERED_CHARS, MAX_STEPS);
    this.specialTokens = files.specialTokens();
    try {
      // nothing downloaded, nothing cut: the file is all there is, and the prompt's whole length is wanted
      this.tokenizer = HuggingFaceTokenizer.newInstance(files.tokenizerJson(),
          Map.of("modelMaxLength", "100000000", "truncation", "false", "padding", "false"));
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("cannot read " + files.tokenizerJson() + " as a tokenizer: "
          + e.getMessage(), e);
    }
    this.encoder = new SegmentedEncoder(tokenizer, files.tokenizerJson(), SEGMENT_CACHE_BYTES);
  }

  /**
   * Opens a model directory ({@code tokenizer.json} and {@code tokenizer_config.json}, as Hugging Face ships them),
   * or the directory of the {@code tokenizer.json} named.
   *
   * @throws IllegalArgumentException naming the file, when the directory has no tokenizer or a template that cannot be
   *     parsed
   */
  public static ChatTokenizer open(Path dir) {
    try {
      return new ChatTokenizer(dir, ModelFiles.read(dir));
    } catch (TemplateException e) {
      throw new IllegalArgumentException(dir + ": its chat template cannot be used: " + e.getMessage(), e);
    }
  }

  /** False for a base model, whose files have no chat template: only its completions can be tokenized. */
  public boolean hasChatTemplate() {
    return template != null;
  }

  /** True when the template reads content as a list of parts (vLLM's "openai" content format). */
  public boolean contentAsParts() {
    return template != null && template.iteratesContent();
  }

  /**
   * The prompt text of a chat request ({@code messages}, {@code tools}, {@code chat_template_kwargs}, ...).
   *
   * @throws IllegalArgumentException for a request vLLM would refuse before rendering
   * @throws TemplateException when the template refuses it or cannot render it
   */
  public String render(JsonNode chatRequest) {
    return render(chatInput(chatRequest));
  }

  /** What vLLM hands this model's template for a chat request. */
  public TemplateInput chatInput(JsonNode chatRequest) {
    return TemplateInput.ofChat(chatRequest, contentAsParts());
  }

  /** What vLLM hands this model's template for a Responses API request ({@code instructions}, {@code input}). */
  public TemplateInput responsesInput(JsonNode responsesRequest) {
    return ResponsesInput.of(responsesRequest, contentAsParts());
  }

  /** The prompt text of a Responses API request. */
  public String renderResponses(JsonNode responsesRequest) {
    return render(responsesInput(responsesRequest));
  }

  public String render(TemplateInput input) {
    if (template == null) {
      throw new IllegalArgumentException(dir + " has no chat template (tokenizer_config.json's chat_template, "
          + "chat_template.jinja or chat_template.json): its chat requests cannot be rendered");
    }
    Template chosen = input.tools() != null && toolUseTemplate != null ? toolUseTemplate : template;
    Map<String, Object> context = new HashMap<>(specialTokens);
    context.putAll(input.kwargs());
    context.put("messages", input.messages());
    context.put("tools", input.tools());
    context.put("documents", null);
    context.put("add_generation_prompt", input.addGenerationPrompt());
    String rendered = chosen.render(context);
    return input.continueFinalMessage() ? FinalMessage.continueFrom(rendered, input.messages()) : rendered;
  }

  /** The token ids of a rendered chat prompt: special tokens are those the template wrote, none added. */
  public int[] encodeRendered(String prompt) {
    return encoder.encode(prompt);
  }

  /** The same, tokenized whole and never from the cache of pieces: what {@link #encodeRendered} must equal. */
  public int[] encodeWhole(String prompt) {
    return encoder.whole(prompt);
  }

  /** Whether rendered prompts are tokenized in cached pieces (see {@link SegmentedEncoder}). */
  public boolean reusesPieces() {
    return encoder.segmented();
  }

  /** The token ids of a completion's prompt, with the special tokens the tokenizer adds (vLLM's default there). */
  public int[] encodeCompletion(String prompt) {
    return ids(tokenizer.encode(prompt, true, false).getIds());
  }

  /**
   * A completion's {@code prompt}: one text (tokenized with the special tokens vLLM adds) or one list of token ids
   * (taken as they are).
   *
   * @return null for several prompts in one request
   * @throws IllegalArgumentException for anything else
   */
  public int[] completionIds(JsonNode prompt) {
    JsonNode one = prompt.isArray() && prompt.size() == 1 && !prompt.get(0).isNumber() ? prompt.get(0) : prompt;
    if (one.isTextual()) {
      return encodeCompletion(one.asText());
    }
    if (one.isArray() && !one.isEmpty() && one.get(0).isInt()) {
      int[] ids = new int[one.size()];
      for (int i = 0; i < ids.length; i++) {
        if (!one.get(i).isInt() || one.get(i).asInt() < 0) {
          throw new IllegalArgumentException("prompt holds something other than token ids");
        }
        ids[i] = one.get(i).asInt();
      }
      return ids;
    }
    if (prompt.isArray() && prompt.size() > 1) {
      return null;
    }
    throw new IllegalArgumentException("prompt is not text or token ids");
  }

  private static int[] ids(long[] ids) {
    int[] out = new int[ids.length];
    for (int i = 0; i < ids.length; i++) {
      out[i] = (int) ids[i];
    }
    return out;
  }

  @Override
  public void close() {
    tokenizer.close();
  }
}
