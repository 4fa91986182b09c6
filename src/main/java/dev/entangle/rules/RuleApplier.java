package dev.entangle.rules;

import dev.entangle.core.Op;
import dev.entangle.core.ShapeException;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Checks a match's conditions, computes its lets and builds the right side. For an {@code
 * :if-exists} rule nothing is added: the right side must already be in the e-graph; for an {@code
 * :if-parts-exist} rule only its root is.
 */
final class RuleApplier {
  private final EGraph<TypeInfo> g;
  private final Evaluator eval;

  RuleApplier(EGraph<TypeInfo> g) {
    this.g = g;
    this.eval = new Evaluator(g);
  }

  /**
   * The class equal to the matched one, or -1 when a condition fails or (for {@code :if-exists})
   * the right side is not present.
   */
  int apply(Rule r, Object[] b) {
    try {
      for (int i = 0; i < r.letSlots.length; i++) {
        b[r.letSlots[i]] = eval.eval(r.letExprs[i], b, -1);
      }
      for (Calc c : r.conditions) {
        if (!eval.truth(c, b)) {
          return -1;
        }
      }
      return build(r.rhs, b, -1, r.ifExists, r.ifExists || r.partsExist);
    } catch (NoMatch | ArithmeticException e) {
      return -1;
    }
  }

  /**
   * Builds a template's instance; {@code lookupOnly} for this node, {@code lookupBelow} for the
   * nodes under it: a lookup gives -1 when the node is absent.
   */
  private int build(Template t, Object[] b, int index, boolean lookupOnly, boolean lookupBelow) {
    if (t instanceof Template.Var v) {
      Object x = b[v.slot()];
      if (x instanceof int[] cl) {
        if (index < 0 || index >= cl.length) {
          throw NoMatch.INSTANCE;
        }
        return cl[index];
      }
      return (Integer) x;
    }
    Template.Node n = (Template.Node) t;
    int op = n.op();
    long[] attrs;
    if (n.opSlot() >= 0) {
      OpBinding ob = (OpBinding) b[n.opSlot()];
      op = ob.op();
      attrs = n.attrs() == null ? ob.attrs() : attrs(n.attrs(), b, index);
    } else {
      attrs = attrs(n.attrs(), b, index);
    }
    List<Integer> kids = new ArrayList<>(n.children().length);
    for (Template c : n.children()) {
      if (c instanceof Template.ListVar lv) {
        for (int x : (int[]) b[lv.slot()]) {
          kids.add(x);
        }
      } else if (c instanceof Template.Map m) {
        int len = -1;
        for (int s : m.listSlots()) {
          int l = ((int[]) b[s]).length;
          if (len >= 0 && l != len) {
            throw NoMatch.INSTANCE;
          }
          len = l;
        }
        for (int i = 0; i < len; i++) {
          int x = build(m.body(), b, i, lookupBelow, lookupBelow);
          if (x < 0) {
            return -1;
          }
          kids.add(x);
        }
      } else {
        int x = build(c, b, index, lookupBelow, lookupBelow);
        if (x < 0) {
          return -1;
        }
        kids.add(x);
      }
    }
    Op core = Op.of(op);
    if (kids.size() == 1 && core != null && core.isIdentityOfOne()) {
      return kids.get(0);
    }
    int[] children = new int[kids.size()];
    for (int i = 0; i < children.length; i++) {
      children[i] = kids.get(i);
    }
    ENode node = new ENode(op, attrs, children);
    if (lookupOnly) {
      return g.lookup(node);
    }
    try {
      return g.add(node);
    } catch (ShapeException e) {
      // the right side is not well-formed for this match (a lemma applied outside its domain)
      throw NoMatch.INSTANCE;
    }
  }

  private long[] attrs(Template.AttrTemplate[] ts, Object[] b, int index) {
    long[] out = new long[ts.length];
    int n = 0;
    for (Template.AttrTemplate t : ts) {
      if (t instanceof Template.AttrTemplate.One one) {
        out[n++] = eval.integer(one.value(), b, index);
      } else {
        long[] l = eval.list(((Template.AttrTemplate.Splice) t).list(), b, index);
        long[] grown = new long[out.length + l.length - 1];
        System.arraycopy(out, 0, grown, 0, n);
        System.arraycopy(l, 0, grown, n, l.length);
        out = grown;
        n += l.length;
      }
    }
    return n == out.length ? out : Arrays.copyOf(out, n);
  }
}
