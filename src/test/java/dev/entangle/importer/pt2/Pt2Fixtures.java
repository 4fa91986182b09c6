package dev.entangle.importer.pt2;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

/**
 * The archives of {@code src/test/resources/pt2}, written by {@code scripts/make-pt2-testdata} with
 * the pinned torch (torch.export.export, core ATen decompositions, torch.export.save), and damaged
 * copies of them.
 */
final class Pt2Fixtures {
  static final Path DIR = Path.of("src/test/resources/pt2");

  private Pt2Fixtures() {}

  static Path archive(String name) {
    return DIR.resolve(name);
  }

  /**
   * A copy of {@code source} at {@code target} without the entries {@code drop} accepts, its
   * models' JSON passed through {@code edit}.
   */
  static Path rewrite(Path source, Path target, Predicate<String> drop, UnaryOperator<String> edit)
      throws IOException {
    try (ZipFile in = new ZipFile(source.toFile());
        OutputStream file = Files.newOutputStream(target);
        ZipOutputStream out = new ZipOutputStream(file)) {
      for (ZipEntry e : Collections.list(in.entries())) {
        if (drop.test(e.getName())) {
          continue;
        }
        byte[] bytes;
        try (InputStream s = in.getInputStream(e)) {
          bytes = s.readAllBytes();
        }
        if (e.getName().contains("/models/") && e.getName().endsWith(".json")) {
          bytes =
              edit.apply(new String(bytes, StandardCharsets.UTF_8))
                  .getBytes(StandardCharsets.UTF_8);
        }
        out.putNextEntry(new ZipEntry(e.getName()));
        out.write(bytes);
        out.closeEntry();
      }
    }
    return target;
  }

  /** A copy of {@code name} whose model JSON is passed through {@code edit}. */
  static Path edited(String name, Path dir, UnaryOperator<String> edit) throws IOException {
    return rewrite(archive(name), dir.resolve(name), n -> false, edit);
  }
}
