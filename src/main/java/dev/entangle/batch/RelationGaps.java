package dev.entangle.batch;

import dev.entangle.core.CoreProgram;
import dev.entangle.core.CoreValue;
import dev.entangle.core.ValueKind;
import dev.entangle.refine.CheckResult;
import dev.entangle.refine.Failure;
import java.nio.file.Path;

/**
 * A check that stopped because a G_s graph input has no entry in the relation file: an omission in
 * the input, not a bug of the model. {@code check} makes it an input error (exit 2) and {@code
 * batch} a case that could not run, both with this message, never {@code not-refined}.
 */
public final class RelationGaps {
  private RelationGaps() {}

  /**
   * What to tell the user when the check's failure is a G_s input the relation leaves out, else
   * null.
   */
  public static String unrelatedInput(CheckResult result, CoreProgram gs, Path relation) {
    if (!(result.failure() instanceof Failure.MissingInput m) || m.undefined()) {
      return null;
    }
    CoreValue input = gs.value(m.input());
    if (input.kind() != ValueKind.INPUT || input.op() >= 0) {
      return null;
    }
    return "G_s input "
        + input.name()
        + " is not related to G_d: add an entry for it to "
        + relation
        + " (e.g. {\"gs\": \""
        + input.name()
        + "\", \"replicate\": true} or \"shard\": DIM, or a \"gd\" expression); G_s operator "
        + gs.op(m.operator()).name()
        + " reads it.";
  }
}
