package io.llmgw.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Issue 32, item 3: a refused field is placed at its line and column, in the document the loader counted. */
class YamlLocationsTest {
  private static final String TWO_DOCUMENTS = """
      apiVersion: v1
      kind: Pod
      metadata:
        name: a
      ---
      apiVersion: inference.x-k8s.io/v1alpha1
      kind: LLMRoute
      metadata:
        name: chat
        annotations:
          llmgw.io/some.key: "x"
      spec:
        backendRefs:
          - name: pool-a
          - name: pool-b
        adapter:
          name: chat
      """;

  @Test
  void aFieldIsPlacedAtItsKeyInTheRightDocument() {
    assertThat(YamlLocations.locate(TWO_DOCUMENTS, 2, "spec.adapter.name"))
        .isEqualTo(new YamlLocations.Position(17, 5));
    assertThat(YamlLocations.locate(TWO_DOCUMENTS, 1, "metadata.name"))
        .isEqualTo(new YamlLocations.Position(4, 3));
  }

  @Test
  void listIndexesAndKeysHoldingDotsAreFollowed() {
    assertThat(YamlLocations.locate(TWO_DOCUMENTS, 2, "spec.backendRefs[1].name"))
        .isEqualTo(new YamlLocations.Position(15, 7));
    assertThat(YamlLocations.locate(TWO_DOCUMENTS, 2, "metadata.annotations[llmgw.io/some.key]"))
        .isEqualTo(new YamlLocations.Position(11, 5));
  }

  @Test
  void aMissingFieldPointsAtTheDeepestPartThatExists() {
    assertThat(YamlLocations.locate(TWO_DOCUMENTS, 2, "spec.adapter.priority"))
        .isEqualTo(new YamlLocations.Position(16, 3));
    assertThat(YamlLocations.locate(TWO_DOCUMENTS, 2, "spec.backendRefs[7].name"))
        .isEqualTo(new YamlLocations.Position(13, 3));
  }

  @Test
  void garbageOrADocumentBeyondTheEndHasNoPositionOrOnlyWhatCouldBeRead() {
    assertThat(YamlLocations.locate(TWO_DOCUMENTS, 5, "spec")).isNull();
    assertThat(YamlLocations.locate("a: [unclosed", 1, "a.b")).isEqualTo(new YamlLocations.Position(1, 1));
    assertThat(YamlLocations.locate("a: [unclosed", 1, "a[3]")).isEqualTo(new YamlLocations.Position(1, 1));
    assertThat(YamlLocations.locate("", 1, "kind")).isNull();
    assertThat(YamlLocations.segments("a.b[0].c[x.y/z]")).containsExactly("a", "b", "0", "c", "x.y/z");
    assertThat(YamlLocations.segments("a[unclosed")).containsExactly("a");
  }

  @Test
  void theLoadersMessageCarriesTheLineAndColumn() {
    String route = TWO_DOCUMENTS.substring(TWO_DOCUMENTS.indexOf("---\n") + 4);
    String yaml = route.replace("name: chat\n  annotations", "name: Chat_Bad\n  annotations");
    assertThatThrownBy(() -> ConfigFileLoader.parse("f.yaml", yaml))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("f.yaml: document 1, field metadata.name (line 4, column 3): ");
    assertThatThrownBy(() -> ConfigFileLoader.parse("f.yaml", "kind: Pod\n"))
        .hasMessageContaining("f.yaml: document 1, field apiVersion (line 1, column 1): is required");
  }
}
