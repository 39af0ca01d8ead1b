package io.llmgw.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * Issue 16, item 5: {@code deploy/Dockerfile} builds the image from the sources alone (the jar is compiled in a build
 * stage) and the image runs the CLI. Runs where a Docker daemon and its CLI are present; skipped elsewhere, like
 * {@link RealEnvoyTest}. Bounded at 15 minutes for the build, the Maven download included.
 */
@Testcontainers(disabledWithoutDocker = true)
class ImageBuildTest {
  static final String TAG = "llmgw-image-test:ci";

  @Test
  void theDockerfileBuildsFromTheSourcesAndTheImageRunsTheCli() throws Exception {
    assumeTrue(Gateways.onPath("docker"), "no docker CLI");
    Path root = Path.of("..").toAbsolutePath().normalize();
    Result build = run(root, 15, "docker", "build", "-f", "deploy/Dockerfile", "-t", TAG, ".");
    assertThat(build.exit()).as(build.output()).isZero();
    try {
      Result version = run(root, 2, "docker", "run", "--rm", "--network", "none", TAG, "--version");
      assertThat(version.exit()).as(version.output()).isZero();
      assertThat(version.output()).contains("llmgw 0.1.0");
      Result help = run(root, 2, "docker", "run", "--rm", "--network", "none", TAG, "serve", "--help");
      assertThat(help.output()).contains("--kubernetes", "--tls-cert-file");
      Result cached = run(root, 2, "docker", "run", "--rm", "--network", "none", "--entrypoint", "java", TAG,
          "-XX:AOTCache=/opt/llmgw/llmgw.aot", "-XX:AOTMode=on", "-jar", "/opt/llmgw/llmgw.jar", "--version");
      assertThat(cached.exit()).as("the image's JVM maps the AOT cache it recorded (AOTMode=on refuses to start "
          + "otherwise): " + cached.output()).isZero();
    } finally {
      run(root, 2, "docker", "image", "rm", "-f", TAG);
    }
  }

  record Result(int exit, String output) {}

  static Result run(Path dir, int minutes, String... command) throws IOException, InterruptedException {
    Path log = Files.createTempFile("docker", ".log");
    try {
      Process p = new ProcessBuilder(List.of(command)).directory(dir.toFile()).redirectErrorStream(true)
          .redirectOutput(log.toFile()).start();
      if (!p.waitFor(minutes, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        return new Result(-1, "timed out after " + minutes + " min: " + String.join(" ", command));
      }
      return new Result(p.exitValue(), Files.readString(log));
    } finally {
      Files.deleteIfExists(log);
    }
  }
}
