package dev.entangle.rules;

import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.RootedSearcher;
import java.util.BitSet;

/**
 * Searches a rule's left side, everywhere or from given root classes. Its conditions read the
 * classes the pattern binds (and, for a function such as {@code nonneg}, classes a few steps below
 * them: {@link Fn#readsBelow}), so it is a {@link RootedSearcher} of that height; a constrained
 * rule ({@code :if-exists}, {@code :if-parts-exist}) also reaches as deep as its right side, whose
 * nodes must exist for it to apply.
 */
final class RuleSearcher implements RootedSearcher<TypeInfo> {
  private final Rule rule;
  private final int height;
  private final int reach;

  RuleSearcher(Rule rule) {
    this.rule = rule;
    this.height = height(rule.lhs) + readsBelow(rule);
    this.reach = rule.ifExists || rule.partsExist ? height(rule.rhs) : 0;
  }

  @Override
  public int reach() {
    return reach;
  }

  @Override
  public void search(EGraph<TypeInfo> g, long deadline, MatchSink sink) {
    new RuleMatcher(g, deadline).search(rule, sink);
  }

  @Override
  public int height() {
    return height;
  }

  @Override
  public void searchRoots(EGraph<TypeInfo> g, BitSet roots, long deadline, MatchSink sink) {
    new RuleMatcher(g, deadline).searchRoots(rule, roots, sink);
  }

  /** How far below the classes they are given the rule's conditions and lets read nodes. */
  private static int readsBelow(Rule rule) {
    int most = 0;
    for (Calc[] calcs : new Calc[][] {rule.conditions, rule.letExprs}) {
      for (Calc c : calcs) {
        most = Math.max(most, readsBelow(c));
      }
    }
    return most;
  }

  private static int readsBelow(Calc c) {
    if (!(c instanceof Calc.Apply a)) {
      return 0;
    }
    int most = a.fn().readsBelow();
    for (Calc arg : a.args()) {
      most = Math.max(most, readsBelow(arg));
    }
    return most;
  }

  /** How many child steps below its top node a right side's deepest bound class lies. */
  static int height(Template t) {
    if (t instanceof Template.Map m) {
      return height(m.body());
    }
    if (!(t instanceof Template.Node n)) {
      return 0;
    }
    int h = 0;
    for (Template c : n.children()) {
      h = Math.max(h, 1 + height(c));
    }
    return h;
  }

  /** How many child steps below its root a pattern's deepest class lies. */
  static int height(Pat p) {
    if (!(p instanceof Pat.Node n)) {
      return 0;
    }
    int h = 0;
    for (Pat c : n.children()) {
      h = Math.max(h, 1 + height(c));
    }
    return h;
  }
}
