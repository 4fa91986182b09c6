package dev.entangle.cli;

import dev.entangle.util.InputException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Finds the shipped lemma folder: {@code $ENTANGLE_HOME/lemmas} (the launcher sets the system
 * property {@code entangle.home}), else {@code lemmas/} next to the folder holding the jar, else
 * {@code ./lemmas}.
 */
final class LemmaPaths {
  private LemmaPaths() {}

  static Path defaultDir() {
    String home = System.getProperty("entangle.home", System.getenv("ENTANGLE_HOME"));
    if (home != null && Files.isDirectory(Path.of(home, "lemmas"))) {
      return Path.of(home, "lemmas");
    }
    try {
      Path jar =
          Path.of(LemmaPaths.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      for (Path p = jar.getParent(); p != null; p = p.getParent()) {
        if (Files.isDirectory(p.resolve("lemmas"))) {
          return p.resolve("lemmas");
        }
      }
    } catch (URISyntaxException | SecurityException | NullPointerException e) {
      // fall through to the working directory
    }
    Path local = Path.of("lemmas");
    if (Files.isDirectory(local)) {
      return local;
    }
    throw new InputException(
        "cannot find the lemma folder 'lemmas'; run entangle through scripts/entangle, "
            + "or set ENTANGLE_HOME to the entangle checkout.");
  }
}
