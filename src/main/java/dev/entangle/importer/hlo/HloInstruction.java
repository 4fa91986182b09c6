package dev.entangle.importer.hlo;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One HLO instruction as printed: {@code [ROOT] %name = TYPE opcode(operands), attr=value, ...}.
 *
 * @param name the instruction's name without {@code %}
 * @param type its result type
 * @param opcode e.g. {@code dot}, {@code get-tuple-element}, {@code custom-call}
 * @param operands the names of the instructions it reads, in order (empty for {@code constant} and
 *     {@code parameter}, whose parentheses hold a literal or a number)
 * @param operandText the raw text between the parentheses (the literal of a constant, the number of
 *     a parameter)
 * @param attributes each attribute's raw value text, in print order
 * @param root whether it is its computation's {@code ROOT}
 * @param line the line it starts on, for messages
 */
public record HloInstruction(
    String name,
    HloType type,
    String opcode,
    List<String> operands,
    String operandText,
    Map<String, String> attributes,
    boolean root,
    int line) {
  public HloInstruction {
    operands = List.copyOf(operands);
    attributes = Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
  }

  /** The raw text of an attribute, or null when it is absent. */
  public String attribute(String key) {
    return attributes.get(key);
  }

  /** The number of a {@code parameter(N)} (the parser checked it), else -1. */
  public long parameterNumber() {
    return opcode.equals("parameter") ? Long.parseLong(operandText.strip()) : -1;
  }

  /** The same instruction under another name reading other operands (for inlined computations). */
  HloInstruction renamed(String newName, List<String> newOperands, boolean isRoot) {
    return new HloInstruction(
        newName, type, opcode, newOperands, operandText, attributes, isRoot, line);
  }
}
