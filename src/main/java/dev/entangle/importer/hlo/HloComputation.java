package dev.entangle.importer.hlo;

import java.util.Arrays;
import java.util.List;

/**
 * A named computation of an HLO module: its instructions in print order (operands come first), one
 * of them its {@code ROOT}.
 *
 * @param name the computation's name without {@code %}
 * @param instructions the instructions in order
 * @param root the {@code ROOT} instruction (the last one when none is marked)
 * @param entry whether it is the module's {@code ENTRY}
 * @param line the line of its header, for messages
 */
public record HloComputation(
    String name, List<HloInstruction> instructions, HloInstruction root, boolean entry, int line) {
  public HloComputation {
    instructions = List.copyOf(instructions);
  }

  /** Its parameters by number: {@code parameter(i)} at index i. */
  List<HloInstruction> parameters() {
    HloInstruction[] out = new HloInstruction[instructions.size()];
    int n = 0;
    for (HloInstruction i : instructions) {
      if (i.opcode().equals("parameter")) {
        long k = i.parameterNumber();
        if (k >= 0 && k < out.length) {
          out[(int) k] = i;
          n = Math.max(n, (int) k + 1);
        }
      }
    }
    return Arrays.asList(Arrays.copyOf(out, n));
  }
}
