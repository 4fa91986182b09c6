package dev.entangle.util;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/** A short human reason for an I/O failure, without exception class names. */
public final class IoReasons {
  private IoReasons() {}

  /** Why {@code e} happened, in a few words (e.g. "permission denied"). */
  public static String of(IOException e) {
    if (e instanceof NoSuchFileException) {
      return "no such file or folder";
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof NotDirectoryException) {
      return "not a folder";
    }
    if (e instanceof DirectoryNotEmptyException) {
      return "a folder that is not empty is in the way";
    }
    if (e instanceof FileAlreadyExistsException) {
      return "a file is in the way";
    }
    if (e instanceof CharacterCodingException) {
      return "the text is not valid UTF-8";
    }
    if (e instanceof FileSystemException fs && fs.getReason() != null) {
      return fs.getReason();
    }
    String m = e.getMessage();
    return m == null || m.isBlank() ? "input/output error" : Names.shorten(m);
  }
}
