package dev.entangle.rules;

import dev.entangle.core.Op;
import dev.entangle.util.DidYouMean;
import java.util.Arrays;
import java.util.List;

/** The core operators' lemma-file names, for "did you mean" in errors about an unknown one. */
final class OperatorNames {
  private static final List<String> ALL = Arrays.stream(Op.values()).map(Op::symbol).toList();

  private OperatorNames() {}

  /** {@code " (did you mean 'maximum'?)"} for {@code max}, or the empty string. */
  static String hint(String name) {
    return DidYouMean.hint(name, ALL);
  }
}
