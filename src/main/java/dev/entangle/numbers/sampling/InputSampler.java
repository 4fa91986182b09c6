package dev.entangle.numbers.sampling;

import dev.entangle.core.CoreProgram;
import dev.entangle.core.Dtype;
import dev.entangle.core.IdRange;
import dev.entangle.core.OpTable;
import dev.entangle.core.TypeInfo;
import dev.entangle.core.numeric.Rounding;
import dev.entangle.core.numeric.Tensor;
import dev.entangle.core.numeric.Tolerance;
import dev.entangle.eval.BudgetExhausted;
import dev.entangle.eval.WorkBudget;
import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.graph.Node;
import dev.entangle.graph.NodeOp;
import dev.entangle.lower.Lowering;
import dev.entangle.lower.LoweringException;
import dev.entangle.lower.aten.AtenNormalizer;
import dev.entangle.refine.Failure;
import dev.entangle.relation.Expr;
import dev.entangle.relation.ExprPrinter;
import dev.entangle.relation.ExprShapes;
import dev.entangle.relation.RelationEntry;
import dev.entangle.relation.RelationFile;
import dev.entangle.relation.RelationValidator;
import dev.entangle.util.InputException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Draws inputs of G_s and G_d that satisfy an input relation. Every G_s tensor the relation names
 * gets a random value ({@link RandomValues}; integer inputs stay below what they index, see {@link
 * IndexBounds}), except the elements its expressions already fix through G_d tensors set by earlier
 * entries (tied tensors); then each expression is inverted to set the G_d tensors it names ({@link
 * RelationInverter}), and the equalities are propagated until they hold. G_s inputs the relation
 * does not name are drawn freely, as are the G_d inputs and elements nothing fixes. Inputs split
 * into the parts of a sum are not rounded to their dtype, so the parts add up exactly.
 */
public final class InputSampler {
  private final Graph gs;
  private final DistributedGraph gd;
  private final RelationFile relation;
  private final Map<String, Long> gsBounds;
  private final List<Map<String, Long>> gdBounds;

  /** The normalized expression of each entry, in file order. */
  private final List<Expr> expressions = new ArrayList<>();

  private final List<List<Expr>> equalities = new ArrayList<>();

  /**
   * A sampler for graphs that are not lowered yet (it lowers them).
   *
   * @throws InputException when the relation does not fit the graphs
   */
  public InputSampler(Graph gs, DistributedGraph gd, RelationFile relation, OpTable table) {
    this(gs, gd, relation, validated(gs, gd, relation, table), Lowering.distributed(gd, table));
  }

  private static CoreProgram validated(
      Graph gs, DistributedGraph gd, RelationFile relation, OpTable table) {
    RelationValidator.validate(gs, gd, relation);
    return Lowering.sequential(gs, table);
  }

  /**
   * A sampler for graphs already lowered into {@code gsp} and {@code gdp}, with a relation already
   * validated against them.
   */
  public InputSampler(
      Graph gs, DistributedGraph gd, RelationFile relation, CoreProgram gsp, CoreProgram gdp) {
    this.gs = gs;
    this.gd = gd;
    this.relation = relation;
    this.gsBounds = IndexBounds.of(gsp).get(0);
    this.gdBounds = IndexBounds.of(gdp);
    for (RelationEntry e : relation.relations()) {
      expressions.add(normalize(e.gd(), where(e)));
    }
    for (int g = 0; g < relation.equalities().size(); g++) {
      List<Expr> group = new ArrayList<>();
      for (Expr e : relation.equalities().get(g)) {
        group.add(normalize(e, equality(g)));
      }
      equalities.add(group);
    }
  }

  private Expr normalize(Expr e, String where) {
    return ExprShapes.normalize(e, t -> gd.rank(t.rank()).resolve(t.name()).type(), where);
  }

  private String where(RelationEntry e) {
    return relation.source() + ": " + e.where() + " (gs \"" + e.gs() + "\")";
  }

  private String equality(int g) {
    return relation.source() + ": equalities[" + g + "]";
  }

  /**
   * Draws inputs with {@code seed}, holding their elements in {@code budget}.
   *
   * @throws SamplingException when the relation cannot be met
   * @throws BudgetExhausted when the inputs do not fit the budget
   */
  public SampledInputs sample(long seed, WorkBudget budget) {
    RandomValues random = new RandomValues(seed);
    RelationInverter inverter = new RelationInverter(gd, random);
    Map<String, Tensor> gsValues = new LinkedHashMap<>();
    Map<String, List<Integer>> entriesOf = new LinkedHashMap<>();
    for (int i = 0; i < expressions.size(); i++) {
      String name = gs.resolve(relation.relations().get(i).gs()).name();
      entriesOf.computeIfAbsent(name, k -> new ArrayList<>()).add(i);
    }
    for (var e : entriesOf.entrySet()) {
      Node node = gs.node(e.getKey());
      IdRange stated = null;
      for (int i : e.getValue()) {
        IdRange r = relation.relations().get(i).range();
        stated = r == null ? stated : stated == null ? r : stated.intersect(r);
      }
      Partial value =
          drawn(
              node,
              within(stated, gsBounds.getOrDefault(node.name(), RandomValues.DEFAULT_INT_BOUND)),
              random,
              budget);
      for (int i : e.getValue()) {
        Partial fixed = inverter.current(expressions.get(i));
        for (int k = 0; k < value.numel(); k++) {
          if (fixed.known[k]) {
            value.values[k] = fixed.values[k];
          }
        }
      }
      gsValues.put(node.name(), value.toTensor());
      for (int i : e.getValue()) {
        inverter.assign(expressions.get(i), value, where(relation.relations().get(i)));
        propagate(inverter);
      }
    }
    for (Node n : gs.nodes()) {
      if (isInput(n) && !gsValues.containsKey(n.name())) {
        long bound = gsBounds.getOrDefault(n.name(), RandomValues.DEFAULT_INT_BOUND);
        gsValues.put(n.name(), drawn(n, within(null, bound), random, budget).toTensor());
      }
    }
    return new SampledInputs(seed, gsValues, gdValues(inverter, random, budget));
  }

  /** Every G_d input, and every G_d tensor the relation names, with its unfixed elements drawn. */
  private List<Map<String, Tensor>> gdValues(
      RelationInverter inverter, RandomValues random, WorkBudget budget) {
    List<Map<String, Tensor>> out = new ArrayList<>();
    for (int r = 0; r < gd.worldSize(); r++) {
      Map<String, Tensor> values = new LinkedHashMap<>();
      Map<String, Long> bounds = gdBounds.get(r);
      for (Node n : gd.rank(r).nodes()) {
        RelationInverter.Leaf leaf = new RelationInverter.Leaf(r, n.name());
        Partial p = inverter.leaves().get(leaf);
        if (p == null && !isInput(n)) {
          continue;
        }
        IdRange ids =
            RandomValues.below(bounds.getOrDefault(n.name(), RandomValues.DEFAULT_INT_BOUND));
        if (p == null) {
          p = inverter.partial(leaf);
        }
        if (!p.complete()) {
          budget.work(p.numel(), "drawing " + leaf.label());
          for (int k = 0; k < p.numel(); k++) {
            if (!p.known[k]) {
              p.values[k] = random.input(p.dtype, ids);
              p.known[k] = true;
            }
          }
          propagate(inverter);
        }
        budget.hold(p.numel(), "the input " + leaf.label());
        values.put(n.name(), p.toTensor());
      }
      out.add(values);
    }
    return out;
  }

  /** Makes the members of every equality agree, until nothing changes. */
  private void propagate(RelationInverter inverter) {
    boolean changed = true;
    while (changed) {
      changed = false;
      for (int g = 0; g < equalities.size(); g++) {
        List<Expr> group = equalities.get(g);
        Partial merged = null;
        int[] before = new int[group.size()];
        for (int j = 0; j < group.size(); j++) {
          Partial p = inverter.current(group.get(j));
          before[j] = p.knownCount();
          merged = merged == null ? copy(p) : union(merged, p, group.get(j), equality(g));
        }
        for (int j = 0; j < group.size(); j++) {
          if (before[j] < merged.knownCount()) {
            inverter.assign(group.get(j), merged, equality(g));
            changed = true;
          }
        }
      }
    }
  }

  private static Partial copy(Partial p) {
    Partial out = Partial.unknown(p.shape, p.dtype);
    System.arraycopy(p.values, 0, out.values, 0, p.numel());
    System.arraycopy(p.known, 0, out.known, 0, p.numel());
    return out;
  }

  private static Partial union(Partial into, Partial p, Expr member, String where) {
    int k = into.absorb(p, Tolerance.forDtype(p.dtype).scaledTo(Math.max(into.rms(), p.rms())));
    if (k >= 0) {
      throw new SamplingException(
          where
              + ": "
              + ExprPrinter.print(member)
              + " at "
              + Arrays.toString(Tensor.unflatten(p.shape, k))
              + " is "
              + p.values[k]
              + " but another member of the equality is "
              + into.values[k]
              + "; the relation entries fix them apart");
    }
    return into;
  }

  /**
   * The G_s inputs of ids that the relation states no range for ({@code "in_range"}), by node name,
   * each named as the relation names it, with the range their elements are drawn from: below what
   * they index.
   */
  public Map<String, Failure.DrawnRange> unstatedRanges() {
    Set<String> stated = new HashSet<>();
    Map<String, String> said = new HashMap<>();
    for (RelationEntry e : relation.relations()) {
      String node = gs.resolve(e.gs()).name();
      said.putIfAbsent(node, e.gs());
      if (e.range() != null) {
        stated.add(node);
      }
    }
    Map<String, Failure.DrawnRange> out = new TreeMap<>();
    for (var b : gsBounds.entrySet()) {
      Node n = gs.node(b.getKey());
      if (n != null && isInput(n) && !stated.contains(n.name())) {
        IdRange r = within(null, b.getValue());
        out.put(
            n.name(),
            new Failure.DrawnRange(said.getOrDefault(n.name(), n.name()), r.lo(), r.hi()));
      }
    }
    return out;
  }

  private static boolean isInput(Node n) {
    return n.op() == NodeOp.PLACEHOLDER || n.op() == NodeOp.GET_ATTR && n.meta().value() == null;
  }

  /**
   * Where an integer input's elements are drawn: in the range the relation states, below the bound
   * its lookups need when that leaves any value; else in [0, bound).
   */
  private static IdRange within(IdRange stated, long bound) {
    IdRange lookups = RandomValues.below(bound);
    if (stated == null) {
      return lookups;
    }
    IdRange both = stated.intersect(new IdRange(Math.min(stated.lo(), 0), lookups.hi()));
    return both != null ? both : stated;
  }

  private static Partial drawn(Node n, IdRange ids, RandomValues random, WorkBudget budget) {
    if (n.type() == null) {
      throw new SamplingException(
          "the input " + n.name() + " has no tensor type to draw a value of");
    }
    TypeInfo type;
    try {
      type = AtenNormalizer.typeOf(n.type(), n);
    } catch (LoweringException e) {
      throw new SamplingException("the input " + n.name() + ": " + e.getMessage());
    }
    if (!Rounding.isSupported(type.dtype())) {
      throw new SamplingException(
          "the input "
              + n.name()
              + " is "
              + Dtype.name(type.dtype())
              + "; the evaluator has numbers for float, int and bool dtypes only");
    }
    long count = Tensor.numel(type.shape());
    budget.hold(count, "the input " + n.name());
    budget.work(count, "drawing the input " + n.name());
    Partial p = Partial.unknown(type.shape(), type.dtype());
    for (int k = 0; k < p.numel(); k++) {
      p.values[k] = random.input(type.dtype(), ids);
      p.known[k] = true;
    }
    return p;
  }
}
