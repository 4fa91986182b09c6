package dev.entangle.importer.hlo;

import dev.entangle.importer.SourceFile;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads an HLO text module ({@code HloModule NAME, ...} followed by computations, one marked {@code
 * ENTRY}) into an {@link HloModule}. Attribute values are kept as raw text ({@link HloAttributes}
 * reads them); layouts, {@code /*index=N*}{@code /} comments and the module header's attributes are
 * skipped. Every error names the file and line.
 */
final class HloParser {
  static final String ADVICE =
      "The importer reads XLA HLO text modules as XLA prints them (HloModule ..., computations, an ENTRY"
          + " computation, one instruction per line); check that the file is such a dump.";

  private final SourceFile src;
  private final String text;
  private final int[] lineStarts;
  private int pos;

  private HloParser(SourceFile src) {
    this.src = src;
    this.text = src.text();
    List<Integer> starts = new ArrayList<>();
    starts.add(0);
    for (int i = 0; i < text.length(); i++) {
      if (text.charAt(i) == '\n') {
        starts.add(i + 1);
      }
    }
    this.lineStarts = starts.stream().mapToInt(Integer::intValue).toArray();
  }

  /** Parses a whole module. */
  static HloModule parse(SourceFile src) {
    return new HloParser(src).module();
  }

  /** Whether a text is an HLO module: its first word, after comments, is {@code HloModule}. */
  static boolean looksLikeHlo(String text) {
    HloParser p = new HloParser(new SourceFile("", text));
    p.skipSpace(true);
    return p.text.startsWith("HloModule", p.pos);
  }

  private HloModule module() {
    skipSpace(true);
    if (!text.startsWith("HloModule", pos)) {
      throw src.error(lineOf(pos), "the file does not start with `HloModule`", ADVICE);
    }
    pos += "HloModule".length();
    skipSpace(false);
    String name = identifier("the module's name");
    skipToLineEnd();
    Map<String, HloComputation> computations = new LinkedHashMap<>();
    HloComputation entry = null;
    skipSpace(true);
    while (pos < text.length()) {
      HloComputation c = computation();
      if (computations.put(c.name(), c) != null) {
        throw src.error(c.line(), "a second computation named `" + c.name() + "`", ADVICE);
      }
      if (c.entry()) {
        if (entry != null) {
          throw src.error(
              c.line(), "a second ENTRY computation", "A module has one ENTRY computation.");
        }
        entry = c;
      }
      skipSpace(true);
    }
    if (entry == null) {
      throw src.error("the module has no ENTRY computation", ADVICE);
    }
    return new HloModule(name, computations, entry, src.name());
  }

  private HloComputation computation() {
    int line = lineOf(pos);
    boolean entry = word("ENTRY");
    skipSpace(false);
    String name = name("the computation's name");
    skipSpace(true);
    if (peek() == '(') {
      balanced();
      skipSpace(true);
    }
    if (text.startsWith("->", pos)) {
      pos += 2;
      skipSpace(true);
      type();
      skipSpace(true);
    }
    expect('{', "`{` opening the computation `" + name + "`");
    List<HloInstruction> instructions = new ArrayList<>();
    Map<String, HloInstruction> byName = new LinkedHashMap<>();
    HloInstruction root = null;
    while (true) {
      skipSpace(true);
      if (pos >= text.length()) {
        throw src.error(line, "the computation `" + name + "` is not closed with `}`", ADVICE);
      }
      if (peek() == '}') {
        pos++;
        skipToLineEnd();
        break;
      }
      HloInstruction i = instruction(byName);
      if (byName.put(i.name(), i) != null) {
        throw src.error(
            i.line(), "a second instruction named `" + i.name() + "` in `" + name + "`", ADVICE);
      }
      instructions.add(i);
      if (i.root()) {
        if (root != null) {
          throw src.error(
              i.line(),
              "a second ROOT in `" + name + "`",
              "A computation has one ROOT instruction.");
        }
        root = i;
      }
    }
    if (instructions.isEmpty()) {
      throw src.error(line, "the computation `" + name + "` has no instructions", ADVICE);
    }
    return new HloComputation(
        name,
        instructions,
        root != null ? root : instructions.get(instructions.size() - 1),
        entry,
        line);
  }

  private HloInstruction instruction(Map<String, HloInstruction> defined) {
    int line = lineOf(pos);
    boolean root = word("ROOT");
    skipSpace(false);
    String name = name("an instruction name");
    skipSpace(false);
    if (peek() != '=') {
      throw src.error(line, "expected `=` after the instruction name `" + name + "`", ADVICE);
    }
    pos++;
    skipSpace(false);
    HloType type = type();
    skipSpace(false);
    int opStart = pos;
    while (pos < text.length()
        && (Character.isLetterOrDigit(peek()) || peek() == '-' || peek() == '_')) {
      pos++;
    }
    String opcode = text.substring(opStart, pos);
    if (opcode.isEmpty()) {
      throw src.error(line, "expected an opcode after the type of `" + name + "`", ADVICE);
    }
    skipSpace(false);
    if (peek() != '(') {
      throw src.error(line, "expected `(` after the opcode `" + opcode + "`", ADVICE);
    }
    String inner = balanced();
    String operandText = inner.substring(1, inner.length() - 1);
    List<String> operands = operands(opcode, operandText, line, defined);
    Map<String, String> attrs = new LinkedHashMap<>();
    while (true) {
      skipSpace(false);
      if (peek() != ',') {
        break;
      }
      pos++;
      skipSpace(false);
      String key = identifier("an attribute name");
      skipSpace(false);
      if (peek() != '=') {
        throw src.error(
            line, "expected `=` after the attribute `" + key + "` of `" + name + "`", ADVICE);
      }
      pos++;
      skipSpace(false);
      attrs.put(key, rawValue(line));
    }
    skipSpace(false);
    if (pos < text.length() && peek() != '\n' && peek() != '\r' && peek() != '}') {
      throw src.error(line, "unexpected text after the instruction `" + name + "`", ADVICE);
    }
    return new HloInstruction(name, type, opcode, operands, operandText, attrs, root, line);
  }

  /**
   * The operand names of an instruction; a constant's or a parameter's parentheses hold no names.
   */
  private List<String> operands(
      String opcode, String inner, int line, Map<String, HloInstruction> defined) {
    if (opcode.equals("constant") || opcode.equals("parameter")) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    for (String piece : HloAttributes.splitTopLevel(inner)) {
      String p = piece.strip();
      if (p.isEmpty()) {
        continue;
      }
      // an operand may be printed with its type: `f32[4]{0} %x`
      String last = p.substring(Math.max(p.lastIndexOf(' '), p.lastIndexOf('}')) + 1);
      String n = last.startsWith("%") ? last.substring(1) : last;
      if (n.isEmpty() || !isNameChars(n)) {
        throw src.error(line, "cannot read the operand `" + p + "` of `" + opcode + "`", ADVICE);
      }
      if (!defined.containsKey(n)) {
        throw src.error(
            line,
            "the operand `%" + n + "` is not an instruction defined above in this computation",
            "HLO text defines every instruction before its users; check that the file is complete.");
      }
      out.add(n);
    }
    return out;
  }

  /**
   * A type: {@code f16[2048,64]{1,0}}, {@code pred[]}, {@code (f32[], s32[4]{0})}, {@code token[]}.
   */
  private HloType type() {
    int line = lineOf(pos);
    if (peek() == '(') {
      pos++;
      List<HloType> items = new ArrayList<>();
      skipSpace(true);
      if (peek() == ')') {
        pos++;
        return new HloType.Tuple(items);
      }
      while (true) {
        skipSpace(true);
        items.add(type());
        skipSpace(true);
        if (peek() == ',') {
          pos++;
          continue;
        }
        expect(')', "`)` closing a tuple type");
        return new HloType.Tuple(items);
      }
    }
    int start = pos;
    while (pos < text.length() && Character.isLetterOrDigit(peek())) {
      pos++;
    }
    String element = text.substring(start, pos);
    if (element.isEmpty() || peek() != '[') {
      throw src.error(line, "expected a type such as `f32[8,16]{1,0}`", ADVICE);
    }
    pos++;
    List<Long> dims = new ArrayList<>();
    skipSpace(false);
    while (peek() != ']') {
      skipSpace(false);
      if (text.startsWith("<=", pos) || peek() == '?') {
        throw src.error(
            line,
            "dynamic dimension sizes (`<=N`, `?`) are not supported",
            "Dump the program with static shapes.");
      }
      int s = pos;
      while (pos < text.length() && Character.isDigit(peek())) {
        pos++;
      }
      if (s == pos) {
        throw src.error(
            line, "expected a dimension size in the type `" + element + "[...`", ADVICE);
      }
      dims.add(Long.parseLong(text.substring(s, pos)));
      skipSpace(false);
      if (peek() == ',') {
        pos++;
      } else if (peek() != ']') {
        throw src.error(line, "expected `,` or `]` in the type `" + element + "[...`", ADVICE);
      }
    }
    pos++;
    if (peek() == '{') {
      balanced(); // the layout
    }
    return new HloType.Array(element, dims.stream().mapToLong(Long::longValue).toArray());
  }

  /** An attribute value: raw text up to the next comma or line end outside brackets and strings. */
  private String rawValue(int line) {
    int start = pos;
    scanTo(",\n\r", line);
    return text.substring(start, pos).strip();
  }

  /**
   * Advances to the first of {@code stops} outside brackets and strings, or to a closing bracket
   * that nothing here opened, or to the end.
   */
  private void scanTo(String stops, int line) {
    int depth = 0;
    while (pos < text.length()) {
      char c = peek();
      if (c == '"') {
        string(line);
        continue;
      }
      if (c == '{' || c == '[' || c == '(') {
        depth++;
      } else if (c == '}' || c == ']' || c == ')') {
        if (depth == 0) {
          return;
        }
        depth--;
      } else if (depth == 0 && stops.indexOf(c) >= 0) {
        return;
      }
      pos++;
    }
  }

  /** Skips a double-quoted string with backslash escapes. */
  private void string(int line) {
    pos++;
    while (pos < text.length() && peek() != '"') {
      if (peek() == '\\') {
        pos++;
      }
      pos++;
    }
    if (pos >= text.length()) {
      throw src.error(line, "a string is not closed with `\"`", ADVICE);
    }
    pos++;
  }

  /** The text of a bracketed group starting at pos, brackets included (strings respected). */
  private String balanced() {
    int line = lineOf(pos);
    int start = pos;
    StringBuilder closers = new StringBuilder();
    while (pos < text.length()) {
      char c = peek();
      if (c == '"') {
        string(line);
        continue;
      }
      if (c == '{' || c == '[' || c == '(') {
        closers.append(c == '{' ? '}' : c == '[' ? ']' : ')');
      } else if (c == '}' || c == ']' || c == ')') {
        if (closers.charAt(closers.length() - 1) != c) {
          break;
        }
        closers.setLength(closers.length() - 1);
        if (closers.length() == 0) {
          pos++;
          return text.substring(start, pos);
        }
      }
      pos++;
    }
    throw src.error(line, "a bracket opened here is never closed", ADVICE);
  }

  private String name(String what) {
    if (peek() == '%') {
      pos++;
    }
    return identifier(what);
  }

  private String identifier(String what) {
    int start = pos;
    while (pos < text.length() && isNameChar(peek())) {
      pos++;
    }
    if (start == pos) {
      throw src.error(lineOf(pos), "expected " + what, ADVICE);
    }
    return text.substring(start, pos);
  }

  private static boolean isNameChar(char c) {
    return Character.isLetterOrDigit(c) || c == '_' || c == '.' || c == '-';
  }

  private static boolean isNameChars(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (!isNameChar(s.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  /** Consumes a keyword followed by a space, if present. */
  private boolean word(String w) {
    if (text.startsWith(w, pos)
        && pos + w.length() < text.length()
        && Character.isWhitespace(text.charAt(pos + w.length()))) {
      pos += w.length();
      return true;
    }
    return false;
  }

  private void expect(char c, String what) {
    if (peek() != c) {
      throw src.error(lineOf(pos), "expected " + what, ADVICE);
    }
    pos++;
  }

  private char peek() {
    return pos < text.length() ? text.charAt(pos) : '\0';
  }

  /** Skips blanks and comments ({@code /* *}{@code /}, {@code //}); newlines too when asked. */
  private void skipSpace(boolean newlines) {
    while (pos < text.length()) {
      char c = peek();
      if (c == ' ' || c == '\t' || ((c == '\n' || c == '\r') && newlines)) {
        pos++;
      } else if (text.startsWith("/*", pos)) {
        int end = text.indexOf("*/", pos + 2);
        pos = end < 0 ? text.length() : end + 2;
      } else if (newlines && text.startsWith("//", pos)) {
        skipToLineEnd();
      } else {
        return;
      }
    }
  }

  /** Skips the rest of the line (brackets may span lines). */
  private void skipToLineEnd() {
    scanTo("\n", lineOf(pos));
  }

  private int lineOf(int offset) {
    int i = Arrays.binarySearch(lineStarts, offset);
    return (i >= 0 ? i : -i - 2) + 1;
  }
}
