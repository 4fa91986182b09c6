package dev.entangle.cli;

import dev.entangle.core.CoreProgram;
import dev.entangle.core.CoreValue;
import dev.entangle.core.ValueKind;
import dev.entangle.refine.CheckResult;
import dev.entangle.refine.Failure;
import dev.entangle.util.InputException;
import java.nio.file.Path;

/**
 * A check that stopped because a G_s graph input has no entry in the relation file: an omission in
 * the input, not a bug of the model, so it is an input error (exit 2), not {@code not-refined}.
 */
final class UnrelatedInput {
  private UnrelatedInput() {}

  /** Throws the input error when the check's failure is a G_s input the relation leaves out. */
  static void check(CheckResult result, CoreProgram gs, Path relation) {
    if (!(result.failure() instanceof Failure.MissingInput m) || m.undefined()) {
      return;
    }
    CoreValue input = gs.value(m.input());
    if (input.kind() != ValueKind.INPUT || input.op() >= 0) {
      return;
    }
    throw new InputException(
        "G_s input "
            + input.name()
            + " is not related to G_d: add an entry for it to "
            + relation
            + " (e.g. {\"gs\": \""
            + input.name()
            + "\", \"replicate\": true} or \"shard\": DIM, or a \"gd\" expression); G_s operator "
            + gs.op(m.operator()).name()
            + " reads it.");
  }
}
