package dev.entangle.util;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Writes output files whole or not at all: the content goes to a temporary file in the same folder,
 * which is then renamed onto the target, so an interrupted run never leaves a half-written report.
 * A target that exists and is not a regular file (e.g. {@code /dev/null}, {@code /dev/stdout}) is
 * written in place.
 */
public final class AtomicFiles {
  private AtomicFiles() {}

  /** What writes the content to a stream. */
  @FunctionalInterface
  public interface Content {
    void writeTo(OutputStream out) throws IOException;
  }

  /** Writes {@code text} as UTF-8 to {@code file}. */
  public static void writeString(Path file, String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    write(file, out -> out.write(bytes));
  }

  /**
   * Writes what {@code content} produces to {@code file}.
   *
   * @throws InputException naming the file and the reason when it cannot be written
   */
  public static void write(Path file, Content content) {
    Path target = file;
    try {
      if (Files.isSymbolicLink(file) && Files.exists(file)) {
        target = file.toRealPath();
      }
      if (Files.exists(target) && !Files.isRegularFile(target)) {
        try (OutputStream out = Files.newOutputStream(target)) {
          content.writeTo(out);
        }
        return;
      }
    } catch (IOException e) {
      throw failed(file, e);
    }
    Path folder = target.toAbsolutePath().getParent();
    Path tmp = null;
    try {
      tmp =
          folder.resolve(
              "."
                  + target.getFileName()
                  + "."
                  + Long.toHexString(ThreadLocalRandom.current().nextLong())
                  + ".tmp");
      // created as any new file is (the umask applies), unlike a temporary file's owner-only mode
      try (OutputStream out =
          Files.newOutputStream(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        content.writeTo(out);
      }
      keepPermissions(target, tmp);
      try {
        Files.move(
            tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
      }
      tmp = null;
    } catch (IOException e) {
      throw failed(file, e);
    } finally {
      if (tmp != null) {
        try {
          Files.deleteIfExists(tmp);
        } catch (IOException e) {
          // nothing more to do: the failure that brought us here is reported
        }
      }
    }
  }

  /** An existing target keeps its permissions when the new content replaces it. */
  private static void keepPermissions(Path target, Path tmp) {
    try {
      if (Files.exists(target)) {
        Files.setPosixFilePermissions(tmp, Files.getPosixFilePermissions(target));
      }
    } catch (IOException | UnsupportedOperationException e) {
      // a file system without POSIX permissions: the new file has the default ones
    }
  }

  private static InputException failed(Path file, IOException e) {
    return new InputException(
        "cannot write "
            + Names.shorten(file.toString())
            + ": "
            + IoReasons.of(e)
            + "; check that its folder exists and is writable, and that the disk has room.",
        e);
  }
}
