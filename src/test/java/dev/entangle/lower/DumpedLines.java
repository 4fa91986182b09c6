package dev.entangle.lower;

import dev.entangle.core.CoreProgram;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.HashMap;
import java.util.Map;

/** Each value of a lowered program with its dumped line ({@link ProgramDump}): type, term, note. */
public final class DumpedLines {
  private DumpedLines() {}

  /** The text after {@code "name : "} of every value's line, by value name. */
  public static Map<String, String> of(CoreProgram p) {
    StringWriter w = new StringWriter();
    ProgramDump.print(p, "G_s", new PrintWriter(w));
    Map<String, String> out = new HashMap<>();
    for (String line : w.toString().split("\n")) {
      int colon = line.indexOf(" : ");
      if (!line.startsWith("#") && colon > 0) {
        out.put(line.substring(0, colon), line.substring(colon + 3));
      }
    }
    return out;
  }
}
