package dev.entangle.importer.hlo;

import dev.entangle.importer.SourceFile;
import dev.entangle.util.Interruption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads an HLO text module ({@code HloModule NAME, ...} followed by computations, one marked {@code
 * ENTRY}) into an {@link HloModule}, as XLA's printer writes it: names with or without {@code %},
 * operands with or without their types, layouts with tiling and memory spaces ({@code
 * {1,0:T(8,128)S(1)}}, skipped), {@code /*index=N*}{@code /} comments anywhere (removed), tuples of
 * any length nested up to {@value HloScanner#MAX_NESTING} deep. Attribute values are kept as raw
 * text without comments ({@link HloAttributes} reads them). Sizes and parameter numbers are checked
 * against their range, and every error names the file, line and column.
 */
final class HloParser {
  static final String ADVICE =
      "The importer reads XLA HLO text modules as XLA prints them (HloModule ..., computations, an ENTRY"
          + " computation, one instruction per line); check that the file is such a dump.";

  /** The largest dimension size and element count a type may have. */
  static final long MAX_ELEMENTS = 1L << 62;

  /** The largest parameter number. */
  static final long MAX_PARAMETER = Integer.MAX_VALUE;

  private final HloScanner s;

  private HloParser(SourceFile src) {
    this.s = new HloScanner(src);
  }

  /** Parses a whole module. */
  static HloModule parse(SourceFile src) {
    return new HloParser(src).module();
  }

  /** Whether a text is an HLO module: its first word, after comments, is {@code HloModule}. */
  static boolean looksLikeHlo(String text) {
    HloScanner sc = new HloScanner(new SourceFile("", text));
    try {
      sc.skipSpace(true);
    } catch (RuntimeException e) {
      return false;
    }
    return sc.text.startsWith("HloModule", sc.pos);
  }

  private HloModule module() {
    s.skipSpace(true);
    if (!s.text.startsWith("HloModule", s.pos)) {
      throw s.error("the file does not start with `HloModule`");
    }
    s.pos += "HloModule".length();
    s.skipSpace(false);
    String name = s.identifier("the module's name");
    Map<String, String> header = new LinkedHashMap<>();
    while (true) {
      s.skipSpace(false);
      if (s.peek() != ',') {
        break;
      }
      s.pos++;
      s.skipSpace(false);
      String key = s.identifier("a module attribute");
      s.skipSpace(false);
      s.expect('=', "`=` after the module attribute `" + key + "`");
      s.skipSpace(false);
      header.put(key, s.rawUntil(",\n\r"));
    }
    s.skipSpace(false);
    if (!s.atEnd() && s.peek() != '\n' && s.peek() != '\r') {
      throw s.error("unexpected text after the module's name and attributes");
    }
    Map<String, HloComputation> computations = new LinkedHashMap<>();
    HloComputation entry = null;
    s.skipSpace(true);
    while (!s.atEnd()) {
      int start = s.pos;
      HloComputation c = computation();
      if (computations.put(c.name(), c) != null) {
        throw s.error(start, "a second computation named `" + c.name() + "`", ADVICE);
      }
      if (c.entry()) {
        if (entry != null) {
          throw s.error(start, "a second ENTRY computation", "A module has one ENTRY computation.");
        }
        entry = c;
      }
      s.skipSpace(true);
    }
    if (entry == null) {
      throw s.src.error("the module has no ENTRY computation", ADVICE);
    }
    return new HloModule(name, header, computations, entry, s.src.name());
  }

  private HloComputation computation() {
    int start = s.pos;
    int line = s.lineOf(start);
    boolean entry = s.word("ENTRY");
    s.skipSpace(false);
    String name = s.name("the computation's name");
    s.skipSpace(true);
    if (s.peek() == '(') {
      s.balanced(); // the parameters, which the instructions repeat
      s.skipSpace(true);
    }
    if (s.text.startsWith("->", s.pos)) {
      s.pos += 2;
      s.skipSpace(true);
      type(0);
      s.skipSpace(true);
    }
    s.expect('{', "`{` opening the computation `" + name + "`");
    List<HloInstruction> instructions = new ArrayList<>();
    Map<String, HloInstruction> byName = new LinkedHashMap<>();
    Set<Long> parameters = new HashSet<>();
    HloInstruction root = null;
    while (true) {
      Interruption.check();
      s.skipSpace(true);
      if (s.atEnd()) {
        throw s.error(start, "the computation `" + name + "` is not closed with `}`", ADVICE);
      }
      if (s.peek() == '}') {
        s.pos++;
        s.skipToLineEnd(); // e.g. `, execution_thread="host"`
        break;
      }
      int at = s.pos;
      HloInstruction i = instruction(byName);
      if (byName.put(i.name(), i) != null) {
        throw s.error(
            at, "a second instruction named `" + i.name() + "` in `" + name + "`", ADVICE);
      }
      if (i.opcode().equals("parameter") && !parameters.add(i.parameterNumber())) {
        throw s.error(
            at,
            "a second `parameter(" + i.parameterNumber() + ")` in `" + name + "`",
            "Each parameter number appears once in a computation.");
      }
      instructions.add(i);
      if (i.root()) {
        if (root != null) {
          throw s.error(
              at, "a second ROOT in `" + name + "`", "A computation has one ROOT instruction.");
        }
        root = i;
      }
    }
    if (instructions.isEmpty()) {
      throw s.error(start, "the computation `" + name + "` has no instructions", ADVICE);
    }
    return new HloComputation(
        name,
        instructions,
        root != null ? root : instructions.get(instructions.size() - 1),
        entry,
        line);
  }

  private HloInstruction instruction(Map<String, HloInstruction> defined) {
    int line = s.lineOf(s.pos);
    boolean root = s.word("ROOT");
    s.skipSpace(false);
    String name = s.name("an instruction name");
    s.skipSpace(false);
    if (s.peek() != '=') {
      throw s.error("expected `=` after the instruction name `" + name + "`");
    }
    s.pos++;
    s.skipSpace(false);
    HloType type = type(0);
    s.skipSpace(false);
    int opStart = s.pos;
    while (!s.atEnd()
        && (Character.isLetterOrDigit(s.peek()) || s.peek() == '-' || s.peek() == '_')) {
      s.pos++;
    }
    String opcode = s.text.substring(opStart, s.pos);
    if (opcode.isEmpty()) {
      throw s.error("expected an opcode after the type of `" + name + "`");
    }
    s.skipSpace(false);
    if (s.peek() != '(') {
      throw s.error("expected `(` after the opcode `" + opcode + "`");
    }
    List<String> operands;
    String operandText;
    if (opcode.equals("constant")) {
      String inner = s.balanced();
      operandText = inner.substring(1, inner.length() - 1);
      operands = List.of();
    } else if (opcode.equals("parameter")) {
      s.pos++;
      s.skipSpace(false);
      operandText = Long.toString(s.natural("a parameter number", MAX_PARAMETER));
      s.skipSpace(false);
      s.expect(')', "`)` closing the parameter number");
      operands = List.of();
    } else {
      int open = s.pos;
      operands = operands(opcode, defined);
      operandText = HloScanner.withoutComments(s.text.substring(open + 1, s.pos - 1));
    }
    Map<String, String> attrs = new LinkedHashMap<>();
    while (true) {
      s.skipSpace(false);
      if (s.peek() != ',') {
        break;
      }
      s.pos++;
      s.skipSpace(false);
      int keyAt = s.pos;
      String key = s.identifier("an attribute name");
      s.skipSpace(false);
      if (s.peek() != '=') {
        throw s.error("expected `=` after the attribute `" + key + "` of `" + name + "`");
      }
      s.pos++;
      s.skipSpace(false);
      int valueAt = s.pos;
      String value = s.rawUntil(",\n\r");
      if (value.isEmpty()) {
        throw s.error(
            valueAt, "the attribute `" + key + "` of `" + name + "` has no value", ADVICE);
      }
      if (attrs.put(key, value) != null) {
        throw s.error(keyAt, "a second attribute `" + key + "` on `" + name + "`", ADVICE);
      }
    }
    s.skipSpace(false);
    if (!s.atEnd() && s.peek() != '\n' && s.peek() != '\r' && s.peek() != '}') {
      throw s.error("unexpected text after the instruction `" + name + "`");
    }
    return new HloInstruction(name, type, opcode, operands, operandText, attrs, root, line);
  }

  /**
   * The operand names of an instruction, each {@code %name}, {@code name} or {@code TYPE %name};
   * the cursor is on the opening parenthesis and moves past the closing one.
   */
  private List<String> operands(String opcode, Map<String, HloInstruction> defined) {
    s.pos++;
    List<String> out = new ArrayList<>();
    s.skipSpace(true);
    if (s.peek() == ')') {
      s.pos++;
      return out;
    }
    while (true) {
      s.skipSpace(true);
      int at = s.pos;
      if (s.peek() == '(' || startsArrayType()) {
        type(0);
        s.skipSpace(true);
      }
      int nameAt = s.pos;
      if (s.peek() != '%' && !HloScanner.isNameChar(s.peek())) {
        throw s.error(at, "cannot read an operand of `" + opcode + "`", ADVICE);
      }
      String n = s.name("an operand name");
      if (!defined.containsKey(n)) {
        throw s.error(
            nameAt,
            "the operand `%" + n + "` is not an instruction defined above in this computation",
            "HLO text defines every instruction before its users; check that the file is complete.");
      }
      out.add(n);
      s.skipSpace(true);
      if (s.peek() == ',') {
        s.pos++;
        continue;
      }
      s.expect(')', "`,` or `)` after the operand `%" + n + "` of `" + opcode + "`");
      return out;
    }
  }

  /** Whether the cursor is on an array type ({@code f32[}), not on a name. */
  private boolean startsArrayType() {
    int i = s.pos;
    while (i < s.text.length() && Character.isLetterOrDigit(s.text.charAt(i))) {
      i++;
    }
    return i > s.pos && i < s.text.length() && s.text.charAt(i) == '[';
  }

  /**
   * A type: {@code f16[2048,64]{1,0}}, {@code pred[]}, {@code (f32[], /*index=1*}{@code
   * /s32[4]{0})}, {@code token[]}.
   */
  private HloType type(int depth) {
    int start = s.pos;
    if (s.peek() == '(') {
      if (depth >= HloScanner.MAX_NESTING) {
        throw s.error(
            start,
            "tuple types nest more than " + HloScanner.MAX_NESTING + " deep",
            "No XLA program nests tuples that deep; check that the file is an HLO dump.");
      }
      s.pos++;
      List<HloType> items = new ArrayList<>();
      s.skipSpace(true);
      if (s.peek() == ')') {
        s.pos++;
        return new HloType.Tuple(items);
      }
      while (true) {
        s.skipSpace(true);
        items.add(type(depth + 1));
        s.skipSpace(true);
        if (s.peek() == ',') {
          s.pos++;
          continue;
        }
        s.expect(')', "`,` or `)` in a tuple type");
        return new HloType.Tuple(items);
      }
    }
    while (!s.atEnd() && Character.isLetterOrDigit(s.peek())) {
      s.pos++;
    }
    String element = s.text.substring(start, s.pos);
    if (element.isEmpty() || s.peek() != '[') {
      throw s.error(start, "expected a type such as `f32[8,16]{1,0}`", ADVICE);
    }
    s.pos++;
    List<Long> dims = new ArrayList<>();
    long count = 1;
    s.skipSpace(false);
    while (s.peek() != ']') {
      s.skipSpace(false);
      if (s.text.startsWith("<=", s.pos) || s.peek() == '?') {
        throw s.error(
            s.pos,
            "dynamic dimension sizes (`<=N`, `?`) are not supported",
            "Dump the program with static shapes.");
      }
      int dimAt = s.pos;
      if (!Character.isDigit(s.peek())) {
        throw s.error(dimAt, "expected a dimension size in the type `" + element + "[...`", ADVICE);
      }
      long d = s.natural("the dimension size", MAX_ELEMENTS);
      if (d != 0 && count > MAX_ELEMENTS / d) {
        throw s.error(
            dimAt,
            "the type `" + element + "[...]` has more than 2^62 elements",
            "Check that the sizes are as XLA printed them.");
      }
      count *= d;
      dims.add(d);
      s.skipSpace(false);
      if (s.peek() == ',') {
        s.pos++;
      } else if (s.peek() != ']') {
        throw s.error("expected `,` or `]` in the type `" + element + "[...`");
      }
    }
    s.pos++;
    if (s.peek() == '{') {
      s.balanced(); // the layout: minor-to-major order, tiling, memory space
    }
    return new HloType.Array(element, dims.stream().mapToLong(Long::longValue).toArray());
  }
}
