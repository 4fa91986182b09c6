package dev.entangle.cli;

import dev.entangle.importer.hlo.HloOpcodeReference;
import dev.entangle.lower.OperatorReference;
import dev.entangle.lower.aten.CoreAtenCoverage;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

/**
 * {@code docs/operators.md}: the core operators with their shape rules, kernels and the front-end
 * operators that lower to them ({@link OperatorReference}), then every XLA HLO opcode with its
 * status ({@link HloOpcodeReference}). {@code scripts/operators-doc} runs it; a test keeps the file
 * current.
 */
public final class OperatorsDoc {
  private OperatorsDoc() {}

  /**
   * The whole reference, the lowering census taken over the case folders under {@code examples}.
   */
  public static String markdown(Path examples) throws IOException {
    return OperatorReference.markdown(examples) + HloOpcodeReference.markdown() + coreAten();
  }

  /** Every operator of PyTorch's Core ATen IR with what the lowering does with it. */
  private static String coreAten() {
    Map<String, String> statuses = CoreAtenCoverage.statuses();
    long lowered = statuses.values().stream().filter(s -> s.startsWith("lowered")).count();
    StringBuilder sb =
        new StringBuilder("\n# Core ATen IR\n\n")
            .append("Every operator of PyTorch's Core ATen IR (the `core`-tagged overloads of the")
            .append(" pinned torch, listed in `lower/aten/core-aten-ops.txt` with how the list was")
            .append(" made) and what the lowering does with it, found by offering each lowering")
            .append(" family a call of that name. ")
            .append(lowered)
            .append(" of the ")
            .append(statuses.size())
            .append(" are lowered; a lowered operator may still leave some argument forms opaque.")
            .append(" An unsupported one maps only where G_d makes the same call on related")
            .append(" operands; a check that stops at it gives the verdict `unsupported`.\n\n")
            .append("| operator (overloads) | status |\n|---|---|\n");
    statuses.forEach(
        (op, status) -> sb.append("| `").append(op).append("` | ").append(status).append(" |\n"));
    return sb.toString();
  }

  /** Prints the reference for the case folders under {@code args[0]} (default {@code examples}). */
  public static void main(String[] args) throws IOException {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    out.print(markdown(Path.of(args.length > 0 ? args[0] : "examples")));
  }
}
