package dev.entangle.importer;

import java.util.Set;

/**
 * How printed operator references become node targets. {@code torch.ops.NS.OP.OVERLOAD} is the
 * target {@code NS.OP.OVERLOAD}. A reference without an overload, {@code torch.ops.aten.add}, calls
 * the operator's default overload when torch resolves it, so it becomes {@code aten.add.default};
 * higher-order operators ({@code torch.ops.higher_order.X}) have no overloads and keep the two-part
 * name {@code higher_order.X}.
 */
final class OpNames {
  static final String PREFIX = "torch.ops.";
  static final String HIGHER_ORDER = "higher_order";
  static final String AUTO_FUNCTIONALIZED = "higher_order.auto_functionalized";
  static final String AUTO_FUNCTIONALIZED_V2 = "higher_order.auto_functionalized_v2";
  static final String ALIAS = "aten.alias.default";

  /** Tagging ops: {@code tg.log_tensor(t, s)} returns {@code t}, named {@code s}. */
  static final String LOG_TENSOR = "tg.log_tensor.default";

  /** {@code tg.inplace_log_tensor(t, s)} names {@code t} in place and returns nothing. */
  static final String INPLACE_LOG_TENSOR = "tg.inplace_log_tensor.default";

  /** ATen operators that return nothing (assertions), so their nodes carry an empty tuple. */
  static final Set<String> VOID_ATEN =
      Set.of(
          "aten._assert_async.default",
          "aten._assert_async.msg",
          "aten._assert_scalar.default",
          "aten.sym_constrain_range.default",
          "aten.sym_constrain_range_for_size.default",
          "aten._assert_tensor_metadata.default",
          "aten.record_stream.default");

  /** Operators on symbolic sizes whose result is a SymInt. */
  static final Set<String> SYM_INT_OPS =
      Set.of(
          "aten.sym_size.int",
          "aten.sym_numel.default",
          "aten.sym_stride.int",
          "aten.sym_storage_offset.default");

  /** Unary operators whose result has the type of their first argument. */
  static final Set<String> SAME_TYPE_OPS =
      Set.of(
          "aten.lift_fresh_copy.default",
          "aten.lift_fresh.default",
          "aten.clone.default",
          "aten.detach.default",
          "aten.alias.default");

  private OpNames() {}

  /** Whether a dotted name refers to an operator under {@code torch.ops}. */
  static boolean isOp(String dotted) {
    return dotted != null && dotted.startsWith(PREFIX);
  }

  /**
   * The target of a {@code torch.ops...} reference, or null when it is not one of the forms {@code
   * torch.ops.NS.OP} or {@code torch.ops.NS.OP.OVERLOAD}.
   */
  static String target(String dotted) {
    if (!isOp(dotted)) {
      return null;
    }
    String[] parts = dotted.substring(PREFIX.length()).split("\\.", -1);
    if (parts.length == 2) {
      return parts[0].equals(HIGHER_ORDER)
          ? dotted.substring(PREFIX.length())
          : parts[0] + "." + parts[1] + ".default";
    }
    if (parts.length == 3 && !parts[0].equals(HIGHER_ORDER)) {
      return dotted.substring(PREFIX.length());
    }
    return null;
  }

  static boolean isSameTypeOp(String target) {
    return target != null && SAME_TYPE_OPS.contains(target);
  }

  static boolean isTagging(String target) {
    return LOG_TENSOR.equals(target) || INPLACE_LOG_TENSOR.equals(target);
  }
}
