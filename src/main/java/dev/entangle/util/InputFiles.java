package dev.entangle.util;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Input files opened with care: only regular files are read (a named pipe would block forever and a
 * device such as {@code /dev/zero} never ends), no larger than {@link #maxBytes}, and text must be
 * UTF-8. Every failure is an {@link InputException} naming the file and the real cause.
 */
public final class InputFiles {
  /**
   * The largest input read, in bytes, unless the system property {@code entangle.max-input-bytes}
   * says otherwise.
   */
  public static final long DEFAULT_MAX_BYTES = 2L << 30;

  private InputFiles() {}

  /** The largest input read, in bytes. */
  public static long maxBytes() {
    return Long.getLong("entangle.max-input-bytes", DEFAULT_MAX_BYTES);
  }

  /**
   * Fails unless {@code file} is missing (the reader reports that in its own words) or a regular
   * file no larger than {@link #maxBytes}.
   *
   * @param what what the file should be, e.g. {@code "graph file"}
   */
  public static void requireReadable(Path file, String what) {
    if (!Files.exists(file)) {
      return;
    }
    String name = Names.shorten(file.toString());
    if (Files.isDirectory(file)) {
      throw new InputException(name + ": is a folder, not a " + what + "; give the file's path.");
    }
    if (!Files.isRegularFile(file)) {
      throw new InputException(
          name
              + ": is not a regular file (a named pipe, socket or device such as /dev/zero), so it"
              + " is not read; save the "
              + what
              + " to a file and give that file's path.");
    }
    long size;
    try {
      size = Files.size(file);
    } catch (IOException e) {
      throw new InputException(
          name + ": cannot read the " + what + " (" + IoReasons.of(e) + ").", e);
    }
    if (size > maxBytes()) {
      throw new InputException(
          name
              + ": the "
              + what
              + " is "
              + size
              + " bytes, more than the "
              + maxBytes()
              + " entangle reads; give a smaller file (or raise the limit with the Java"
              + " system property entangle.max-input-bytes).");
    }
  }

  /** The UTF-8 text of {@code file}, read with {@link #requireReadable}'s checks. */
  public static String readText(Path file, String what) {
    requireReadable(file, what);
    String name = Names.shorten(file.toString());
    try {
      byte[] bytes = Files.readAllBytes(file);
      return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
    } catch (NoSuchFileException e) {
      throw new InputException(name + ": no such file; check the path of the " + what + ".");
    } catch (CharacterCodingException e) {
      throw new InputException(
          name + ": the " + what + " is not valid UTF-8 text; save it as UTF-8 and run again.");
    } catch (IOException e) {
      throw new InputException(
          name
              + ": cannot read the "
              + what
              + " ("
              + IoReasons.of(e)
              + "); check that it is a readable file.",
          e);
    } catch (OutOfMemoryError e) {
      throw new InputException(
          name + ": the " + what + " does not fit in memory; give a smaller file or more heap.");
    }
  }
}
