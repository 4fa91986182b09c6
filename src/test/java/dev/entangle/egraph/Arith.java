package dev.entangle.egraph;

import java.util.ArrayList;
import java.util.List;

/**
 * A tiny arithmetic language for engine tests: {@code (+ a b)}, {@code (* a b)}, integer literals
 * ({@code num} with the value as attribute) and symbols ({@code var} with the name's hash as
 * attribute). In patterns, {@code ?x} is a class variable.
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

  /** Parses a pattern; symbols become {@code var} leaves, {@code ?x} a class variable. */
  static Pattern pattern(String text) {
    Parser p = new Parser(text);
    Pattern result = p.pattern();
    p.end();
    return result;
  }

  /** Adds a ground term to the e-graph and returns its class. */
  static int add(EGraph<?> g, String text) {
    Pattern p = pattern(text);
    if (!p.classVars().isEmpty()) {
      throw new IllegalArgumentException("not a ground term: " + text);
    }
    return Instantiator.instantiate(g, p, Subst.EMPTY);
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

  static Rewrite rule(String name, String lhs, String rhs) {
    return Rewrite.of(name, pattern(lhs), pattern(rhs));
  }

  /** Commutativity, associativity, distributivity (both ways) and units. */
  static List<Rewrite> rules() {
    return List.of(
        rule("comm-add", "(+ ?a ?b)", "(+ ?b ?a)"),
        rule("comm-mul", "(* ?a ?b)", "(* ?b ?a)"),
        rule("assoc-add", "(+ ?a (+ ?b ?c))", "(+ (+ ?a ?b) ?c)"),
        rule("assoc-mul", "(* ?a (* ?b ?c))", "(* (* ?a ?b) ?c)"),
        rule("distribute", "(* ?a (+ ?b ?c))", "(+ (* ?a ?b) (* ?a ?c))"),
        rule("factor", "(+ (* ?a ?b) (* ?a ?c))", "(* ?a (+ ?b ?c))"),
        rule("add-zero", "(+ ?a 0)", "?a"),
        rule("mul-one", "(* ?a 1)", "?a"),
        rule("mul-zero", "(* ?a 0)", "0"));
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

  private static final class Parser {
    private final List<String> tokens = new ArrayList<>();
    private int pos;

    Parser(String text) {
      for (String t : text.replace("(", " ( ").replace(")", " ) ").trim().split("\\s+")) {
        tokens.add(t);
      }
    }

    Pattern pattern() {
      String t = tokens.get(pos++);
      if (t.equals("(")) {
        String op = tokens.get(pos++);
        int id =
            switch (op) {
              case "+" -> ADD;
              case "*" -> MUL;
              default -> throw new IllegalArgumentException("unknown operator " + op);
            };
        Pattern a = pattern();
        Pattern b = pattern();
        expect(")");
        return Pattern.node(id, a, b);
      }
      if (t.startsWith("?")) {
        return Pattern.var(t.substring(1));
      }
      if (t.matches("-?\\d+")) {
        return Pattern.node(NUM, List.of(AttrPattern.lit(Long.parseLong(t))));
      }
      return Pattern.node(VAR, List.of(AttrPattern.lit(t.hashCode())));
    }

    void end() {
      if (pos != tokens.size()) {
        throw new IllegalArgumentException("trailing input at token " + tokens.get(pos));
      }
    }

    private void expect(String s) {
      if (!tokens.get(pos++).equals(s)) {
        throw new IllegalArgumentException("expected " + s);
      }
    }
  }
}
