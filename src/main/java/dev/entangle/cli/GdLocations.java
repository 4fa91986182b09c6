package dev.entangle.cli;

import dev.entangle.core.CoreOp;
import dev.entangle.core.CoreProgram;
import dev.entangle.core.CoreTerm;
import dev.entangle.core.Op;
import dev.entangle.core.Shapes;
import dev.entangle.core.Steps;
import dev.entangle.core.TypeInfo;
import dev.entangle.refine.Assumption;
import dev.entangle.refine.Evidence;
import dev.entangle.refine.Failure;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntPredicate;

/**
 * Where in the distributed code a failure shows: the G_d operations nearest the G_d tensors the
 * failing G_s operator was related to, each at its source line.
 *
 * <p>The starting tensors are those the proof reached: the leaves of the G_d expression the failing
 * operator's result equals (when the check found one), else the leaves of its inputs' relations,
 * else the tensors explored for it. G_d computes these as G_s needs them; what diverges is what G_d
 * does with them next. Operations that apply to one of them the operator the expression applies,
 * with a result of the same type but other attributes (look-alikes) come first of those. So the
 * operations reading them come first, then those reading their results, nearest first and in node
 * order among equals. Each is located at the frame {@link ModelFrames} picks, and operations at the
 * same line (the ranks' copies) make one location.
 */
final class GdLocations {
  /** The most locations a report lists. */
  static final int MOST = 8;

  private GdLocations() {}

  /**
   * One line of the distributed code.
   *
   * @param frame the line
   * @param stackTrace the full stack trace of the first operation there
   * @param target the first operation's operator
   * @param tensors the G_d tensors computed there ({@code r0.mm}), nearest first
   * @param distance how many operations separate the first of them from the tensors the proof
   *     reached (0: one of those)
   */
  record Location(
      SourceFrames.Frame frame,
      String stackTrace,
      String target,
      List<String> tensors,
      int distance) {
    /** {@code PATH:LINE}. */
    String where() {
      return frame.where();
    }
  }

  /** The locations of a failure, nearest first; none when G_d records no source. */
  static List<Location> of(Failure f, CoreProgram gs, CoreProgram gd) {
    Set<Integer> seeds = reached(f);
    if (seeds.isEmpty()) {
      f.inputs().forEach(i -> i.gd().forEach(t -> t.leaves(seeds)));
    }
    if (seeds.isEmpty()) {
      seeds.addAll(f.explored());
    }
    ModelFrames frames = ModelFrames.of(gs, gd);
    int[] fromSeeds = distances(gd, seeds, true);
    Set<Integer> closest = new LinkedHashSet<>();
    if (f.evidence() instanceof Evidence.Witness w && w.closest() != null) {
      w.closest().leaves(closest);
      closest.removeIf(v -> v < 0 || v >= gd.size() || fromSeeds[v] == Integer.MAX_VALUE);
    }
    List<Ranked> ranked = new ArrayList<>();
    if (f instanceof Failure.ExpectationViolated e) {
      Set<Integer> expected = new LinkedHashSet<>();
      e.expect().gd().leaves(expected);
      int[] none = new int[gd.size()];
      rank(gd, none, -2, expected::contains, ranked);
    }
    List<CoreTerm> reached = reachedTerms(f);
    if (reached.stream().anyMatch(CoreTerm::restsOnDerivedFactor)) {
      // G_s's value is a multiple of what G_d computes from these tensors: G_d computed them as
      // G_s needs them, and how it reduces them across ranks next (a sum for an average) is where
      // the factor comes from
      rank(gd, fromSeeds, -2, v -> after(fromSeeds[v]) && reducesRanks(gd.definition(v)), ranked);
      // or how G_d reduced their inputs across ranks before (a gradient summed, not averaged)
      Set<Integer> scaled = new LinkedHashSet<>();
      reached.forEach(t -> t.derivedFactorLeaves(scaled));
      int[] toScaled = distances(gd, scaled, false);
      rank(gd, toScaled, -2, v -> after(toScaled[v]) && reducesRanks(gd.definition(v)), ranked);
      // or how G_d scales them right away (a division by another constant)
      int[] fromScaled = distances(gd, scaled, true);
      rank(gd, fromScaled, -2, v -> fromScaled[v] == 1 && scalesByLiteral(gd, v), ranked);
    }
    Set<Integer> lookalikes = lookalikes(reached, gd);
    rank(gd, fromSeeds, -1, v -> lookalikes.contains(gd.value(v).op()), ranked);
    if (closest.isEmpty()) {
      rank(gd, fromSeeds, 0, v -> after(fromSeeds[v]), ranked);
    } else {
      int[] toClosest = distances(gd, closest, false);
      int[] afterClosest = distances(gd, closest, true);
      Set<String> gsLines = new HashSet<>();
      if (f.operator() >= 0) {
        SourceFrames.of(gs.op(f.operator()).stackTrace()).forEach(fr -> gsLines.add(fr.where()));
      }
      IntPredicate shared =
          v -> {
            CoreOp def = gd.definition(v);
            return def != null
                && SourceFrames.of(def.stackTrace()).stream()
                    .anyMatch(fr -> gsLines.contains(fr.where()));
          };
      rank(gd, toClosest, 0, v -> after(fromSeeds[v]) && after(toClosest[v]), ranked);
      rank(gd, afterClosest, 1, v -> after(afterClosest[v]) && !shared.test(v), ranked);
      rank(gd, afterClosest, 2, v -> after(afterClosest[v]), ranked);
      rank(gd, afterClosest, 3, v -> afterClosest[v] == 0, ranked);
      rank(gd, fromSeeds, 4, v -> after(fromSeeds[v]), ranked);
      behindClosestLines(gd, closest, frames, ranked);
    }
    if (ranked.isEmpty()) {
      rank(gd, fromSeeds, 0, v -> fromSeeds[v] == 0, ranked);
    }
    ranked.sort(Comparator.comparingInt(Ranked::tier).thenComparingInt(Ranked::distance));
    return locate(frames, gd, ranked);
  }

  /**
   * Moves the ranked operations that are at the lines computing the closest tensors, those between
   * the starting tensors and the closest ones and those that only rearrange a result there (a view
   * on the same line), behind the others of their tier and behind the first of what G_d does with
   * the closest tensors: those lines compute G_s's value from what they are given, so the lines
   * preparing what they are given, and those using the result, come first.
   */
  private static void behindClosestLines(
      CoreProgram gd, Set<Integer> closest, ModelFrames frames, List<Ranked> ranked) {
    Set<String> lines = new HashSet<>();
    for (int v : closest) {
      CoreOp def = gd.definition(v);
      SourceFrames.Frame at = def == null ? null : frames.pick(def.stackTrace());
      if (at != null) {
        lines.add(at.where());
      }
    }
    ranked.replaceAll(
        r -> {
          SourceFrames.Frame at = frames.pick(r.op().stackTrace());
          return at != null && lines.contains(at.where()) && (r.tier() == 0 || rearranges(r.op()))
              ? new Ranked(r.op(), Math.max(r.tier(), 1), r.distance() + gd.size())
              : r;
        });
  }

  /**
   * Whether the operation only rearranges its input's elements (a view, reshape, transpose or
   * copy): its result is still what the operation before it computed.
   */
  private static boolean rearranges(CoreOp op) {
    Steps steps = op.steps();
    for (int i = 0; i < steps.size(); i++) {
      if (steps.kind(i) == Steps.ADD
          && steps.arg(i) != Op.RESHAPE.id()
          && steps.arg(i) != Op.PERMUTE.id()) {
        return false;
      }
    }
    return true;
  }

  /** Whether a distance is one operation or more (not the starting tensors, not unreached). */
  private static boolean after(int distance) {
    return distance > 0 && distance != Integer.MAX_VALUE;
  }

  /** An operation of G_d in the order reports list it: by tier, then distance, then node order. */
  private record Ranked(CoreOp op, int tier, int distance) {}

  /** Adds, in node order, the operations not yet ranked defining a value that {@code in} takes. */
  private static void rank(
      CoreProgram gd, int[] distance, int tier, IntPredicate in, List<Ranked> ranked) {
    Set<Integer> done = new HashSet<>();
    ranked.forEach(r -> done.add(r.op().id()));
    int[] best = new int[gd.ops().size()];
    Arrays.fill(best, Integer.MAX_VALUE);
    for (int v = 0; v < gd.size(); v++) {
      CoreOp def = gd.definition(v);
      if (def != null && !done.contains(def.id()) && in.test(v)) {
        best[def.id()] = Math.min(best[def.id()], distance[v]);
      }
    }
    for (CoreOp op : gd.ops()) {
      if (best[op.id()] != Integer.MAX_VALUE) {
        ranked.add(new Ranked(op, tier, best[op.id()]));
      }
    }
  }

  /** The ranked operations' lines, the first operation at a line making its location. */
  private static List<Location> locate(ModelFrames frames, CoreProgram gd, List<Ranked> ranked) {
    Map<String, Location> byLine = new LinkedHashMap<>();
    for (Ranked r : ranked) {
      CoreOp op = r.op();
      SourceFrames.Frame at = frames.pick(op.stackTrace());
      if (at == null) {
        continue;
      }
      Location l = byLine.get(at.where());
      if (l == null) {
        if (byLine.size() == MOST) {
          continue;
        }
        l = new Location(at, op.stackTrace(), op.target(), new ArrayList<>(), r.distance());
        byLine.put(at.where(), l);
      }
      for (int v : op.values()) {
        l.tensors().add(gd.value(v).label());
      }
    }
    List<Location> out = new ArrayList<>();
    for (Location l : byLine.values()) {
      out.add(
          new Location(
              l.frame(), l.stackTrace(), l.target(), List.copyOf(l.tensors()), l.distance()));
    }
    return out;
  }

  /** The leaves of the G_d expression the failing operator's result was found to equal. */
  private static Set<Integer> reached(Failure f) {
    Set<Integer> leaves = new LinkedHashSet<>();
    for (CoreTerm t : reachedTerms(f)) {
      t.leaves(leaves);
    }
    return leaves;
  }

  private static final List<String> REDUCTIONS =
      List.of("all_reduce", "reduce_scatter", "all-reduce", "reduce-scatter");

  /** Whether an operation sums or averages across ranks, by its target (torch's or XLA's name). */
  private static boolean reducesRanks(CoreOp op) {
    return op != null && REDUCTIONS.stream().anyMatch(op.target()::contains);
  }

  private static final List<String> SCALINGS =
      List.of("aten.div.", "aten.mul.", "xla.divide", "xla.multiply");

  /** Whether a value is a product or quotient of one tensor and a literal (a scaling). */
  private static boolean scalesByLiteral(CoreProgram gd, int v) {
    CoreOp op = gd.definition(v);
    return op != null
        && SCALINGS.stream().anyMatch(op.target()::startsWith)
        && gd.deps(v).length == 1;
  }

  /**
   * The operations of G_d that apply to a tensor of the reached expression the very operator that
   * expression applies to it, with a result of the same shape and dtype, but other attributes (a
   * slice of the same size at another offset, a sum over another dimension): G_d computes something
   * like what G_s needs from that tensor, but not it. They are the likeliest lines of a bug, ahead
   * of the other operations reading the same tensors.
   */
  private static Set<Integer> lookalikes(List<CoreTerm> reached, CoreProgram gd) {
    Shapes shapes = new Shapes(gd.table(), id -> gd.value((int) id).type());
    List<CoreTerm> needed = new ArrayList<>();
    Deque<CoreTerm> todo = new ArrayDeque<>(reached);
    while (!todo.isEmpty()) {
      CoreTerm t = todo.pop();
      if (t.children().stream().anyMatch(CoreTerm::isTensor)) {
        needed.add(t);
      }
      t.children().forEach(todo::push);
    }
    Set<Integer> found = new LinkedHashSet<>();
    for (CoreTerm t : needed) {
      TypeInfo type = typeOf(t, shapes, 0);
      if (type == null) {
        continue;
      }
      for (CoreTerm c : t.children()) {
        if (!c.isTensor() || c.tensorId() < 0 || c.tensorId() >= gd.size()) {
          continue;
        }
        for (int u : gd.users(c.tensorId())) {
          int op = gd.value(u).op();
          if (op >= 0 && appliesLike(gd.op(op), c.tensorId(), t, type)) {
            found.add(op);
          }
        }
      }
    }
    return found;
  }

  /**
   * Whether one of the operation's steps is {@code t}'s operator on value {@code v}, of {@code
   * type}.
   */
  private static boolean appliesLike(CoreOp op, int v, CoreTerm t, TypeInfo type) {
    Steps steps = op.steps();
    Set<Integer> refSlots = new HashSet<>();
    for (int i = 0; i < steps.size(); i++) {
      if (steps.kind(i) == Steps.REF && steps.arg(i) == v) {
        refSlots.add(steps.slot(i));
      }
    }
    for (int i = 0; i < steps.size(); i++) {
      if (steps.kind(i) != Steps.ADD || steps.arg(i) != t.op()) {
        continue;
      }
      boolean reads = Arrays.stream(steps.kids(i)).anyMatch(refSlots::contains);
      TypeInfo made = steps.type(steps.slot(i));
      if (reads
          && made != null
          && made.sameShape(type)
          && made.dtype() == type.dtype()
          && !Arrays.equals(steps.attrs(i), t.attrs())) {
        return true;
      }
    }
    return false;
  }

  /** The type of a term over G_d tensors, or null when it cannot be told. */
  private static TypeInfo typeOf(CoreTerm t, Shapes shapes, int depth) {
    if (t.isTensor()) {
      return shapes.infer(t.op(), t.attrs(), new TypeInfo[0]);
    }
    if (depth > 64) {
      return null;
    }
    TypeInfo[] kids = new TypeInfo[t.children().size()];
    for (int i = 0; i < kids.length; i++) {
      kids[i] = typeOf(t.children().get(i), shapes, depth + 1);
      if (kids[i] == null) {
        return null;
      }
    }
    try {
      return shapes.infer(t.op(), t.attrs(), kids);
    } catch (RuntimeException e) {
      return null;
    }
  }

  /** The G_d expressions the failing operator's result was found to equal. */
  private static List<CoreTerm> reachedTerms(Failure f) {
    List<CoreTerm> terms = new ArrayList<>();
    if (f instanceof Failure.NoCleanExpression n) {
      n.terms().forEach(t -> terms.add(t.gd()));
    } else if (f instanceof Failure.OutputNotReturned o) {
      terms.add(o.equals());
    } else if (f instanceof Failure.ExpectationViolated e) {
      terms.add(e.equals());
    } else if (f instanceof Failure.ProvedOnNumbers p) {
      Assumption a = p.assumption();
      terms.add(a.gdTerm());
    }
    terms.removeIf(t -> t == null);
    return terms;
  }

  /**
   * Each value's number of operations downstream ({@code forward}) or upstream of the seeds, or
   * MAX_VALUE when it is neither.
   */
  private static int[] distances(CoreProgram gd, Set<Integer> seeds, boolean forward) {
    int[] d = new int[gd.size()];
    Arrays.fill(d, Integer.MAX_VALUE);
    Deque<Integer> queue = new ArrayDeque<>();
    for (int s : seeds) {
      if (s >= 0 && s < d.length) {
        d[s] = 0;
        queue.add(s);
      }
    }
    while (!queue.isEmpty()) {
      int v = queue.poll();
      for (int u : forward ? gd.users(v) : gd.deps(v)) {
        if (d[u] == Integer.MAX_VALUE) {
          d[u] = d[v] + 1;
          queue.add(u);
        }
      }
    }
    return d;
  }
}
