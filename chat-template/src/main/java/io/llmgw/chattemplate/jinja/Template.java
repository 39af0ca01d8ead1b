package io.llmgw.chattemplate.jinja;

import java.util.List;
import java.util.Map;

/**
 * A Jinja template parsed once and rendered many times, as Hugging Face renders chat templates: Jinja's syntax with
 * Python's values, {@code trim_blocks} and {@code lstrip_blocks}, Hugging Face's {@code tojson},
 * {@code raise_exception} and {@code strftime_now}. Rendering is bounded in output and work, so a hostile template
 * or input ends in a {@link TemplateException}, never in a hung thread.
 */
public final class Template {
  private final List<Stmt> body;
  private final int maxChars;
  private final long maxSteps;
  private final boolean iteratesContent;

  private Template(List<Stmt> body, int maxChars, long maxSteps) {
    this.body = body;
    this.maxChars = maxChars;
    this.maxSteps = maxSteps;
    this.iteratesContent = ContentLoops.find(body);
  }

  /** @throws TemplateException when the source is not a template this engine can run, naming where */
  public static Template parse(String source, int maxChars, long maxSteps) {
    return new Template(Parser.parse(source), maxChars, maxSteps);
  }

  /**
   * Renders with {@code context}'s variables; values are JSON's as Java reads them (maps, lists, strings, numbers,
   * booleans, null).
   */
  public String render(Map<String, ?> context) {
    Scope scope = new Scope(null);
    context.forEach((k, v) -> scope.set(k, Values.fromJava(v)));
    try {
      return new Renderer(maxChars, maxSteps).render(body, scope);
    } catch (TemplateException e) {
      throw e;
    } catch (RuntimeException e) { // a filter or method given the wrong arguments, as Python would raise
      throw new TemplateException("the template failed: " + e);
    }
  }

  /** True when some {@code for} loop goes over a message's {@code content}: the template reads content parts. */
  public boolean iteratesContent() {
    return iteratesContent;
  }
}
