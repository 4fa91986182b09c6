package dev.entangle.egraph;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * E-matching: finds every way a pattern matches the classes of a clean e-graph, backtracking
 * through all nodes of each class at every level of the pattern. A pattern rooted at an operator
 * only visits the classes holding that operator. Results are deduplicated and come in a fixed order
 * (ascending class id, then node order).
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
    int[] candidates =
        compiled.rootOp < 0 ? g.classIds().toArray() : g.classesWithOp(compiled.rootOp);
    for (int c : candidates) {
      if (!s.matchRoot(c)) {
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
      throw new IllegalStateException(
          "the e-graph has pending unions: call rebuild() before searching");
    }
  }

  /** The mutable state of one search: registers, attribute bindings and results. */
  private final class Search {
    final EGraph<?> g;
    final int limit;
    final List<Match> results = new ArrayList<>();
    final Set<Subst> seen = new HashSet<>();
    final CompiledPattern.Instr[] program = compiled.program;
    final int[] regs;
    final long[] attrBind;
    final boolean[] attrBound;
    final IntList trail = new IntList();
    int rootClass;

    Search(EGraph<?> g, int limit) {
      this.g = g;
      this.limit = limit;
      this.regs = new int[compiled.registerCount];
      this.attrBind = new long[compiled.attrNames.length];
      this.attrBound = new boolean[compiled.attrNames.length];
    }

    /** Matches at one class; false when the limit is reached. */
    boolean matchRoot(int classId) {
      rootClass = classId;
      regs[0] = classId;
      if (!seen.isEmpty()) {
        seen.clear();
      }
      return run(0);
    }

    /** Runs the program from {@code pc}, backtracking over nodes; false stops the search. */
    private boolean run(int pc) {
      if (pc == program.length) {
        return record();
      }
      CompiledPattern.Instr in = program[pc];
      if (!in.isBind()) {
        return regs[in.reg] != regs[in.other] || run(pc + 1);
      }
      List<ENode> nodes = g.classNodes(regs[in.reg]);
      int[] out = in.out;
      for (int n = 0; n < nodes.size(); n++) {
        ENode node = nodes.get(n);
        if (node.op != in.op
            || node.children.length != out.length
            || node.attrs.length != in.attrKinds.length) {
          continue;
        }
        int mark = trail.size();
        if (bindAttrs(in, node)) {
          for (int i = 0; i < out.length; i++) {
            regs[out[i]] = node.children[i];
          }
          if (!run(pc + 1)) {
            unbindTo(mark);
            return false;
          }
        }
        unbindTo(mark);
      }
      return true;
    }

    private boolean record() {
      int[] cls = new int[compiled.varRegister.length];
      for (int i = 0; i < cls.length; i++) {
        cls[i] = regs[compiled.varRegister[i]];
      }
      Subst s = new Subst(compiled.clsNames, cls, compiled.attrNames, attrBind.clone());
      if (!compiled.mayRepeat || seen.add(s)) {
        results.add(new Match(rootClass, s));
      }
      return results.size() < limit;
    }

    /** Checks literals and binds attribute variables (recorded on the trail); false on mismatch. */
    private boolean bindAttrs(CompiledPattern.Instr in, ENode node) {
      for (int i = 0; i < in.attrKinds.length; i++) {
        long v = node.attrs[i];
        switch (in.attrKinds[i]) {
          case CompiledPattern.LIT:
            if (v != in.attrArgs[i]) {
              return false;
            }
            break;
          case CompiledPattern.VAR:
            int slot = (int) in.attrArgs[i];
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
        attrBound[trail.last()] = false;
        trail.removeLast();
      }
    }
  }
}
