package dev.entangle.relation;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Binds the arguments of a clean-function call to its parameters, Python style: tensor expressions
 * first, then integer parameters by position, then by keyword; and builds the {@link Expr}.
 */
final class CallBinder {
  static final String FUNCTIONS =
      "concat, slice, sum, max, min, mean, scale, transpose, permute, reshape, squeeze and"
          + " unsqueeze";

  private enum Kind {
    INT,
    LIST
  }

  private record Param(String name, Kind kind, Long byDefault) {}

  /** A function: how many leading tensor expressions, then its parameters. */
  private record Signature(boolean manyOperands, List<Param> params, String usage) {}

  private static final Map<String, Signature> SIGNATURES = new HashMap<>();

  static {
    Param dim = new Param("dim", Kind.INT, null);
    SIGNATURES.put("concat", new Signature(true, List.of(dim), "concat(e1, e2, ..., dim=D)"));
    SIGNATURES.put(
        "slice",
        new Signature(
            false,
            List.of(
                dim,
                new Param("start", Kind.INT, null),
                new Param("end", Kind.INT, null),
                new Param("step", Kind.INT, 1L)),
            "slice(e, dim=D, start=S, end=E) with an optional step=K"));
    for (Expr.ReduceKind kind : Expr.ReduceKind.values()) {
      SIGNATURES.put(kind.fn(), new Signature(true, List.of(), kind.fn() + "(e1, e2, ...)"));
    }
    SIGNATURES.put(
        "scale",
        new Signature(
            false,
            List.of(new Param("num", Kind.INT, null), new Param("den", Kind.INT, 1L)),
            "scale(e, P) or scale(e, P, Q) for e times P/Q"));
    SIGNATURES.put(
        "transpose",
        new Signature(
            false,
            List.of(new Param("dim0", Kind.INT, null), new Param("dim1", Kind.INT, null)),
            "transpose(e, D0, D1)"));
    SIGNATURES.put(
        "permute",
        new Signature(false, List.of(new Param("dims", Kind.LIST, null)), "permute(e, [D, ...])"));
    SIGNATURES.put(
        "reshape",
        new Signature(false, List.of(new Param("shape", Kind.LIST, null)), "reshape(e, [N, ...])"));
    SIGNATURES.put("squeeze", new Signature(false, List.of(dim), "squeeze(e, D)"));
    SIGNATURES.put("unsqueeze", new Signature(false, List.of(dim), "unsqueeze(e, D)"));
  }

  private CallBinder() {}

  static boolean isFunction(String name) {
    return SIGNATURES.containsKey(name);
  }

  /**
   * Builds the call.
   *
   * @param close offset of the closing parenthesis, where missing arguments are reported
   */
  static Expr bind(String function, List<CallArg> args, int close) {
    Signature sig = SIGNATURES.get(function);
    String usage = "; write " + sig.usage();
    List<Expr> operands = new ArrayList<>();
    Map<String, CallArg> bound = new HashMap<>();
    int positional = 0;
    boolean keywordSeen = false;
    for (CallArg a : args) {
      if (a.key() == null && keywordSeen) {
        throw new ParseError(a.at(), "a positional argument after a keyword argument" + usage);
      }
      if (a.isExpr()) {
        if (positional > 0 || keywordSeen) {
          throw new ParseError(
              a.at(), "a tensor expression after the integer arguments of " + function + usage);
        }
        if (!sig.manyOperands() && operands.size() == 1) {
          throw new ParseError(a.at(), function + " takes one tensor expression" + usage);
        }
        operands.add((Expr) a.value());
        continue;
      }
      if (operands.isEmpty()) {
        throw new ParseError(
            a.at(), function + " starts with a tensor expression, not " + a.kind() + usage);
      }
      Param p;
      if (a.key() == null) {
        if (positional >= sig.params().size()) {
          throw new ParseError(
              a.at(),
              "too many arguments: "
                  + function
                  + " takes "
                  + countParams(sig)
                  + " after its tensor expression"
                  + (sig.manyOperands() ? "s" : "")
                  + usage);
        }
        p = sig.params().get(positional++);
      } else {
        keywordSeen = true;
        p =
            sig.params().stream()
                .filter(q -> q.name().equals(a.key()))
                .findFirst()
                .orElseThrow(
                    () ->
                        new ParseError(
                            a.at(), function + " has no argument '" + a.key() + "'" + usage));
      }
      if (bound.putIfAbsent(p.name(), a) != null) {
        throw new ParseError(a.at(), p.name() + " is given twice" + usage);
      }
      boolean isList = a.value() instanceof List<?>;
      if ((p.kind() == Kind.LIST) != isList) {
        throw new ParseError(
            a.valueAt(),
            p.name()
                + " must be "
                + (p.kind() == Kind.LIST ? "a list of integers" : "an integer")
                + ", not "
                + a.kind()
                + usage);
      }
    }
    if (operands.isEmpty()) {
      throw new ParseError(close, function + " needs a tensor expression" + usage);
    }
    for (Param p : sig.params()) {
      if (!bound.containsKey(p.name()) && p.byDefault() == null) {
        throw new ParseError(close, function + " is missing " + p.name() + usage);
      }
    }
    return build(function, operands, new Bound(bound, sig));
  }

  private static String countParams(Signature sig) {
    int n = sig.params().size();
    return n == 0
        ? "no further arguments"
        : "at most " + n + " integer argument" + (n == 1 ? "" : "s");
  }

  /** The bound parameter values, converted with range checks. */
  private record Bound(Map<String, CallArg> args, Signature sig) {
    long longValue(String name) {
      CallArg a = args.get(name);
      if (a == null) {
        return sig.params().stream()
            .filter(p -> p.name().equals(name))
            .findFirst()
            .orElseThrow()
            .byDefault();
      }
      return (Long) a.value();
    }

    int dim(String name) {
      long v = longValue(name);
      if (v != (int) v) {
        throw new ParseError(args.get(name).valueAt(), name + " " + v + " is out of range");
      }
      return (int) v;
    }

    @SuppressWarnings("unchecked")
    List<Long> list(String name) {
      return (List<Long>) args.get(name).value();
    }

    List<Integer> dims(String name) {
      List<Integer> out = new ArrayList<>();
      for (long v : list(name)) {
        if (v != (int) v) {
          throw new ParseError(
              args.get(name).valueAt(), name + " holds " + v + ", which is out of range");
        }
        out.add((int) v);
      }
      return out;
    }
  }

  private static Expr build(String function, List<Expr> operands, Bound b) {
    Expr e = operands.get(0);
    return switch (function) {
      case "concat" -> new Expr.Concat(operands, b.dim("dim"));
      case "slice" ->
          new Expr.Slice(
              e, b.dim("dim"), b.longValue("start"), b.longValue("end"), b.longValue("step"));
      case "scale" -> new Expr.Scale(e, b.longValue("num"), b.longValue("den"));
      case "transpose" -> new Expr.Transpose(e, b.dim("dim0"), b.dim("dim1"));
      case "permute" -> new Expr.Permute(e, b.dims("dims"));
      case "reshape" -> new Expr.Reshape(e, b.list("shape"));
      case "squeeze" -> new Expr.Squeeze(e, b.dim("dim"));
      case "unsqueeze" -> new Expr.Unsqueeze(e, b.dim("dim"));
      default ->
          new Expr.Reduce(Expr.ReduceKind.valueOf(function.toUpperCase(Locale.ROOT)), operands);
    };
  }
}
