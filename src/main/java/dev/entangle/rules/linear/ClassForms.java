package dev.entangle.rules.linear;

import dev.entangle.core.Dtype;
import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import dev.entangle.rules.SearchDeadline;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The linear forms of an e-graph's classes at one moment: each node's form computed from its
 * children's canonical forms, and each class's canonical form the best of its nodes' forms (a form
 * with linear structure before the class's own atom, then more monomials first, then the form first
 * interned). A class met again while its form is being computed (a cycle), or deeper than {@link
 * #MAX_DEPTH}, is its own atom there; a node's form that read such an atom is reported but never
 * chosen as its class's canonical form (the class's own atom is, if nothing else), so that every
 * canonical form is built from the canonical forms of its children, the same ones whichever class
 * was reached first. (A class {@code x} with {@code y = x / 2} holds {@code x = 2 y} too: reached
 * from {@code y}, {@code x}'s form would otherwise be {@code 2 y} while {@code y}'s is {@code x /
 * 2}, and a product read through one differs from one read through the other.) Every form is that
 * of a term the class holds, so every form found denotes the class's value: equal forms of one type
 * mean equal values.
 */
public final class ClassForms {
  /** Deeper classes are atoms (bounds the recursion). */
  static final int MAX_DEPTH = 400;

  private static final int UNSEEN = -1;
  private static final int ON_STACK = -2;

  /**
   * Receives each form found for a class's nodes (not the class's own atom, which is its form
   * without saying so).
   */
  @FunctionalInterface
  public interface Sink {
    void form(int cls, int form);
  }

  private final EGraph<TypeInfo> g;
  private final SearchDeadline deadline;
  private final FormTable table;
  private final Sink sink;
  private final int[] state;

  private ClassForms(
      EGraph<TypeInfo> g,
      SearchDeadline deadline,
      FormTable table,
      Sink sink,
      Map<Integer, Integer> aliases) {
    this.aliases = aliases;
    this.g = g;
    this.deadline = deadline;
    this.table = table;
    this.sink = sink;
    this.state = new int[g.classIdBound()];
    Arrays.fill(state, UNSEEN);
  }

  /**
   * Computes the forms of every class of a clean e-graph, in increasing class order, reporting each
   * class's forms to {@code sink}; returns the canonical form id of each class (indexed by class
   * id, {@code -1} for ids that are not classes).
   */
  public static int[] compute(
      EGraph<TypeInfo> g, SearchDeadline deadline, FormTable table, Sink sink) {
    Map<Integer, Integer> aliases = Map.of();
    for (int pass = 1; ; pass++) {
      ClassForms forms = new ClassForms(g, deadline, table, sink, aliases);
      for (int c : g.classIds()) {
        forms.form(c, 0);
      }
      if (pass == PASSES || forms.found.equals(aliases)) {
        return forms.state;
      }
      aliases = forms.found;
    }
  }

  /**
   * Most passes over the classes. A structural atom (a product, a sum over dims, a layout operator
   * of a form) that is one node's whole form in a class whose canonical form is another is an alias
   * of that canonical form: the next pass reads it as that form wherever it is built, so that a
   * product met inside a sum and the same product a rank computed (whose class's canonical form is,
   * say, the transpose of its transpose) are one form.
   */
  private static final int PASSES = 3;

  /** Structural atoms read as other forms in this pass (by atom id, the form's id). */
  private final Map<Integer, Integer> aliases;

  /** The aliases this pass found, for the next. */
  private final Map<Integer, Integer> found = new HashMap<>();

  /** The form of a structural atom: the atom, or the form it is an alias of. */
  private LinearForm structural(Atom a) {
    return aliased(table.atom(a));
  }

  /** The form of an interned atom: the atom, or the form it is an alias of. */
  private LinearForm aliased(int atom) {
    Integer alias = aliases.get(atom);
    return alias == null ? LinearForm.atom(atom) : table.formAt(alias);
  }

  /**
   * Records the class's node forms that are a multiple {@code q · a} of one structural atom as
   * aliases: {@code a} is the class's form divided by {@code q}.
   */
  private void noteAliases(List<Integer> nodeForms, int best) {
    for (int f : nodeForms) {
      LinearForm form = table.formAt(f);
      if (f != best
          && form.size() == 1
          && form.monomial(0).degree() == 1
          && !table.atomAt(form.monomial(0).atom(0)).isClass()) {
        LinearForm alias = table.formAt(best).times(form.coefficient(0).reciprocal());
        if (alias != null) {
          found.putIfAbsent(form.monomial(0).atom(0), table.form(alias));
        }
      }
    }
  }

  /** Whether the node form being computed read the atom of a class whose form was unknown. */
  private boolean readUnfinished;

  private int form(int cls, int depth) {
    int c = g.find(cls);
    int s = state[c];
    if (s >= 0) {
      return s;
    }
    if (s == ON_STACK || depth > MAX_DEPTH) {
      readUnfinished = true;
      return self(c);
    }
    state[c] = ON_STACK;
    int best = classForm(c, depth);
    state[c] = best;
    return best;
  }

  private int self(int c) {
    return table.form(table.atomForm(Atom.ofClass(c)));
  }

  private int classForm(int c, int depth) {
    int self = self(c);
    TypeInfo t = g.data(c);
    if (t.isTuple()) {
      return self;
    }
    if (t.constant() != null) {
      Rational r = Rational.ofDouble(t.constant());
      if (r == null) {
        return self;
      }
      int f = table.form(LinearForm.constant(r));
      sink.form(c, f);
      return f;
    }
    if (!Dtype.isFloating(t.dtype())) {
      return self;
    }
    int best = self;
    List<Integer> nodeForms = new ArrayList<>();
    boolean outer = readUnfinished;
    for (ENode n : g.nodes(c)) {
      deadline.poll();
      LinearForm f;
      readUnfinished = false;
      try {
        f = nodeForm(n, depth);
      } catch (ArithmeticException e) {
        f = null; // a count or a factor out of range: no form
      }
      if (f == null) {
        continue;
      }
      int id = table.form(f);
      sink.form(c, id);
      nodeForms.add(id);
      if (!readUnfinished && better(id, best, self)) {
        best = id;
      }
    }
    readUnfinished = outer;
    if (best != self) {
      noteAliases(nodeForms, best);
    }
    return best;
  }

  private boolean better(int a, int b, int self) {
    if (a == b || a == self) {
      return false;
    }
    if (b == self) {
      return true;
    }
    int sa = table.formAt(a).size();
    int sb = table.formAt(b).size();
    if (sa != sb) {
      return sa > sb;
    }
    int cutA = slices(a);
    int cutB = slices(b);
    return cutA != cutB ? cutA < cutB : a < b;
  }

  /** Per form id, {@link #slices}'s count. */
  private final Map<Integer, Integer> sliceCounts = new HashMap<>();

  /**
   * How many slices a form's atoms take, nested ones included: of two forms of one class, the one
   * that cuts less is a rank's own computation rather than a part cut from a whole, and is the one
   * other classes' forms are built from too (a part the rules split off a whole holds both).
   */
  private int slices(int form) {
    Integer known = sliceCounts.get(form);
    if (known != null) {
      return known;
    }
    int n = 0;
    LinearForm f = table.formAt(form);
    for (int i = 0; i < f.size(); i++) {
      Monomial m = f.monomial(i);
      for (int k = 0; k < m.degree(); k++) {
        Atom a = table.atomAt(m.atom(k));
        n += a.op() == Op.SLICE.id() ? 1 : 0;
        for (int o : a.operands()) {
          n += slices(o);
        }
      }
    }
    sliceCounts.put(form, n);
    return n;
  }

  /** {@code a + b}, or, when terms cancel, a multiple of the atom of the sum's terms before. */
  private LinearForm sum(LinearForm a, LinearForm b) {
    LinearForm f = a.plus(b);
    return f != null ? f : cancelled(a.plusKeepingCancelled(b));
  }

  /** {@code a · b}, or, when terms cancel, a multiple of the atom of its terms before. */
  private LinearForm product(LinearForm a, LinearForm b) {
    LinearForm f = a.times(b);
    return f != null ? f : cancelled(a.timesKeepingCancelled(b));
  }

  /**
   * A value whose terms cancel ({@code x·(1 - t) + x·(1 - t)·t}, as autodiff writes a derivative)
   * has no form: with an infinite x, {@code x - x} is not 0. It is a multiple of one structural
   * atom, named by its terms before cancelling (the cancelled ones at zero) divided by the first
   * term's coefficient: the same cancelling sum of other multiples of the same terms (a sequential
   * gradient and each rank's share of it) is then the same atom, scaled. Null when the terms
   * overflow or all cancel.
   */
  private LinearForm cancelled(LinearForm terms) {
    Rational lead = terms == null ? null : terms.leadingCoefficient();
    if (lead == null) {
      return null;
    }
    LinearForm key = terms.times(lead.reciprocal());
    return key == null
        ? null
        : structural(new Atom(Op.SUMN.id(), new long[0], new int[] {table.form(key)})).times(lead);
  }

  private LinearForm child(ENode n, int i, int depth) {
    return table.formAt(form(n.child(i), depth + 1));
  }

  private LinearForm nodeForm(ENode n, int depth) {
    Op op = Op.of(n.op());
    if (op == null) {
      return null;
    }
    return switch (op) {
      case NEG -> child(n, 0, depth).negate();
      case ADD -> sum(child(n, 0, depth), child(n, 1, depth));
      case SUB -> {
        LinearForm b = child(n, 1, depth).negate();
        yield b == null ? null : sum(child(n, 0, depth), b);
      }
      case MUL -> product(child(n, 0, depth), child(n, 1, depth));
      case DIV -> {
        LinearForm inverse = reciprocal(child(n, 1, depth));
        yield inverse == null ? null : product(child(n, 0, depth), inverse);
      }
      case RECIPROCAL -> reciprocal(child(n, 0, depth));
      case SCALE -> child(n, 0, depth).times(Rational.of(n.attr(0), n.attr(1)));
      case SUMN -> {
        LinearForm sum = LinearForm.ZERO;
        for (int i = 0; i < n.arity() && sum != null; i++) {
          sum = sum(sum, child(n, i, depth));
        }
        yield sum;
      }
      case EXPAND, RESHAPE, PERMUTE, SLICE -> layout(op, n, child(n, 0, depth));
      case RSUM, RMEAN -> reduction(op, n, child(n, 0, depth));
      default ->
          switch (op.linearOperands().length) {
            case 2 -> bilinear(n, child(n, 0, depth), child(n, 1, depth));
            case 1 -> linearInFirst(n, depth);
            default -> null;
          };
    };
  }

  /** 1/f: a constant's reciprocal, else the atom {@code reciprocal(f)}; null for zero. */
  private LinearForm reciprocal(LinearForm f) {
    if (f.isConstant()) {
      Rational c = f.constantValue();
      return c.isZero() ? null : LinearForm.constant(c.reciprocal());
    }
    return structural(new Atom(Op.RECIPROCAL.id(), new long[0], new int[] {table.form(f)}));
  }

  /**
   * A layout operator moves through sums, scaling and element-wise products alike: it applies to
   * each atom of each monomial (a constant stays the constant). Reshapes and broadcasts of reshapes
   * and broadcasts, and permutes of permutes, compose; identities vanish.
   */
  private LinearForm layout(Op op, ENode n, LinearForm in) {
    TypeInfo inType = g.data(n.child(0));
    if (identity(op, n.attrs(), inType.shape())) {
      return in;
    }
    long[] inShape = inType.shape();
    return in.map(
        m -> {
          LinearForm out = LinearForm.monomial(Monomial.ONE);
          for (int i = 0; i < m.degree() && out != null; i++) {
            out = out.times(aliased(layoutAtom(op, n.attrs(), m.atom(i), inShape)));
          }
          return out;
        });
  }

  /**
   * {@code op[attrs]} of an atom of shape {@code inShape} (each atom of a monomial has its form's
   * shape: element-wise products take operands of one shape).
   */
  private int layoutAtom(Op op, long[] attrs, int atom, long[] inShape) {
    Atom a = table.atomAt(atom);
    if ((op == Op.RESHAPE || op == Op.EXPAND) && a.op() == op.id()) {
      return composed(op, attrs, a.operands()[0], table.operandShape(atom));
    }
    if (op == Op.PERMUTE && a.op() == op.id()) {
      long[] dims = new long[attrs.length];
      for (int i = 0; i < dims.length; i++) {
        dims[i] = a.attrs()[(int) attrs[i]];
      }
      return composed(op, dims, a.operands()[0], table.operandShape(atom));
    }
    return table.layoutAtom(
        new Atom(op.id(), attrs, new int[] {table.form(LinearForm.atom(atom))}), inShape);
  }

  /**
   * {@code op[attrs]} of the one-atom form {@code operand}, whose shape is {@code operandShape}
   * (null when not known): the atom itself when an identity, whatever the atom is (a class, or a
   * product whose transpose is transposed back).
   */
  private int composed(Op op, long[] attrs, int operand, long[] operandShape) {
    int inner = table.formAt(operand).monomial(0).atom(0);
    Atom a = table.atomAt(inner);
    long[] shape = a.isClass() ? g.data(a.cls()).shape() : operandShape;
    if (identity(op, attrs, shape)) {
      return inner;
    }
    return table.layoutAtom(new Atom(op.id(), attrs, new int[] {operand}), shape);
  }

  private static boolean identity(Op op, long[] attrs, long[] shape) {
    if (shape == null) {
      return false;
    }
    return switch (op) {
      case RESHAPE, EXPAND -> Arrays.equals(attrs, shape);
      case PERMUTE -> {
        for (int i = 0; i < attrs.length; i++) {
          if (attrs[i] != i) {
            yield false;
          }
        }
        yield true;
      }
      case SLICE -> attrs[1] == 0 && attrs[2] == shape[(int) attrs[0]] && attrs[3] == 1;
      default -> false;
    };
  }

  /**
   * A sum over dims is linear: each monomial's sum is an atom, a constant's is the constant times
   * the number of elements summed. A mean is the sum divided by that number.
   */
  private LinearForm reduction(Op op, ENode n, LinearForm in) {
    long[] shape = g.data(n.child(0)).shape();
    if (shape == null) {
      return null;
    }
    long count = 1;
    for (int i = 1; i < n.attrCount(); i++) {
      if (i > 1 && n.attr(i) <= n.attr(i - 1)) {
        return null; // dims are sorted and distinct; anything else is not counted here
      }
      count = Math.multiplyExact(count, shape[(int) n.attr(i)]);
    }
    if (count == 0) {
      return null;
    }
    Rational size = Rational.of(count);
    boolean whole = n.attr(0) == 0 && n.attrCount() - 1 == shape.length;
    LinearForm sum =
        in.map(
            m -> {
              if (m.isOne()) {
                return LinearForm.constant(size);
              }
              if (whole && m.degree() == 1) {
                return wholeSum(m.atom(0), n.attrs());
              }
              return structural(
                  new Atom(
                      Op.RSUM.id(), n.attrs(), new int[] {table.form(LinearForm.monomial(m))}));
            });
    return sum == null || op == Op.RSUM ? sum : sum.times(size.reciprocal());
  }

  /**
   * The sum of every element of an atom: the same whatever their layout, so a reshape or permute of
   * an atom sums as the atom itself (a loss averaged over a [rows, 1] view of per-row losses).
   */
  private LinearForm wholeSum(int atom, long[] attrs) {
    Atom a = table.atomAt(atom);
    long[] operandShape = table.operandShape(atom);
    while ((a.op() == Op.RESHAPE.id() || a.op() == Op.PERMUTE.id()) && operandShape != null) {
      atom = table.formAt(a.operands()[0]).monomial(0).atom(0);
      attrs = new long[operandShape.length + 1];
      for (int i = 0; i < operandShape.length; i++) {
        attrs[i + 1] = i;
      }
      a = table.atomAt(atom);
      operandShape = table.operandShape(atom);
    }
    return structural(
        new Atom(
            Op.RSUM.id(), attrs, new int[] {table.form(LinearForm.monomial(Monomial.of(atom)))}));
  }

  /**
   * An operator linear in its first operand when the others are held fixed (the gradient of a
   * softmax or log-softmax given its output, a rotary embedding given its positions and table, a
   * pick, gather or embedding given its ids, an embedding's gradient given its ids): one atom per
   * monomial of the first operand, the others entering by their forms; no form when the first
   * operand has a constant term (whose shape a form does not record).
   */
  private LinearForm linearInFirst(ENode n, int depth) {
    LinearForm first = child(n, 0, depth);
    if (first.hasConstantTerm() || first.size() == 0) {
      return null;
    }
    int[] operands = new int[n.arity()];
    for (int i = 1; i < operands.length; i++) {
      operands[i] = form(n.child(i), depth + 1);
    }
    return first.map(
        m -> {
          int[] with = operands.clone();
          with[0] = table.form(LinearForm.monomial(m));
          return structural(new Atom(n.op(), n.attrs(), with));
        });
  }

  /**
   * The matrix product and the convolutions are linear in each operand: the products of monomials,
   * when neither operand has a constant term (whose shape a form does not record).
   */
  private LinearForm bilinear(ENode n, LinearForm a, LinearForm b) {
    if (a.hasConstantTerm()
        || b.hasConstantTerm()
        || a.size() == 0
        || b.size() == 0
        || a.size() * b.size() > LinearForm.MAX_TERMS) {
      return null;
    }
    return a.map(
        ma ->
            b.map(
                mb ->
                    structural(
                        new Atom(
                            n.op(),
                            n.attrs(),
                            new int[] {
                              table.form(LinearForm.monomial(ma)),
                              table.form(LinearForm.monomial(mb))
                            }))));
  }
}
