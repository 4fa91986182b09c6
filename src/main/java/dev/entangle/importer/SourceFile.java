package dev.entangle.importer;

import dev.entangle.util.InputException;
import dev.entangle.util.InputFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/** The text of one imported file, with what error messages need: its name and its lines. */
public final class SourceFile {
  private static final int MAX_QUOTE = 160;

  private final String name;
  private final String text;
  private final int[] lineStarts;

  public SourceFile(String name, String text) {
    this.name = name;
    this.text = text;
    int[] starts = new int[16];
    int count = 0;
    starts[count++] = 0;
    for (int i = 0; i < text.length(); i++) {
      if (text.charAt(i) == '\n') {
        if (count == starts.length) {
          starts = Arrays.copyOf(starts, count * 2);
        }
        starts[count++] = i + 1;
      }
    }
    this.lineStarts = Arrays.copyOf(starts, count);
  }

  public String name() {
    return name;
  }

  public String text() {
    return text;
  }

  /** The text between two offsets, trimmed. */
  String slice(int start, int end) {
    return text.substring(start, end).trim();
  }

  /** The 1-based line of a character offset. */
  public int lineOf(int offset) {
    int i = Arrays.binarySearch(lineStarts, offset);
    return (i >= 0 ? i : -i - 2) + 1;
  }

  /** The 1-based column of a character offset. */
  public int columnOf(int offset) {
    return offset - lineStarts[lineOf(offset) - 1] + 1;
  }

  /** Line {@code lineNo} (1-based) without its line break, or "" when out of range. */
  public String line(int lineNo) {
    if (lineNo < 1 || lineNo > lineStarts.length) {
      return "";
    }
    int start = lineStarts[lineNo - 1];
    int end = lineNo < lineStarts.length ? lineStarts[lineNo] - 1 : text.length();
    if (end > start && text.charAt(end - 1) == '\r') {
      end--;
    }
    return text.substring(start, Math.max(start, end));
  }

  /**
   * A user-facing error about one line: {@code FILE:LINE: PROBLEM: `CODE`. ADVICE}.
   *
   * @param problem what is wrong, without a final period
   * @param advice what to do, a full sentence (may be empty)
   */
  public InputException error(int lineNo, String problem, String advice) {
    StringBuilder sb = new StringBuilder();
    sb.append(name).append(':').append(lineNo).append(": ").append(problem);
    String code = line(lineNo).trim();
    if (!code.isEmpty()) {
      if (code.length() > MAX_QUOTE) {
        code = code.substring(0, MAX_QUOTE) + " ...";
      }
      sb.append(": `").append(code).append('`');
    }
    sb.append('.');
    if (advice != null && !advice.isEmpty()) {
      sb.append(' ').append(advice);
    }
    return new InputException(sb.toString());
  }

  /** A user-facing error about the whole file. */
  public InputException error(String problem, String advice) {
    return new InputException(name + ": " + problem + ". " + advice);
  }

  /**
   * Reads a file of source text (UTF-8); a missing, unreadable or non-UTF-8 file is an input error
   * naming it and saying what to give instead ({@code expected}, e.g. "a printed graph (a .py
   * file)").
   */
  public static SourceFile read(Path file, String expected) {
    if (!Files.exists(file)) {
      throw new InputException(
          file + ": the file does not exist. Give the path of " + expected + ".");
    }
    return new SourceFile(file.toString(), InputFiles.readText(file, "file (" + expected + ")"));
  }
}
