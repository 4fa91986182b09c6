package dev.entangle.importer;

import java.util.Map;
import java.util.Set;

/**
 * Python's operators as torch.fx prints them on symbols ({@code s0 + 1}, {@code -s0}): the node
 * target each stands for, which is the name of the {@code operator} module function ({@code add},
 * {@code ge}, {@code neg}, ...), and the dtype of an unannotated result.
 */
final class PythonOperators {
  private static final Map<String, String> BINARY =
      Map.ofEntries(
          Map.entry("+", "add"),
          Map.entry("-", "sub"),
          Map.entry("*", "mul"),
          Map.entry("/", "truediv"),
          Map.entry("//", "floordiv"),
          Map.entry("%", "mod"),
          Map.entry("**", "pow"),
          Map.entry("@", "matmul"),
          Map.entry("==", "eq"),
          Map.entry("!=", "ne"),
          Map.entry("<", "lt"),
          Map.entry("<=", "le"),
          Map.entry(">", "gt"),
          Map.entry(">=", "ge"),
          Map.entry("&", "and_"),
          Map.entry("|", "or_"),
          Map.entry("^", "xor"),
          Map.entry("<<", "lshift"),
          Map.entry(">>", "rshift"));
  private static final Map<String, String> UNARY =
      Map.of("-", "neg", "+", "pos", "~", "invert", "not", "not_");
  private static final Set<String> BOOL_RESULTS =
      Set.of("eq", "ne", "lt", "le", "gt", "ge", "not_", "and_", "or_", "xor");

  private PythonOperators() {}

  /** The target of a binary operator as written ({@code >=} is {@code ge}), or null. */
  static String binary(String op) {
    return BINARY.get(op);
  }

  /** The target of a unary operator as written ({@code -} is {@code neg}), or null. */
  static String unary(String op) {
    return UNARY.get(op);
  }

  /** The dtype of an operator's scalar result: comparisons give bool, true division float64. */
  static String resultDtype(String target, boolean floatOperand) {
    if (BOOL_RESULTS.contains(target)) {
      return "bool";
    }
    return target.equals("truediv") || floatOperand ? "float64" : "int64";
  }
}
