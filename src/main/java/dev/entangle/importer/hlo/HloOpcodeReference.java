package dev.entangle.importer.hlo;

import java.util.Map;

/** The XLA half of the operator reference: every HLO opcode and what the importer does with it. */
public final class HloOpcodeReference {
  private HloOpcodeReference() {}

  /** A markdown section: one row per opcode of XLA's instruction set, its status and reason. */
  public static String markdown() {
    StringBuilder sb = new StringBuilder();
    sb.append("\n# XLA HLO opcodes\n\n")
        .append("Every opcode of XLA's instruction set and what `entangle import` does with it")
        .append(
            " (`importer/hlo/HloOpcodes.java`): *imported* (the importer gives it its meaning),")
        .append(" *lowered* (a node `xla.OPCODE` the core language lowers, `lower/xla`), *opaque*")
        .append(" (kept as a function of its operands and attributes, equal only to the same")
        .append(
            " instruction on equal operands) or *refused* (a located error, with the reason).\n\n")
        .append("| opcode | status | reason |\n|---|---|---|\n");
    for (Map.Entry<String, HloOpcodes.Entry> e : HloOpcodes.all().entrySet()) {
      sb.append("| `")
          .append(e.getKey())
          .append("` | ")
          .append(e.getValue().status().name().toLowerCase(java.util.Locale.ROOT))
          .append(" | ")
          .append(e.getValue().reason().isEmpty() ? "" : e.getValue().reason())
          .append(" |\n");
    }
    return sb.toString();
  }
}
