package dev.entangle.rules;

import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.Applier.Unions;
import dev.entangle.egraph.EGraph;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A lemma whose left side is a variable number of existing terms, which the pattern language cannot
 * state; written in Java, listed in {@link #REGISTRY}, and enabled from a lemma file with {@code
 * (native NAME)}. Like every lemma it only adds equalities; it finds them on the clean e-graph and
 * applies them after every rule has searched.
 */
public interface NativeRule {
  String name();

  /** One-line statement of the lemma. */
  String doc();

  /**
   * Finds this lemma's instances on a clean e-graph; returns actions that, when run, add terms and
   * report pairs of classes to union.
   */
  List<Consumer<Unions>> search(EGraph<TypeInfo> g);

  /** Every native lemma, by name. */
  Map<String, NativeRule> REGISTRY =
      Stream.of(
              new SliceTiling(),
              new RangeTiling(),
              new SliceOfConcat(),
              new ConcatParts(),
              new GradRangeTiling(),
              new ExpandTiling(),
              new SumnCommonFactor(),
              new ConcatRegroup(),
              new SumnOfReshapes(),
              new ReshapeBack())
          .collect(Collectors.toUnmodifiableMap(NativeRule::name, r -> r));
}
