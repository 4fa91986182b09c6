package dev.entangle.importer.hlo;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns an instruction's {@code metadata} into a {@code meta.stack_trace} in torch.fx's format
 * ({@code File "PATH", line N}, one line a frame, innermost last). {@code source_file} is either a
 * path (with {@code source_line}) or, as transformers-neuronx records it, a path followed by {@code
 * ----} and the whole Python stack as a list of {@code 'PATH:LINE'} frames; of such a list only the
 * innermost frames of user code are kept (library frames, under {@code site-packages} or {@code
 * dist-packages}, dropped), so a report stays readable. {@code op_name}, when given, follows as the
 * frame's code line.
 */
final class HloStackTraces {
  /** How many user frames of a recorded stack are kept. */
  static final int FRAMES = 3;

  private static final Pattern FRAME = Pattern.compile("'([^']+):(\\d+)'");

  private HloStackTraces() {}

  /** The stack trace of a metadata map, or null when it names no source. */
  static String of(Map<String, String> metadata) {
    String file = metadata.get("source_file");
    String opName = metadata.get("op_name");
    String code = opName == null || opName.isBlank() ? "" : "\n    " + opName;
    if (file == null || file.isBlank()) {
      return opName == null || opName.isBlank() ? null : opName;
    }
    int sep = file.indexOf("\n----\n");
    if (sep >= 0) {
      List<String> frames = userFrames(file.substring(sep + 6));
      if (!frames.isEmpty()) {
        return String.join("\n", frames) + code;
      }
      file = file.substring(0, sep);
    }
    String line = metadata.get("source_line");
    return "File \"" + file + "\"" + (line == null ? "" : ", line " + line) + code;
  }

  /** The innermost user frames of a printed frame list, outermost first. */
  private static List<String> userFrames(String list) {
    List<String> all = new ArrayList<>();
    Matcher m = FRAME.matcher(list.replace("\\'", "'"));
    while (m.find()) {
      String path = m.group(1);
      if (!path.contains("/site-packages/") && !path.contains("/dist-packages/")) {
        all.add("File \"" + path + "\", line " + m.group(2));
      }
    }
    return all.subList(Math.max(0, all.size() - FRAMES), all.size());
  }
}
