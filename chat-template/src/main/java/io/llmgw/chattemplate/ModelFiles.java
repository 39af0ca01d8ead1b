package io.llmgw.chattemplate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a Hugging Face model directory says about prompts: its {@code tokenizer.json}, its chat template (from
 * {@code chat_template.jinja}, {@code chat_template.json} or {@code tokenizer_config.json}, the order Transformers
 * reads them in; a named set picks {@code default}, or {@code tool_use} for requests with tools) and its special
 * tokens, which templates read by name ({@code bos_token}, {@code eos_token}, ...).
 *
 * @param chatTemplate null when the model has none (a base model: its completions can still be tokenized)
 * @param toolUseTemplate null when the model has one template for everything
 */
public record ModelFiles(Path tokenizerJson, String chatTemplate, String toolUseTemplate,
    Map<String, Object> specialTokens) {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] TOKEN_NAMES = {"bos_token", "eos_token", "unk_token", "sep_token", "pad_token",
      "cls_token", "mask_token"};

  /** @throws IllegalArgumentException naming the file and what is wrong with it */
  public static ModelFiles read(Path dir) {
    if (Files.isRegularFile(dir)) { // the tokenizer.json itself: its directory holds the rest
      return read(dir.toAbsolutePath().getParent());
    }
    Path tokenizer = dir.resolve("tokenizer.json");
    if (!Files.isRegularFile(tokenizer)) {
      throw new IllegalArgumentException(dir + " has no tokenizer.json");
    }
    JsonNode config = readJson(dir.resolve("tokenizer_config.json"));
    JsonNode templates = config.path("chat_template");
    Path jinja = dir.resolve("chat_template.jinja");
    Path templateJson = dir.resolve("chat_template.json");
    try {
      if (Files.isRegularFile(jinja)) {
        templates = JSON.getNodeFactory().textNode(Files.readString(jinja));
      } else if (Files.isRegularFile(templateJson)) {
        templates = readJson(templateJson).path("chat_template");
      }
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read " + jinja + ": " + e.getMessage(), e);
    }
    String main = null;
    String toolUse = null;
    if (templates.isTextual()) {
      main = templates.asText();
    } else if (templates.isArray()) {
      for (JsonNode named : templates) {
        String name = named.path("name").asText();
        if (name.equals("default")) {
          main = named.path("template").asText(null);
        } else if (name.equals("tool_use")) {
          toolUse = named.path("template").asText(null);
        }
      }
    }
    return new ModelFiles(tokenizer, main != null ? main : toolUse, toolUse, specialTokens(config));
  }

  private static JsonNode readJson(Path file) {
    if (!Files.isRegularFile(file)) {
      return JSON.createObjectNode();
    }
    try {
      return JSON.readTree(file.toFile());
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read " + file + " as JSON: " + e.getMessage(), e);
    }
  }

  /** The special tokens as Transformers hands them to templates: each name's text, and the additional ones. */
  private static Map<String, Object> specialTokens(JsonNode config) {
    Map<String, Object> tokens = new LinkedHashMap<>();
    for (String name : TOKEN_NAMES) {
      String text = tokenText(config.path(name));
      if (text != null) {
        tokens.put(name, text);
      }
    }
    JsonNode additional = config.path("additional_special_tokens");
    if (additional.isArray()) {
      List<String> texts = new ArrayList<>();
      additional.forEach(t -> {
        String text = tokenText(t);
        if (text != null) {
          texts.add(text);
        }
      });
      tokens.put("additional_special_tokens", texts);
    }
    return tokens;
  }

  /** A token is written as its text or as an {@code AddedToken} object with its text in {@code content}. */
  private static String tokenText(JsonNode token) {
    if (token.isTextual()) {
      return token.asText();
    }
    return token.isObject() && token.path("content").isTextual() ? token.path("content").asText() : null;
  }
}
