package dev.entangle.cli;

import dev.entangle.importer.hlo.HloOpcodeReference;
import dev.entangle.lower.OperatorReference;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

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
    return OperatorReference.markdown(examples) + HloOpcodeReference.markdown();
  }

  /** Prints the reference for the case folders under {@code args[0]} (default {@code examples}). */
  public static void main(String[] args) throws IOException {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    out.print(markdown(Path.of(args.length > 0 ? args[0] : "examples")));
  }
}
