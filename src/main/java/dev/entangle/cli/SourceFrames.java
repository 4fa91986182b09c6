package dev.entangle.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The frames of a recorded stack trace in torch.fx's format ({@code File "PATH", line N, in FN}
 * followed by the code line), outermost first, as Python prints them.
 */
final class SourceFrames {
  private static final Pattern FRAME =
      Pattern.compile("^\\s*File \"([^\"]+)\", line (\\d+)(?:, in (.*))?$");

  private SourceFrames() {}

  /**
   * One frame.
   *
   * @param path the file as recorded (relative or absolute)
   * @param line the 1-based line
   * @param function the function, or null
   * @param code the source line's text, or null
   */
  record Frame(String path, int line, String function, String code) {
    /** {@code PATH:LINE}. */
    String where() {
      return path + ":" + line;
    }
  }

  /** The frames of a stack trace, outermost first; none for null or an unrecognized text. */
  static List<Frame> of(String stackTrace) {
    List<Frame> frames = new ArrayList<>();
    if (stackTrace == null) {
      return frames;
    }
    String[] lines = stackTrace.split("\n");
    for (int i = 0; i < lines.length; i++) {
      Matcher m = FRAME.matcher(lines[i]);
      if (!m.matches()) {
        continue;
      }
      String code = null;
      if (i + 1 < lines.length && !FRAME.matcher(lines[i + 1]).matches()) {
        code = lines[i + 1].strip();
        i++;
      }
      int line;
      try {
        line = Integer.parseInt(m.group(2));
      } catch (NumberFormatException e) {
        continue;
      }
      frames.add(
          new Frame(m.group(1), line, m.group(3), code == null || code.isEmpty() ? null : code));
    }
    return frames;
  }

  /**
   * The frame a report points at: the innermost one in the model's own code (not in an installed
   * package), else the innermost; null when there is none.
   */
  static Frame primary(List<Frame> frames) {
    for (int i = frames.size() - 1; i >= 0; i--) {
      if (!installed(frames.get(i).path())) {
        return frames.get(i);
      }
    }
    return frames.isEmpty() ? null : frames.get(frames.size() - 1);
  }

  /** Whether a file belongs to an installed package (torch, site-packages), not the model. */
  static boolean installed(String path) {
    return path.contains("site-packages/")
        || path.contains("dist-packages/")
        || path.startsWith("<")
        || path.contains("/torch/");
  }
}
