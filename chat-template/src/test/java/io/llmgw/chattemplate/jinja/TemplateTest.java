package io.llmgw.chattemplate.jinja;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Jinja as Python runs it for Hugging Face: the cases where a simpler engine (or JavaScript's) would differ. */
class TemplateTest {
  private static String render(String source, Map<String, ?> context) {
    return Template.parse(source, 1 << 20, 100_000).render(context);
  }

  private static String render(String source) {
    return render(source, Map.of());
  }

  @Test
  void stripsOnlyTheCharactersAskedForAsPythonDoes() {
    // @huggingface/jinja strips all whitespace here; Python (and so vLLM) strips newlines only
    assertThat(render("[{{ s.lstrip('\\n') }}|{{ s.rstrip('\\n') }}|{{ s.strip() }}]", Map.of("s", "\n  x \n")))
        .isEqualTo("[  x \n|\n  x |x]");
    assertThat(render("{{ '\u00a0x\u00a0' | trim }}")).isEqualTo("x"); // Python's whitespace includes NBSP
  }

  @Test
  void trimsBlocksAndStripsTheirIndentationAsHuggingFaceConfiguresJinja() {
    String source = "<a>\n  {% if true %}\n    x\n  {% endif %}\n<b>\n  {{- ' y ' -}}  \n<c>\n";
    assertThat(render(source)).isEqualTo("<a>\n    x\n<b> y <c>");
    assertThat(render("{{ 'a' }} {% if true %}b{% endif %}\n  c")).as("only a tag alone on its line")
        .isEqualTo("a b  c");
  }

  @Test
  void namespacesCarryValuesOutOfLoopsAndPlainSetsDoNot() {
    String source = "{% set ns = namespace(n=0) %}{% set c = 0 %}{% for i in [1, 2, 3] %}"
        + "{% set ns.n = ns.n + i %}{% set c = c + 1 %}{{ c }}{% endfor %}|{{ ns.n }}|{{ c }}";
    assertThat(render(source)).isEqualTo("123|6|0");
  }

  @Test
  void slicesIndexesAndLoopsAsPythonDoes() {
    Map<String, Object> ctx = Map.of("m", List.of("a", "b", "c", "d"));
    assertThat(render("{{ m[::-1] }} {{ m[1:] }} {{ m[-1] }} {{ m[1:3] }} {{ 'héllo👋'[::-1] }} {{ m[9] }}", ctx))
        .isEqualTo("['d', 'c', 'b', 'a'] ['b', 'c', 'd'] d ['b', 'c'] 👋olléh ");
    assertThat(render("{% for x in m if x != 'b' %}{{ loop.index }}{{ x }}{% if loop.last %}!{% endif %}"
        + "{% endfor %}", ctx)).isEqualTo("1a2c3d!");
    assertThat(render("{{ 'a,b,,c'.split(',') }} {{ ' a  b '.split() }} {{ 'x</t>y'.split('</t>')[-1] }}"))
        .isEqualTo("['a', 'b', '', 'c'] ['a', 'b'] y");
  }

  @Test
  void printsValuesAsPythonsStrDoes() {
    assertThat(render("{{ none }} {{ true }} {{ 1.0 }} {{ 1e20 }} {{ 0.1 + 0.2 }} {{ {'k': [1, none, 'it\\'s']} }}"))
        .isEqualTo("None True 1.0 1e+20 0.30000000000000004 {'k': [1, None, \"it's\"]}");
    assertThat(render("{{ 7 // 2 }} {{ -7 // 2 }} {{ 7 / 2 }} {{ -7 % 3 }} {{ 2 ** 10 }} {{ 'ab' * 2 }} {{ 1 ~ 'x' }}"))
        .isEqualTo("3 -4 3.5 2 1024 abab 1x");
  }

  @Test
  void writesJsonAsTransformersToJsonDoes() {
    Map<String, Object> ctx = Map.of("t", Map.of("name", "f\u00e9\n\"x\"", "n", List.of(1, 2.5, true)));
    assertThat(render("{{ t | tojson }}", ctx)).isIn("{\"name\": \"f\u00e9\\n\\\"x\\\"\", \"n\": [1, 2.5, true]}",
        "{\"n\": [1, 2.5, true], \"name\": \"f\u00e9\\n\\\"x\\\"\"}");
    assertThat(render("{{ {'b': 1, 'a': [2]} | tojson(indent=2, sort_keys=true) }}"))
        .isEqualTo("{\n  \"a\": [\n    2\n  ],\n  \"b\": 1\n}");
    assertThat(render("{{ 'é' | tojson(ensure_ascii=true) }}")).isEqualTo("\"\\u00e9\"");
  }

  @Test
  void undefinedValuesAreEmptyFalseAndAnErrorToReadFrom() {
    Map<String, Object> ctx = Map.of("m", Map.of("role", "user"));
    assertThat(render("[{{ m.content }}][{{ m.content is defined }}][{{ m.content | default('d') }}]"
        + "[{% for x in m.tools %}x{% else %}none{% endfor %}]", ctx)).isEqualTo("[][False][d][none]");
    assertThatThrownBy(() -> render("{{ m.content.text }}", ctx)).isInstanceOf(TemplateException.class)
        .hasMessageContaining("'content' is undefined");
    assertThatThrownBy(() -> render("{{ m.content + 'x' }}", ctx)).isInstanceOf(TemplateException.class);
  }

  @Test
  void theTemplatesOwnRefusalIsTold() {
    assertThatThrownBy(() -> render("{{ raise_exception('roles must alternate') }}"))
        .isInstanceOfSatisfying(TemplateException.class, e -> {
          assertThat(e.raisedByTemplate()).isTrue();
          assertThat(e).hasMessage("roles must alternate");
        });
  }

  @Test
  void macrosFiltersAndTestsWork() {
    assertThat(render("{% macro f(x, y='d') %}<{{ x }}{{ y }}>{% endmacro %}{{ f(1) }}{{ f(2, y='e') }}"))
        .isEqualTo("<1d><2e>");
    assertThat(render("{{ [3, 1, 2] | sort | join(',') }} {{ ['a', 'b'] | map('upper') | list }} "
        + "{{ [{'r': 'u'}, {'r': 'a'}] | selectattr('r', 'equalto', 'a') | list | length }} {{ 'x' is string }} "
        + "{{ 4 is divisibleby 2 }} {{ 'a\\nb' | indent(2) }}")).isEqualTo("1,2,3 ['A', 'B'] 1 True True a\n  b");
  }

  @Test
  void garbageTemplatesAreRefusedNamingWhere() {
    for (String bad : List.of("{% if x %}", "{{ x ", "{% for %}", "{% endfor %}", "{{ 'unclosed }}",
        "{% unknowntag %}", "{{ x | }}", "{{ (((( }}", "{# never closed", "{% set %}")) {
      assertThatThrownBy(() -> Template.parse(bad, 1000, 1000)).as(bad).isInstanceOf(TemplateException.class)
          .hasMessageContaining("syntax error");
    }
  }

  @Test
  void hostileTemplatesEndInAnErrorNotAHungThread() {
    assertThatThrownBy(() -> render("{% for i in range(1000000) %}{% for j in range(1000000) %}{% endfor %}"
        + "{% endfor %}")).isInstanceOf(TemplateException.class).hasMessageContaining("steps");
    assertThatThrownBy(() -> render("{{ 'x' * 100000000 }}")).isInstanceOf(TemplateException.class);
    assertThatThrownBy(() -> render("{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}"))
        .isInstanceOf(TemplateException.class).hasMessageContaining("nested");
    assertThatThrownBy(() -> Template.parse("{{ " + "(".repeat(5000) + "1" + ")".repeat(5000) + " }}", 10, 10))
        .isInstanceOf(TemplateException.class).hasMessageContaining("deep");
    assertThatThrownBy(() -> Template.parse("{% for x in y %}", 1000, 1000).render(Map.of()))
        .isInstanceOf(TemplateException.class);
  }

  @Test
  void knowsWhetherATemplateReadsContentAsParts() {
    assertThat(Template.parse("{% for m in messages %}{% for p in m['content'] %}{% endfor %}{% endfor %}", 10, 10)
        .iteratesContent()).isTrue();
    assertThat(Template.parse("{% for m in messages %}{% set c = m.content %}{% for p in c %}{% endfor %}"
        + "{% endfor %}", 10, 10).iteratesContent()).isTrue();
    assertThat(Template.parse("{% for m in messages %}{{ m.content }}{% endfor %}", 10, 10).iteratesContent())
        .isFalse();
  }
}
