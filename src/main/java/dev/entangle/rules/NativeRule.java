package dev.entangle.rules;

import dev.entangle.egraph.EGraph;
import dev.entangle.ops.TypeInfo;
import java.util.List;
import java.util.Map;
import java.util.function.IntBinaryOperator;

/**
 * A lemma whose left side is a variable number of existing terms, which the pattern language
 * cannot state; written in Java, listed in {@link #REGISTRY}, and enabled from a lemma file with
 * {@code (native NAME)}. Like every lemma it only adds equalities; it finds them on the clean
 * e-graph and applies them after every rule has searched.
 */
public interface NativeRule {
  String name();

  /** One-line statement of the lemma. */
  String doc();

  /**
   * Finds this lemma's instances on a clean e-graph; returns actions that, when run, add terms and
   * report pairs of classes to union.
   */
  List<java.util.function.Consumer<IntBinaryOperator>> search(EGraph<TypeInfo> g);

  /** Every native lemma, by name. */
  Map<String, NativeRule> REGISTRY =
      Map.of(SliceTiling.NAME, new SliceTiling(), RangeTiling.NAME, new RangeTiling(),
          SliceOfConcat.NAME, new SliceOfConcat(), ConcatParts.NAME, new ConcatParts(),
          GradRangeTiling.NAME, new GradRangeTiling(), SumnCommonFactor.NAME, new SumnCommonFactor(),
          ConcatRegroup.NAME, new ConcatRegroup(), SumnOfReshapes.NAME, new SumnOfReshapes(),
          ReshapeBack.NAME, new ReshapeBack());
}
