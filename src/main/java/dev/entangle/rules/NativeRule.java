package dev.entangle.rules;

import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.Applier.Unions;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.Rewrite;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A lemma whose left side is a variable number of existing terms, which the pattern language cannot
 * state; written in Java, listed in {@link #REGISTRY}, and enabled from a lemma file with {@code
 * (native NAME)}. Like every lemma it is a rewrite ({@link #rewrite}): its search finds matches, of
 * type {@code M}, on the clean e-graph and stops at the deadline; its application of a match adds
 * the terms the match needs and asks for unions, after every rule has searched. It only adds
 * equalities.
 *
 * @param <M> what one match holds (classes and attributes read by the search)
 */
public interface NativeRule<M> {
  String name();

  /** One-line statement of the lemma. */
  String doc();

  /** Receives a search's matches, in the order found. */
  @FunctionalInterface
  interface Found<M> {
    void match(M match);
  }

  /**
   * Reports this lemma's matches on a clean e-graph to {@code found}, in a fixed order, without
   * changing the e-graph; polls {@code deadline} as it goes (which throws {@link
   * dev.entangle.egraph.DeadlinePassed} once past). The search ends early when its receiver has
   * seen enough.
   */
  void search(EGraph<TypeInfo> g, SearchDeadline deadline, Found<M> found);

  /**
   * Whether each search computes a form of every class (a decision procedure), run only where the
   * other lemmas did not suffice ({@link dev.entangle.egraph.Searcher#wholeGraph}).
   */
  default boolean wholeGraph() {
    return false;
  }

  /** Applies one match: adds the terms it needs and reports the classes to make equal. */
  void apply(EGraph<TypeInfo> g, M match, Unions unions);

  /** This lemma as a rewrite for the {@link dev.entangle.egraph.Runner}. */
  default Rewrite<TypeInfo> rewrite() {
    return NativeRewrite.of(this);
  }

  /** Every native lemma, by name. */
  Map<String, NativeRule<?>> REGISTRY =
      Stream.<NativeRule<?>>of(
              new SliceTiling(),
              RangeTilings.aranges(),
              RangeTilings.masks(),
              new RangeMaskJoin(),
              new LogSoftmaxShards(),
              new SliceOfConcat(),
              new ConvSplitSpatial(),
              new ConcatParts(),
              new TensorConcatParts(),
              RangeTilings.gradients(),
              new ExpandTiling(),
              new SumnCommonFactor(),
              new ConstantFactorOut(),
              new ConcatRegroup(),
              new ConcatOfSums(),
              new SumOfConcats(),
              new SumnOfReshapes(),
              new ReshapeBack(),
              new dev.entangle.rules.linear.LinearForms(),
              new dev.entangle.rules.layout.BlockMapUnions())
          .collect(Collectors.toUnmodifiableMap(NativeRule::name, r -> r));
}
