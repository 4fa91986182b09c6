package dev.entangle.rules;

import dev.entangle.egraph.DeadlinePassed;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import dev.entangle.egraph.NodeRange;
import dev.entangle.egraph.Searcher.MatchSink;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.function.Consumer;

/**
 * E-matching of a rule's left side, including list variables (a run of children of any length) and
 * operator variables. Bindings are arrays indexed by the rule's slots. One array serves a whole
 * search at a class: a step binds slots in place and unbinds them when the rest of the match
 * returns, and each match is handed on as a copy.
 */
final class RuleMatcher {
  private final EGraph<?> g;
  private final long deadlineNanos;
  private int steps;

  /** Thrown by the search when its sink has seen enough matches; ends the search quietly. */
  private static final class Enough extends RuntimeException {
    private static final long serialVersionUID = 1L;
    static final Enough INSTANCE = new Enough();

    private Enough() {
      super("enough matches", null, false, false);
    }
  }

  RuleMatcher(EGraph<?> g) {
    this(g, Long.MAX_VALUE);
  }

  /**
   * A matcher whose searches throw {@link DeadlinePassed} once {@code System.nanoTime()} passes the
   * deadline.
   */
  RuleMatcher(EGraph<?> g, long deadlineNanos) {
    this.g = g;
    this.deadlineNanos = deadlineNanos;
  }

  /**
   * Calls {@code out} with (class, bindings) for each match of {@code rule} anywhere, until it
   * returns false.
   */
  void search(Rule rule, MatchSink out) {
    searchRoots(rule, null, out);
  }

  /**
   * Calls {@code out} for each match of {@code rule} rooted at one of {@code roots} (canonical;
   * null for any), in the order of {@link #search}, until it returns false.
   */
  void searchRoots(Rule rule, BitSet roots, MatchSink out) {
    Pat.Node root = rule.lhs;
    try {
      if (root.op() >= 0) {
        searchAmong(rule, g.classesWithOp(root.op()), roots, out);
      } else {
        for (int op : root.opChoices()) {
          searchAmong(rule, g.classesWithOp(op), roots, out);
        }
      }
    } catch (Enough e) {
      // the sink has seen enough
    }
  }

  private void searchAmong(Rule rule, int[] classes, BitSet roots, MatchSink out) {
    for (int cls : classes) {
      if (roots == null || roots.get(cls)) {
        searchAt(rule, cls, out);
      }
    }
  }

  /** Matches of the rule at one class, until {@code out} returns false. */
  void searchClass(Rule rule, int cls, MatchSink out) {
    try {
      searchAt(rule, cls, out);
    } catch (Enough e) {
      // the sink has seen enough
    }
  }

  private void searchAt(Rule rule, int cls, MatchSink out) {
    int c = g.find(cls);
    matchClass(rule.lhs, c, new Object[rule.slotCount()], new Report(c, out));
  }

  /*
   * The continuations below are classes, not lambdas: one is made for every class searched and
   * every child matched, and a capturing lambda is made through a method handle, which the client
   * compiler of a short check does not inline.
   */

  /** The end of a match at {@code cls}: hands a copy of the bindings to the sink. */
  private record Report(int cls, MatchSink out) implements Consumer<Object[]> {
    @Override
    public void accept(Object[] b) {
      if (!out.match(cls, b.clone())) {
        throw Enough.INSTANCE;
      }
    }
  }

  /** After child {@code ci} of {@code n} matched pattern {@code pi}: matches the children after. */
  private final class NextChildren implements Consumer<Object[]> {
    private final Pat[] pats;
    private final int pi;
    private final ENode n;
    private final int ci;
    private final Consumer<Object[]> k;

    NextChildren(Pat[] pats, int pi, ENode n, int ci, Consumer<Object[]> k) {
      this.pats = pats;
      this.pi = pi;
      this.n = n;
      this.ci = ci;
      this.k = k;
    }

    @Override
    public void accept(Object[] b) {
      matchChildren(pats, pi + 1, n, ci + 1, b, k);
    }
  }

  private void matchClass(Pat p, int cls, Object[] b, Consumer<Object[]> k) {
    if (p instanceof Pat.Var v) {
      Object bound = b[v.slot()];
      if (bound == null) {
        b[v.slot()] = g.find(cls);
        try {
          k.accept(b);
        } finally {
          b[v.slot()] = null;
        }
      } else if (g.find((Integer) bound) == g.find(cls)) {
        k.accept(b);
      }
      return;
    }
    Pat.Node pn = (Pat.Node) p;
    if (pn.op() >= 0) {
      NodeRange r = g.nodes(cls, pn.op());
      for (int i = r.from(); i < r.to(); i++) {
        matchNode(pn, r.nodes()[i], b, k);
      }
      return;
    }
    List<ENode> nodes = g.nodes(cls);
    for (int i = 0; i < nodes.size(); i++) {
      ENode n = nodes.get(i);
      if (opMatches(pn, n)) {
        matchNode(pn, n, b, k);
      }
    }
  }

  /** Matches a node pattern whose operator matches at one node. */
  private void matchNode(Pat.Node pn, ENode n, Object[] b, Consumer<Object[]> k) {
    if ((++steps & 0x3fff) == 0
        && deadlineNanos != Long.MAX_VALUE
        && System.nanoTime() > deadlineNanos) {
      throw new DeadlinePassed();
    }
    long bound = matchAttrs(pn, n, b);
    if (bound == NO_MATCH) {
      return;
    }
    try {
      if (pn.opSlot() >= 0) {
        if (b[pn.opSlot()] instanceof OpBinding ob) {
          if (ob.op() != n.op() || !Arrays.equals(ob.attrs(), n.attrs())) {
            return;
          }
        } else {
          b[pn.opSlot()] = new OpBinding(n.op(), n.attrs());
          bound |= 1L << pn.opSlot();
        }
      }
      matchChildren(pn.children(), 0, n, 0, b, k);
    } finally {
      unbind(b, bound);
    }
  }

  /** What {@link #matchAttrs} returns when the attributes do not match. */
  private static final long NO_MATCH = -1L;

  /** Clears the slots whose bits are set in {@code slots}. */
  private static void unbind(Object[] b, long slots) {
    for (long rest = slots; rest != 0; rest &= rest - 1) {
      b[Long.numberOfTrailingZeros(rest)] = null;
    }
  }

  private static boolean opMatches(Pat.Node pn, ENode n) {
    if (pn.op() >= 0) {
      return n.op() == pn.op();
    }
    for (int op : pn.opChoices()) {
      if (op == n.op()) {
        return true;
      }
    }
    return false;
  }

  /**
   * Binds the attribute variables of {@code pn} to {@code n}'s attributes in place: the slots it
   * bound (a bit each), or {@link #NO_MATCH} with nothing bound when they do not match.
   */
  private static long matchAttrs(Pat.Node pn, ENode n, Object[] b) {
    Pat.AttrPat[] ap = pn.attrs();
    if (ap == null) {
      return 0;
    }
    int count = n.attrCount();
    boolean rest = ap.length > 0 && ap[ap.length - 1] instanceof Pat.AttrPat.Rest;
    int fixed = rest ? ap.length - 1 : ap.length;
    if (rest ? count < fixed : count != fixed) {
      return NO_MATCH;
    }
    long bound = 0;
    for (int i = 0; i < fixed; i++) {
      long v = n.attr(i);
      Pat.AttrPat a = ap[i];
      if (a instanceof Pat.AttrPat.Lit l) {
        if (l.value() != v) {
          unbind(b, bound);
          return NO_MATCH;
        }
      } else if (a instanceof Pat.AttrPat.Var var) {
        Object was = b[var.slot()];
        if (was == null) {
          b[var.slot()] = v;
          bound |= 1L << var.slot();
        } else if ((Long) was != v) {
          unbind(b, bound);
          return NO_MATCH;
        }
      }
    }
    if (rest) {
      long[] tail = new long[count - fixed];
      for (int i = 0; i < tail.length; i++) {
        tail[i] = n.attr(fixed + i);
      }
      int slot = ((Pat.AttrPat.Rest) ap[fixed]).slot();
      if (b[slot] != null) {
        if (!Arrays.equals((long[]) b[slot], tail)) {
          unbind(b, bound);
          return NO_MATCH;
        }
      } else {
        b[slot] = tail;
        bound |= 1L << slot;
      }
    }
    return bound;
  }

  private void matchChildren(
      Pat[] pats, int pi, ENode n, int ci, Object[] b, Consumer<Object[]> k) {
    if (pi == pats.length) {
      if (ci == n.arity()) {
        k.accept(b);
      }
      return;
    }
    Pat p = pats[pi];
    if (p instanceof Pat.ListVar lv) {
      int fixedAfter = 0;
      boolean listAfter = false;
      for (int j = pi + 1; j < pats.length; j++) {
        if (pats[j] instanceof Pat.ListVar) {
          listAfter = true;
        } else {
          fixedAfter++;
        }
      }
      int most = n.arity() - ci - fixedAfter;
      for (int take = listAfter ? 0 : most; take <= most; take++) {
        if (take < 0) {
          return;
        }
        int[] run = new int[take];
        for (int i = 0; i < take; i++) {
          run[i] = g.find(n.child(ci + i));
        }
        Object was = b[lv.slot()];
        b[lv.slot()] = run;
        try {
          matchChildren(pats, pi + 1, n, ci + take, b, k);
        } finally {
          b[lv.slot()] = was;
        }
      }
      return;
    }
    if (ci >= n.arity()) {
      return;
    }
    matchClass(p, n.child(ci), b, new NextChildren(pats, pi, n, ci, k));
  }
}
