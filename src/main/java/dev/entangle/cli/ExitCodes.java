package dev.entangle.cli;

import dev.entangle.refine.Verdict;

/** The command line's exit codes (docs/formats.md, Exit codes), decided in one place. */
final class ExitCodes {
  static final int REFINES = 0;
  static final int NOT_REFINED = 1;
  static final int INPUT_ERROR = 2;
  static final int INCONCLUSIVE = 3;

  /** {@code --certify} found an output relation entry false on numbers: a bug in entangle. */
  static final int CERTIFICATE_VIOLATED = 4;

  private ExitCodes() {}

  static int of(Verdict v) {
    return switch (v) {
      case REFINES -> REFINES;
      case NOT_REFINED, EXPECTATION_VIOLATED -> NOT_REFINED;
      case INCONCLUSIVE, UNPROVED, UNSUPPORTED -> INCONCLUSIVE;
    };
  }
}
