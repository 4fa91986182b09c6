package dev.entangle.importer;

import dev.entangle.graph.Arg;
import dev.entangle.util.InputException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Turns a printed call argument into an {@link Arg}: literals, node references, {@code
 * torch.float32}-style constants, {@code device(...)}, operator references (as their target
 * string), and arithmetic on symbols (as {@link Arg.SymArg} with the expression's text).
 */
final class ArgConverter {
  private static final BigInteger LONG_MIN = BigInteger.valueOf(Long.MIN_VALUE);
  private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

  private final SourceFile src;
  private final Predicate<String> isNode;

  /**
   * @param isNode whether a name is a node defined so far
   */
  ArgConverter(SourceFile src, Predicate<String> isNode) {
    this.src = src;
    this.isNode = isNode;
  }

  List<Arg> convertAll(List<PyExpr> exprs) {
    List<Arg> out = new ArrayList<>(exprs.size());
    for (PyExpr e : exprs) {
      out.add(convert(e));
    }
    return out;
  }

  Arg convert(PyExpr e) {
    int line = e.span().line();
    if (e instanceof PyExpr.Name n) {
      return name(n);
    }
    if (e instanceof PyExpr.Constant c) {
      return switch (c.word()) {
        case "None" -> Arg.NONE;
        case "True" -> new Arg.BoolArg(true);
        default -> new Arg.BoolArg(false);
      };
    }
    if (e instanceof PyExpr.IntLit i) {
      return integer(i.value(), line);
    }
    if (e instanceof PyExpr.FloatLit f) {
      return new Arg.FloatArg(f.value());
    }
    if (e instanceof PyExpr.StrLit s) {
      return new Arg.StrArg(s.value());
    }
    if (e instanceof PyExpr.Sequence seq) {
      return new Arg.ListArg(convertAll(seq.items()));
    }
    if (e instanceof PyExpr.UnaryOp u && (u.op().equals("-") || u.op().equals("+"))) {
      Arg negated = signedLiteral(u);
      if (negated != null) {
        return negated;
      }
      return symbolic(e);
    }
    if (e instanceof PyExpr.UnaryOp || e instanceof PyExpr.BinOp) {
      return symbolic(e);
    }
    if (e instanceof PyExpr.Attribute) {
      return dotted(e);
    }
    if (e instanceof PyExpr.Call call) {
      String fn = PyExpr.dotted(call.func());
      if ("device".equals(fn) || "torch.device".equals(fn)) {
        return device(call);
      }
      throw src.error(
          line,
          "the argument `"
              + text(e)
              + "` calls a function; graph code passes only names,"
              + " literals and constants",
          "Only `device(...)` is read inside arguments.");
    }
    throw src.error(
        line,
        "cannot read the argument `" + text(e) + "`",
        "Graph code passes node names, numbers, strings, lists, torch constants and device(...).");
  }

  private Arg name(PyExpr.Name n) {
    String id = n.id();
    if (isNode.test(id)) {
      return new Arg.NodeRef(id);
    }
    if (id.equals("inf")) {
      return new Arg.FloatArg(Double.POSITIVE_INFINITY);
    }
    if (id.equals("nan")) {
      return new Arg.FloatArg(Double.NaN);
    }
    throw unknownName(id, n.span().line());
  }

  private InputException unknownName(String id, int line) {
    return src.error(
        line,
        "`" + id + "` is not a node defined above this line",
        "Every name an argument uses must be assigned (or be an input) earlier in `forward`.");
  }

  private Arg integer(BigInteger v, int line) {
    if (v.compareTo(LONG_MIN) < 0 || v.compareTo(LONG_MAX) > 0) {
      throw src.error(
          line,
          "the integer " + v + " does not fit in 64 bits",
          "Graph files hold 64-bit integers.");
    }
    return new Arg.IntArg(v.longValue());
  }

  /** {@code -3}, {@code -1e-05}, {@code -inf}: a literal with a sign; null when not a literal. */
  private Arg signedLiteral(PyExpr.UnaryOp u) {
    boolean minus = u.op().equals("-");
    PyExpr x = u.operand();
    int line = u.span().line();
    if (x instanceof PyExpr.IntLit i) {
      return integer(minus ? i.value().negate() : i.value(), line);
    }
    if (x instanceof PyExpr.FloatLit f) {
      return new Arg.FloatArg(minus ? -f.value() : f.value());
    }
    if (x instanceof PyExpr.Name n && !isNode.test(n.id())) {
      if (n.id().equals("inf")) {
        return new Arg.FloatArg(minus ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY);
      }
      if (n.id().equals("nan")) {
        return new Arg.FloatArg(Double.NaN);
      }
    }
    if (x instanceof PyExpr.UnaryOp inner && (inner.op().equals("-") || inner.op().equals("+"))) {
      Arg a = signedLiteral(inner);
      if (a instanceof Arg.IntArg i && minus) {
        return integer(BigInteger.valueOf(i.value()).negate(), line);
      }
      if (a instanceof Arg.FloatArg f) {
        return new Arg.FloatArg(minus ? -f.value() : f.value());
      }
      return a;
    }
    return null;
  }

  /** Arithmetic or a comparison on symbols: kept as text, after checking every name is a node. */
  private Arg symbolic(PyExpr e) {
    checkSymbolic(e);
    return new Arg.SymArg(text(e));
  }

  private void checkSymbolic(PyExpr e) {
    if (e instanceof PyExpr.BinOp b) {
      checkSymbolic(b.left());
      checkSymbolic(b.right());
    } else if (e instanceof PyExpr.UnaryOp u) {
      checkSymbolic(u.operand());
    } else if (e instanceof PyExpr.Name n) {
      if (!isNode.test(n.id())) {
        throw unknownName(n.id(), n.span().line());
      }
    } else if (!(e instanceof PyExpr.IntLit
        || e instanceof PyExpr.FloatLit
        || e instanceof PyExpr.Constant)) {
      throw src.error(
          e.span().line(),
          "the arithmetic `" + text(e) + "` uses something other than node names and numbers",
          "Arithmetic in arguments may only combine symbolic sizes (node names) and numbers.");
    }
  }

  private Arg dotted(PyExpr e) {
    String name = PyExpr.dotted(e);
    int line = e.span().line();
    if (name != null && OpNames.isOp(name)) {
      String target = OpNames.target(name);
      if (target == null) {
        throw src.error(
            line,
            "cannot read the operator reference `" + name + "`",
            "Operators are written torch.ops.NAMESPACE.NAME.OVERLOAD.");
      }
      return new Arg.StrArg(target);
    }
    if (name != null && name.startsWith("torch.") && name.indexOf('.', 6) < 0) {
      String member = name.substring(6);
      String dtype = TorchNames.dtype(member);
      if (dtype != null) {
        return new Arg.DtypeArg(dtype);
      }
      if (TorchNames.isMemoryFormat(member)) {
        return new Arg.MemoryFormatArg(member);
      }
      if (TorchNames.isLayout(member)) {
        return new Arg.LayoutArg(member);
      }
    }
    if (name != null && name.startsWith("self.")) {
      throw src.error(
          line,
          "the argument `"
              + name
              + "` refers to a submodule or attribute of the module;"
              + " graphs of higher-order operators are not supported",
          "Import graphs whose calls take only tensors, literals and constants.");
    }
    throw src.error(
        line,
        "the argument `" + text(e) + "` is not a dtype, layout or memory format torch prints",
        "Known constants are torch dtypes (torch.float32, ...), torch.strided and the like, and"
            + " torch.contiguous_format and the like.");
  }

  private Arg device(PyExpr.Call call) {
    int line = call.span().line();
    PyExpr type = call.kwargs().get("type");
    PyExpr index = call.kwargs().get("index");
    if (type == null && !call.args().isEmpty()) {
      type = call.args().get(0);
    }
    if (index == null && call.args().size() > 1) {
      index = call.args().get(1);
    }
    if (!(type instanceof PyExpr.StrLit t)) {
      throw src.error(
          line, "cannot read this device", "torch prints devices as device(type='cuda', index=0).");
    }
    if (index == null || PyExpr.isNone(index)) {
      return new Arg.DeviceArg(t.value());
    }
    if (!(index instanceof PyExpr.IntLit i)) {
      throw src.error(
          line,
          "the device index is not an integer",
          "torch prints devices as device(type='cuda', index=0).");
    }
    return new Arg.DeviceArg(t.value() + ":" + i.value());
  }

  String text(PyExpr e) {
    return src.slice(e.span().start(), e.span().end());
  }
}
