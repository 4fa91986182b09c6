package dev.entangle.egraph;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * E-matching: finds every way a pattern matches the classes of a clean e-graph, backtracking
 * through all nodes of each class at every level of the pattern. A pattern rooted at an operator
 * only visits the classes holding that operator. Results are deduplicated and come in a fixed
 * order (ascending class id, then node order).
 *
 * <p>Compile once with {@link #Matcher(Pattern)} and reuse; the static methods compile each call.
 */
public final class Matcher {
  private final CompiledPattern compiled;

  public Matcher(Pattern pattern) {
    this.compiled = new CompiledPattern(pattern);
  }

  public Pattern pattern() {
    return compiled.pattern;
  }

  /** See {@link #search(EGraph, int)}. */
  public static List<Match> search(EGraph<?> g, Pattern p, int limit) {
    return new Matcher(p).search(g, limit);
  }

  /** See {@link #searchClass(EGraph, int)}. */
  public static List<Match> searchClass(EGraph<?> g, Pattern p, int classId) {
    return new Matcher(p).searchClass(g, classId);
  }

  /**
   * All matches over the whole e-graph, at most {@code limit} of them.
   *
   * @throws IllegalStateException when the e-graph is not clean (call {@link EGraph#rebuild})
   */
  public List<Match> search(EGraph<?> g, int limit) {
    if (limit < 0) {
      throw new IllegalArgumentException("negative match limit " + limit);
    }
    checkClean(g);
    Search s = new Search(g, limit);
    if (limit == 0) {
      return s.results;
    }
    CompiledPattern.Code root = compiled.root;
    int[] candidates;
    int count;
    if (root.isVar()) {
      candidates = g.classIds().toArray();
      count = candidates.length;
    } else {
      IntList index = g.opIndex(root.op);
      if (index == null) {
        return s.results;
      }
      candidates = index.toArray();
      count = candidates.length;
    }
    for (int i = 0; i < count; i++) {
      if (!s.matchRoot(candidates[i])) {
        break;
      }
    }
    return s.results;
  }

  /**
   * All matches rooted at {@code classId}'s class.
   *
   * @throws IllegalStateException when the e-graph is not clean (call {@link EGraph#rebuild})
   */
  public List<Match> searchClass(EGraph<?> g, int classId) {
    checkClean(g);
    Search s = new Search(g, Integer.MAX_VALUE);
    s.matchRoot(g.find(classId));
    return s.results;
  }

  private static void checkClean(EGraph<?> g) {
    if (!g.isClean()) {
      throw new IllegalStateException("the e-graph has pending unions: call rebuild() before searching");
    }
  }

  /** Continuation of the backtracking search; returns false to stop the whole search. */
  private interface Next {
    boolean run();
  }

  /** The mutable state of one search. */
  private final class Search {
    final EGraph<?> g;
    final int limit;
    final List<Match> results = new ArrayList<>();
    final Set<Subst> seen = new HashSet<>();
    final int[] clsBind;
    final long[] attrBind;
    final boolean[] attrBound;
    final IntList trail = new IntList();
    int rootClass;

    Search(EGraph<?> g, int limit) {
      this.g = g;
      this.limit = limit;
      this.clsBind = new int[compiled.clsNames.length];
      this.attrBind = new long[compiled.attrNames.length];
      this.attrBound = new boolean[compiled.attrNames.length];
      Arrays.fill(clsBind, -1);
    }

    boolean matchRoot(int classId) {
      rootClass = classId;
      seen.clear();
      return match(compiled.root, classId, this::record);
    }

    private boolean record() {
      Subst s =
          new Subst(compiled.clsNames, clsBind.clone(), compiled.attrNames, attrBind.clone());
      if (seen.add(s)) {
        results.add(new Match(rootClass, s));
      }
      return results.size() < limit;
    }

    private boolean match(CompiledPattern.Code p, int cls, Next k) {
      if (p.isVar()) {
        int bound = clsBind[p.slot];
        if (bound < 0) {
          clsBind[p.slot] = cls;
          boolean go = k.run();
          clsBind[p.slot] = -1;
          return go;
        }
        return bound != cls || k.run();
      }
      List<ENode> nodes = g.classNodes(cls);
      for (int n = 0; n < nodes.size(); n++) {
        ENode node = nodes.get(n);
        if (node.op != p.op
            || node.attrs.length != p.attrKinds.length
            || node.children.length != p.children.length) {
          continue;
        }
        int mark = trail.size();
        boolean go = !bindAttrs(p, node) || matchChildren(p, node, 0, k);
        unbindTo(mark);
        if (!go) {
          return false;
        }
      }
      return true;
    }

    private boolean matchChildren(CompiledPattern.Code p, ENode node, int i, Next k) {
      if (i == p.children.length) {
        return k.run();
      }
      return match(p.children[i], node.children[i], () -> matchChildren(p, node, i + 1, k));
    }

    /** Checks literals and binds attribute variables (recorded on the trail); false on mismatch. */
    private boolean bindAttrs(CompiledPattern.Code p, ENode node) {
      for (int i = 0; i < p.attrKinds.length; i++) {
        long v = node.attrs[i];
        switch (p.attrKinds[i]) {
          case CompiledPattern.LIT:
            if (v != p.attrArgs[i]) {
              return false;
            }
            break;
          case CompiledPattern.VAR:
            int slot = (int) p.attrArgs[i];
            if (attrBound[slot]) {
              if (attrBind[slot] != v) {
                return false;
              }
            } else {
              attrBound[slot] = true;
              attrBind[slot] = v;
              trail.add(slot);
            }
            break;
          default:
            break;
        }
      }
      return true;
    }

    private void unbindTo(int mark) {
      while (trail.size() > mark) {
        int slot = trail.last();
        attrBound[slot] = false;
        trail.removeLast();
      }
    }
  }
}
