package dev.entangle.egraph;

import java.util.ArrayList;
import java.util.List;

/**
 * A tiny arithmetic language for engine tests: {@code (+ a b)}, {@code (* a b)}, integer literals
 * ({@code num} with the value as attribute) and symbols ({@code var} with the name's hash as
 * attribute), with a handful of hand-written rewrites over it.
 */
final class Arith {
  static final int ADD = 0;
  static final int MUL = 1;
  static final int NUM = 2;
  static final int VAR = 3;

  private Arith() {}

  static String opName(int op) {
    return switch (op) {
      case ADD -> "+";
      case MUL -> "*";
      case NUM -> "num";
      case VAR -> "var";
      default -> "op" + op;
    };
  }

  /** Adds a ground term such as {@code (+ x (* 2 y))} to the e-graph and returns its class. */
  static int add(EGraph<?> g, String text) {
    List<String> tokens = new ArrayList<>();
    for (String t : text.replace("(", " ( ").replace(")", " ) ").trim().split("\\s+")) {
      tokens.add(t);
    }
    int[] pos = {0};
    int c = parse(g, tokens, pos);
    if (pos[0] != tokens.size()) {
      throw new IllegalArgumentException("trailing input in " + text);
    }
    return c;
  }

  private static int parse(EGraph<?> g, List<String> tokens, int[] pos) {
    String t = tokens.get(pos[0]++);
    if (t.equals("(")) {
      int op =
          switch (tokens.get(pos[0]++)) {
            case "+" -> ADD;
            case "*" -> MUL;
            default ->
                throw new IllegalArgumentException("unknown operator " + tokens.get(pos[0] - 1));
          };
      int a = parse(g, tokens, pos);
      int b = parse(g, tokens, pos);
      if (!tokens.get(pos[0]++).equals(")")) {
        throw new IllegalArgumentException("expected )");
      }
      return g.add(ENode.of(op, a, b));
    }
    return g.add(t.matches("-?\\d+") ? num(Long.parseLong(t)) : var(t));
  }

  static ENode num(long value) {
    return ENode.leaf(NUM, value);
  }

  static ENode var(String name) {
    return ENode.leaf(VAR, name.hashCode());
  }

  /** Renders an extracted term back in the input syntax (symbols by hash: {@code v<hash>}). */
  static String render(Term t) {
    return switch (t.op()) {
      case NUM -> Long.toString(t.attr(0));
      case VAR -> "v" + t.attr(0);
      default -> "(" + opName(t.op()) + " " + render(t.child(0)) + " " + render(t.child(1)) + ")";
    };
  }

  /** The nodes of one operator in a class. */
  static List<ENode> nodes(EGraph<?> g, int cls, int op) {
    List<ENode> out = new ArrayList<>();
    for (ENode n : g.nodes(cls)) {
      if (n.op() == op) {
        out.add(n);
      }
    }
    return out;
  }

  /** Whether a class holds the literal {@code v}. */
  static boolean holds(EGraph<?> g, int cls, long v) {
    return nodes(g, cls, NUM).stream().anyMatch(n -> n.attr(0) == v);
  }

  /** A rewrite matching every node of {@code op}; the applier gets the node's children. */
  interface Rhs {
    /** The class the match equals, or -1 for none. */
    int build(EGraph<?> g, int[] children);
  }

  static <D> Rewrite<D> onNodes(String name, int op, Rhs rhs) {
    return new Rewrite<>(
        name,
        (g, deadline, sink) -> {
          for (int c : g.classesWithOp(op)) {
            for (ENode n : nodes(g, c, op)) {
              if (!sink.match(c, n.children())) {
                return;
              }
            }
          }
        },
        (g, cls, bindings, unions) -> {
          int r = rhs.build(g, (int[]) bindings);
          if (r >= 0) {
            unions.union(cls, r);
          }
        });
  }

  /** A rewrite matching {@code (outer a (inner b c))}; the applier gets a, b, c. */
  static <D> Rewrite<D> nested(String name, int outer, int inner, Rhs rhs) {
    return new Rewrite<>(
        name,
        (g, deadline, sink) -> {
          for (int c : g.classesWithOp(outer)) {
            for (ENode n : nodes(g, c, outer)) {
              for (ENode m : nodes(g, n.child(1), inner)) {
                if (!sink.match(c, new int[] {n.child(0), m.child(0), m.child(1)})) {
                  return;
                }
              }
            }
          }
        },
        (g, cls, bindings, unions) -> {
          int r = rhs.build(g, (int[]) bindings);
          if (r >= 0) {
            unions.union(cls, r);
          }
        });
  }

  /** Commutativity, associativity, distributivity and units. */
  static <D> List<Rewrite<D>> rules() {
    return List.of(
        onNodes("comm-add", ADD, (g, x) -> g.add(ENode.of(ADD, x[1], x[0]))),
        onNodes("comm-mul", MUL, (g, x) -> g.add(ENode.of(MUL, x[1], x[0]))),
        nested(
            "assoc-add",
            ADD,
            ADD,
            (g, x) -> g.add(ENode.of(ADD, g.add(ENode.of(ADD, x[0], x[1])), x[2]))),
        nested(
            "distribute",
            MUL,
            ADD,
            (g, x) ->
                g.add(
                    ENode.of(
                        ADD, g.add(ENode.of(MUL, x[0], x[1])), g.add(ENode.of(MUL, x[0], x[2]))))),
        onNodes("add-zero", ADD, (g, x) -> holds(g, x[1], 0) ? x[0] : -1),
        onNodes("mul-one", MUL, (g, x) -> holds(g, x[1], 1) ? x[0] : -1),
        onNodes("mul-zero", MUL, (g, x) -> holds(g, x[1], 0) ? g.add(num(0)) : -1));
  }

  /** Constant folding: a class's fact is its value when known, else null. */
  static final class ConstantFolding implements Analysis<Long> {
    @Override
    public Long make(EGraph<Long> g, ENode n) {
      switch (n.op()) {
        case NUM:
          return n.attr(0);
        case ADD:
        case MUL:
          Long a = g.data(n.child(0));
          Long b = g.data(n.child(1));
          if (a == null || b == null) {
            return null;
          }
          return n.op() == ADD ? a + b : a * b;
        default:
          return null;
      }
    }

    @Override
    public Long merge(Long a, Long b) {
      if (a != null && b != null && !a.equals(b)) {
        throw new AnalysisConflict("a class cannot equal both " + a + " and " + b);
      }
      return a != null ? a : b;
    }

    @Override
    public void modify(EGraph<Long> g, int classId) {
      Long value = g.data(classId);
      if (value != null) {
        g.union(classId, g.add(num(value)));
      }
    }
  }
}
