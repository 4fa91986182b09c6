package dev.entangle.util;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;

/** A short human reason for an I/O failure, without exception class names. */
public final class IoReason {
  private IoReason() {}

  /** The reason {@code e} gives, in words: "no such file or folder", "permission denied", ... */
  public static String of(IOException e) {
    if (e instanceof NoSuchFileException) {
      return "no such file or folder";
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof FileSystemException fs && fs.getReason() != null) {
      return fs.getReason();
    }
    return e.getMessage() == null ? "input/output error" : e.getMessage();
  }
}
