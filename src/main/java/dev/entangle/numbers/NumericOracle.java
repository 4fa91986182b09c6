package dev.entangle.numbers;

import dev.entangle.core.CoreOp;
import dev.entangle.core.CoreProgram;
import dev.entangle.core.CoreTerm;
import dev.entangle.core.CoreValue;
import dev.entangle.core.Op;
import dev.entangle.core.ValueKind;
import dev.entangle.core.numeric.EvalException;
import dev.entangle.core.numeric.Tensor;
import dev.entangle.eval.BudgetExhausted;
import dev.entangle.eval.Difference;
import dev.entangle.eval.Evaluation;
import dev.entangle.eval.GdValue;
import dev.entangle.eval.GraphEvaluator;
import dev.entangle.eval.Kernels;
import dev.entangle.eval.Value;
import dev.entangle.eval.WorkBudget;
import dev.entangle.eval.WorkEstimate;
import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.lower.RelationLowering;
import dev.entangle.numbers.sampling.InputSampler;
import dev.entangle.numbers.sampling.SampledInputs;
import dev.entangle.numbers.sampling.SamplingException;
import dev.entangle.refine.Evidence;
import dev.entangle.refine.Failure;
import dev.entangle.refine.Numbers;
import dev.entangle.refine.OpaqueOperators;
import dev.entangle.relation.RelationFile;
import dev.entangle.util.InputException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The checker's numbers: {@link #draws} independent random inputs (seeds {@code seed}, {@code seed
 * + 1}, ...) drawn from the input relation, G_s and G_d evaluated on each: the first draw the first
 * time a proof fails, each other the first time a candidate found on the first draw must hold on it
 * to count. A value that no clean form equals on the first draw is shown by that draw alone, so a
 * bug's numbers cost one evaluation of the models, not one per draw.
 */
public final class NumericOracle implements Numbers {
  /**
   * @param seed the first draw's seed
   * @param draws how many independent draws a candidate must hold on
   * @param work the work budget of each draw (about one unit per multiply-add)
   * @param elements the most tensor elements one draw may hold
   */
  public record Settings(long seed, int draws, long work, long elements) {
    /** The default element limit: 2^25 elements (256 MB of doubles). */
    public static final long DEFAULT_ELEMENTS = 1L << 25;

    public Settings {
      if (draws < 1 || work < 1 || elements < 1) {
        throw new IllegalArgumentException("draws, work and elements must be positive");
      }
    }

    public Settings(long seed, int draws, long work) {
      this(seed, draws, work, DEFAULT_ELEMENTS);
    }
  }

  private final Graph gs;
  private final DistributedGraph gd;
  private final RelationFile relation;
  private final CoreProgram gsp;
  private final CoreProgram gdp;
  private final Settings settings;

  /** The draws evaluated so far, in order of their seeds. */
  private final List<Draw> draws = new ArrayList<>();

  private InputSampler sampler;
  private Evidence.NotRun unavailable;

  /** The layouts of the input relation, read at the first search that needs them. */
  private List<RelationLayouts.Stated> layouts;

  /** One draw: its inputs' seed, the values of G_s and of G_d. */
  private record Draw(long seed, Evaluation gs, Evaluation gd, WorkBudget budget) {}

  public NumericOracle(
      Graph gs,
      DistributedGraph gd,
      RelationFile relation,
      CoreProgram gsp,
      CoreProgram gdp,
      Settings settings) {
    this.gs = gs;
    this.gd = gd;
    this.relation = relation;
    this.gsp = gsp;
    this.gdp = gdp;
    this.settings = settings;
  }

  public Settings settings() {
    return settings;
  }

  @Override
  public Map<String, Failure.DrawnRange> unstatedRanges() {
    return sampler == null ? Map.of() : sampler.unstatedRanges();
  }

  @Override
  public boolean evaluated() {
    return ready();
  }

  @Override
  public Evidence search(int gsValue, boolean overOutputs) {
    if (!ready()) {
      return unavailable;
    }
    Draw first = draws.get(0);
    Tensor target = gsTensor(first, gsValue);
    if (target == null) {
      return notComputed(first, gsValue);
    }
    List<GdValue> values = new ArrayList<>();
    CoreValue uncomputed = null;
    for (CoreValue v : gdp.values()) {
      if (overOutputs && !v.output() && v.kind() != ValueKind.INPUT) {
        continue;
      }
      Tensor t = first.gd().tensor(v.graph(), v.name()).orElse(null);
      if (t != null) {
        values.add(new GdValue(v.graph(), v.name(), t));
      } else if (uncomputed == null
          && first.gd().value(v.graph(), v.name()) instanceof Value.Unavailable
          && couldMatch(v, target)) {
        uncomputed = v;
      }
    }
    if (layouts == null) {
      layouts = RelationLayouts.of(relation);
    }
    SearchResult r = new CleanSearch(values, layouts, CleanSearch.DEFAULT_WORK).search(target);
    if (r instanceof SearchResult.Found f) {
      return holdsOnEveryDraw(gsValue, RelationLowering.clean(f.expr(), gdp));
    }
    if (uncomputed != null) {
      return notComputed(first, uncomputed);
    }
    SearchResult.NotFound nf = (SearchResult.NotFound) r;
    CoreTerm closest = nf.closest() == null ? null : RelationLowering.clean(nf.closest(), gdp);
    return witness(
        gsValue,
        first.seed(),
        target,
        closest,
        nf.difference(),
        nf.stoppedBecause(),
        nf.candidates());
  }

  @Override
  public Evidence compare(int gsValue, CoreTerm gdTerm) {
    if (!ready()) {
      return unavailable;
    }
    return holdsOnEveryDraw(gsValue, gdTerm);
  }

  /**
   * A candidate when {@code term} equals the G_s value on every draw, else a witness from the first
   * draw it fails.
   */
  private Evidence holdsOnEveryDraw(int gsValue, CoreTerm term) {
    for (int k = 0; k < settings.draws(); k++) {
      Evidence.NotRun why = drawUpTo(k);
      if (why != null) {
        return why;
      }
      Draw d = draws.get(k);
      Tensor target = gsTensor(d, gsValue);
      if (target == null) {
        return notComputed(d, gsValue);
      }
      Tensor value;
      try {
        value = evaluate(term, d);
      } catch (EvalException e) {
        return new Evidence.NotRun("the G_d expression could not be evaluated: " + e.getMessage());
      }
      if (!Arrays.equals(value.shape(), target.shape())) {
        return witness(
            gsValue,
            d.seed(),
            target,
            term,
            null,
            "the G_d expression has shape "
                + Arrays.toString(value.shape())
                + ", the G_s value "
                + Arrays.toString(target.shape()),
            1);
      }
      Difference diff = Difference.of(value, target);
      if (!diff.matches()) {
        return witness(gsValue, d.seed(), target, term, diff, null, 1);
      }
    }
    return new Evidence.Candidate(gsValue, term, settings.draws(), settings.seed());
  }

  private Evidence witness(
      int gsValue,
      long seed,
      Tensor target,
      CoreTerm closest,
      Difference diff,
      String note,
      int tried) {
    if (diff == null) {
      return new Evidence.Witness(
          gsValue,
          seed,
          target.shape(),
          null,
          null,
          Double.NaN,
          Double.NaN,
          Double.NaN,
          Double.NaN,
          0,
          note,
          tried);
    }
    return new Evidence.Witness(
        gsValue,
        seed,
        target.shape(),
        closest,
        diff.index(),
        diff.target(),
        diff.candidate(),
        diff.maxAbs(),
        diff.maxRelative(),
        diff.differing(),
        note,
        tried);
  }

  private Tensor gsTensor(Draw d, int gsValue) {
    return d.gs().tensor(-1, gsp.value(gsValue).name()).orElse(null);
  }

  private Evidence notComputed(Draw d, int gsValue) {
    Value v = d.gs().value(-1, gsp.value(gsValue).name());
    String why =
        v instanceof Value.Unavailable u
            ? u.reason()
            : v instanceof Value.Undefined
                ? "it has no defined value"
                : "it has no single tensor value";
    return new Evidence.NotRun(
        "G_s's " + gsp.value(gsValue).name() + " was not computed on numbers: " + why);
  }

  /**
   * Whether a clean form the search builds from G_d value {@code v} could have the target's size:
   * {@code v} itself (permuted, reshaped, summed or maxed across ranks) or concatenated across k
   * ranks, for k up to the world size.
   */
  private boolean couldMatch(CoreValue v, Tensor target) {
    if (v.type() == null || v.type().isTuple()) {
      return false;
    }
    long n = v.type().numel();
    long t = target.numel();
    return n > 0 && t % n == 0 && t / n <= gdp.worldSize();
  }

  /**
   * No G_d value the numbers computed equals the G_s value, but {@code v} was not computed: the
   * search cannot say that none equals it, so it is no evidence of a bug. Names the operator
   * without numbers {@code v} goes through, when there is one.
   */
  private Evidence notComputed(Draw d, CoreValue v) {
    String why = ((Value.Unavailable) d.gd().value(v.graph(), v.name())).reason();
    CoreOp def = gdp.definition(v.id());
    CoreOp opaque = def == null ? null : OpaqueOperators.nearest(gdp, def);
    String target = opaque == null ? null : OpaqueOperators.targetOf(opaque, gdp.table());
    return new Evidence.NotRun(
        "G_d's "
            + v.label()
            + " was not computed on numbers ("
            + why
            + "), and the G_d values computed hold no clean expression equal to it",
        target,
        v.label());
  }

  /** The value of a term over G_d values on one draw. */
  private Tensor evaluate(CoreTerm t, Draw d) {
    Kernels k =
        new Kernels(
            gdp.table(),
            d.budget(),
            id -> {
              CoreValue v = gdp.value((int) id);
              return d.gd()
                  .tensor(v.graph(), v.name())
                  .orElseThrow(() -> new EvalException(v.label() + " was not computed on numbers"));
            });
    return apply(t, k);
  }

  private static Tensor apply(CoreTerm t, Kernels k) {
    Tensor[] kids = new Tensor[t.children().size()];
    for (int i = 0; i < kids.length; i++) {
      kids[i] = apply(t.children().get(i), k);
    }
    if (kids.length == 1 && Op.of(t.op()) != null && Op.of(t.op()).isIdentityOfOne()) {
      return kids[0];
    }
    return k.apply(t.op(), t.attrs(), kids);
  }

  /**
   * Draws and evaluates the first draw, once; false (with {@link #unavailable} set) when the
   * numbers cannot run.
   */
  private boolean ready() {
    if (!draws.isEmpty()) {
      return true;
    }
    if (unavailable != null) {
      return false;
    }
    WorkEstimate gsCost = WorkEstimate.of(gsp);
    WorkEstimate gdCost = WorkEstimate.of(gdp);
    long work = gsCost.work() + gdCost.work();
    long elements = gsCost.inputElements() + gdCost.inputElements();
    if (work < 0 || work > settings.work()) {
      unavailable =
          new Evidence.NotRun(
              String.format(
                  "evaluating G_s and G_d once takes about %.1f GFLOP, more than the numeric budget of %.1f"
                      + " (--numeric-budget)",
                  work / 1e9, settings.work() / 1e9));
      return false;
    }
    if (elements < 0 || elements > settings.elements()) {
      unavailable =
          new Evidence.NotRun(
              "the inputs of G_s and G_d hold "
                  + elements
                  + " elements, more than the "
                  + settings.elements()
                  + " the numbers may hold");
      return false;
    }
    unavailable = drawUpTo(0);
    return unavailable == null;
  }

  /**
   * Draws and evaluates every draw up to index {@code k} not evaluated yet; null when they are all
   * evaluated, else why the numbers cannot run.
   */
  private Evidence.NotRun drawUpTo(int k) {
    try {
      if (sampler == null) {
        sampler = new InputSampler(gs, gd, relation, gsp, gdp);
      }
      while (draws.size() <= k) {
        long seed = settings.seed() + draws.size();
        WorkBudget budget = new WorkBudget(settings.work(), settings.elements());
        SampledInputs in = sampler.sample(seed, budget);
        GraphEvaluator evaluator = new GraphEvaluator(gdp.table(), budget);
        Evaluation s = evaluator.evaluate(gsp, g -> in.gs());
        Evaluation d = evaluator.evaluate(gdp, in.gd()::get);
        if (s.stopped().isPresent() || d.stopped().isPresent()) {
          Evaluation.Stop stop = s.stopped().orElseGet(() -> d.stopped().get());
          return new Evidence.NotRun(
              "the model does not fit the numeric budget (--numeric-budget): "
                  + stop.reason()
                  + ", at "
                  + stop.at());
        }
        draws.add(new Draw(seed, s, d, budget));
      }
      return null;
    } catch (EvalException | SamplingException | InputException | IllegalArgumentException e) {
      return new Evidence.NotRun(
          e instanceof BudgetExhausted
              ? "the model does not fit the numeric budget (--numeric-budget): " + e.getMessage()
              : "inputs could not be drawn from the relation: " + e.getMessage());
    }
  }
}
