package dev.entangle.cli;

import dev.entangle.batch.RelationGaps;
import dev.entangle.core.CoreProgram;
import dev.entangle.refine.CheckResult;
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
    String message = RelationGaps.unrelatedInput(result, gs, relation);
    if (message != null) {
      throw new InputException(message);
    }
  }
}
