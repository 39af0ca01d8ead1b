package io.llmgw.api;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Removes a temporary directory a command made, with everything in it, when the command ends. */
public final class TempTree {
  private TempTree() {}

  /** Best effort: what cannot be removed (already gone, still held open) stays for the OS to clean. */
  public static void delete(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // a temporary directory: the OS cleans it eventually
    }
  }
}
