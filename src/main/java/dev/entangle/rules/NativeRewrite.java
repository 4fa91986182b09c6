package dev.entangle.rules;

import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.Applier;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.Rewrite;
import dev.entangle.egraph.Searcher;

/**
 * A {@link NativeRule} as a {@link Rewrite}: its searcher hands the rule's matches to the runner
 * (with no root class: a native match names its own classes) and ends the rule's search when the
 * runner has taken enough; its applier hands each match back to the rule.
 */
final class NativeRewrite {
  private NativeRewrite() {}

  static <M> Rewrite<TypeInfo> of(NativeRule<M> rule) {
    return new Rewrite<>(rule.name(), new Search<>(rule), new Apply<>(rule));
  }

  /** Thrown through a rule's search when the runner has taken enough of its matches. */
  private static final class Enough extends RuntimeException {
    private static final long serialVersionUID = 1L;
    static final Enough INSTANCE = new Enough();

    private Enough() {
      super("enough matches", null, false, false);
    }
  }

  private static final class Search<M> implements Searcher<TypeInfo> {
    private final NativeRule<M> rule;

    Search(NativeRule<M> rule) {
      this.rule = rule;
    }

    @Override
    public boolean wholeGraph() {
      return rule.wholeGraph();
    }

    @Override
    public void search(EGraph<TypeInfo> g, long deadline, MatchSink sink) {
      try {
        rule.search(g, new SearchDeadline(deadline), new Handing<>(sink));
      } catch (Enough e) {
        // the runner has taken as many matches as it will
      }
    }
  }

  /** Hands each match to the runner's sink; ends the search when the sink refuses one. */
  private static final class Handing<M> implements NativeRule.Found<M> {
    private final Searcher.MatchSink sink;

    Handing(Searcher.MatchSink sink) {
      this.sink = sink;
    }

    @Override
    public void match(M match) {
      if (!sink.match(-1, match)) {
        throw Enough.INSTANCE;
      }
    }
  }

  private static final class Apply<M> implements Applier<TypeInfo> {
    private final NativeRule<M> rule;

    Apply(NativeRule<M> rule) {
      this.rule = rule;
    }

    /** The runner hands a rewrite's applier only the matches its own searcher found. */
    @Override
    @SuppressWarnings("unchecked")
    public void apply(EGraph<TypeInfo> g, int eclass, Object match, Unions unions) {
      rule.apply(g, (M) match, unions);
    }
  }
}
