package io.llmgw.extproc.plugins;

import io.llmgw.api.ConfigException;
import io.llmgw.extproc.pluginfile.PluginConfigFile;
import io.llmgw.picker.config.SchedulingConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The shipped default configuration ({@value #RESOURCE}): every lifecycle plugin in its running order and the seed
 * policy's profile. What a configuration leaves out of an extension point comes from here; {@code llmgw serve
 * --print-default-plugins} prints it.
 */
public final class DefaultPlugins {
  public static final String RESOURCE = "default-plugins.yaml";

  private static final String TEXT = read();
  private static final SchedulingConfig CONFIG = parse();

  private DefaultPlugins() {}

  /** The file as shipped, comments included. */
  public static String text() {
    return TEXT;
  }

  public static SchedulingConfig config() {
    return CONFIG;
  }

  private static String read() {
    try (InputStream in = DefaultPlugins.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing from the EPP's jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static SchedulingConfig parse() {
    try {
      return PluginConfigFile.parse("the default plugin configuration (" + RESOURCE + ")", TEXT, m -> {});
    } catch (ConfigException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }
}
