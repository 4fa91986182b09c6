package dev.entangle.batch;

import java.nio.file.Path;
import java.util.List;

/**
 * A batch manifest, read and resolved: every path is absolute or relative to the working directory
 * (the manifest's own are relative to its folder).
 *
 * @param file the manifest file
 * @param name the manifest's name (its {@code name}, else the file name without {@code .json})
 * @param cases the cases, in manifest order
 */
public record Manifest(Path file, String name, List<BatchCase> cases) {
  public Manifest {
    cases = List.copyOf(cases);
  }
}
