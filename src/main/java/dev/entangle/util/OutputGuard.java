package dev.entangle.util;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * Refuses, before anything is read or written, an output path that is one of the run's inputs (the
 * same file, through any symbolic or hard link) or that two outputs share: writing it would destroy
 * the input or the other report.
 */
public final class OutputGuard {
  private OutputGuard() {}

  /**
   * Throws an {@link InputException} when an output (non-null entries of {@code outputs}, each with
   * the option that names it) is the same file as an input or as another output, or is a folder.
   */
  public static void check(Collection<Path> inputs, List<Named> outputs) {
    List<Named> given = outputs.stream().filter(o -> o.path() != null).toList();
    for (int i = 0; i < given.size(); i++) {
      Named o = given.get(i);
      if (Files.isDirectory(o.path())) {
        throw new InputException(
            "cannot write " + o.describe() + ": it is a folder; give the path of a file to write.");
      }
      for (Path in : inputs) {
        if (in != null && same(o.path(), in)) {
          throw new InputException(
              "refusing to write "
                  + o.describe()
                  + ": it is the input file "
                  + Names.shorten(in.toString())
                  + ", and writing there would destroy it; choose another path for "
                  + o.option()
                  + ".");
        }
      }
      for (int j = 0; j < i; j++) {
        Named other = given.get(j);
        if (same(o.path(), other.path())) {
          throw new InputException(
              "refusing to write "
                  + o.describe()
                  + ": "
                  + other.option()
                  + " writes the same file; give each output a path of its own.");
        }
      }
    }
  }

  /**
   * Every entry directly in {@code dir} whose name ends with {@code suffix}; none when unreadable.
   */
  public static List<Path> filesIn(Path dir, String suffix) {
    List<Path> out = new ArrayList<>();
    if (dir == null || !Files.isDirectory(dir)) {
      return out;
    }
    try (var s = Files.list(dir)) {
      s.filter(p -> p.getFileName().toString().endsWith(suffix)).forEach(out::add);
    } catch (IOException e) {
      // the reader of the folder reports it
    }
    return out;
  }

  /** Whether two paths name one file: equal after normalizing, or the same existing file. */
  static boolean same(Path a, Path b) {
    if (a.toAbsolutePath().normalize().equals(b.toAbsolutePath().normalize())) {
      return true;
    }
    if (!Files.exists(a) || !Files.exists(b)) {
      return false;
    }
    try {
      return Files.isSameFile(a, b);
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * An output path with the option that named it.
   *
   * @param option e.g. {@code --json}
   * @param path the path, or null when the option was not given
   */
  public record Named(String option, Path path) {
    public Named {
      Objects.requireNonNull(option);
    }

    String describe() {
      return Names.shorten(path.toString()) + " (" + option + ")";
    }
  }
}
