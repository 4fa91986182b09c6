package dev.entangle.relation;

import java.util.List;

/**
 * One argument of a function call as written, before it is bound to a parameter.
 *
 * @param key the keyword, or null for a positional argument
 * @param at offset of the argument (its keyword, if any)
 * @param value an {@link Expr}, a {@link Long} or a {@code List<Long>}
 * @param valueAt offset of the value
 */
record CallArg(String key, int at, Object value, int valueAt) {
  boolean isExpr() {
    return value instanceof Expr;
  }

  String kind() {
    if (value instanceof Expr) {
      return "a tensor expression";
    }
    return value instanceof List<?> ? "a list" : "an integer";
  }
}
