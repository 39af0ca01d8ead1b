package io.llmgw.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 16, item 5: cluster mode with no Kubernetes API configured says so at once, with no name lookup. */
class KubeAccessTest {
  @TempDir
  Path home;

  @Test
  void outsideAPodWithoutAKubeconfigItSaysWhatIsMissing() {
    assertThat(KubeAccess.problem(Map.of(), Map.of(), home)).contains("KUBERNETES_SERVICE_HOST is unset",
        "no ~/.kube/config", "--config FILE");
    assertThat(KubeAccess.problem(Map.of("KUBECONFIG", home.resolve("nope").toString()), Map.of(), home))
        .contains("KUBECONFIG names no readable file");
  }

  @Test
  void aPodAKubeconfigOrANamedMasterIsEnough() throws Exception {
    assertThat(KubeAccess.problem(Map.of("KUBERNETES_SERVICE_HOST", "10.0.0.1"), Map.of(), home)).isNull();
    assertThat(KubeAccess.problem(Map.of(), Map.of("kubernetes.master", "https://127.0.0.1:6443"), home)).isNull();
    Path config = Files.createDirectories(home.resolve(".kube")).resolve("config");
    Files.writeString(config, "apiVersion: v1\nkind: Config\n");
    assertThat(KubeAccess.problem(Map.of(), Map.of(), home)).isNull();
    assertThat(KubeAccess.problem(Map.of("KUBECONFIG", config.toString()), Map.of(), null)).isNull();
  }
}
