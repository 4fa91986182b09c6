package dev.entangle.refine;

import dev.entangle.core.CoreProgram;
import dev.entangle.core.CoreRelation;
import dev.entangle.core.CoreTerm;
import dev.entangle.rules.Lemmas;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks that G_d refines G_s (the paper's Listing 1): processes G_s's operations in topological
 * order, computes each one's clean output relation with {@link OperatorCheck}, and stops at the
 * first operation whose outputs map to no G_d tensor. {@code refines} is returned only with the
 * output relation in hand.
 */
public final class RefinementChecker {
  private RefinementChecker() {}

  /**
   * Runs a check over the lowered programs.
   *
   * @param numbers asked where a proof fails ({@link Numbers#NONE} for none)
   * @param startNanos {@link System#nanoTime} when the check began (reading and lowering included);
   *     the timeout counts from there
   */
  public static CheckResult check(
      CoreProgram gs,
      CoreProgram gd,
      CoreRelation rel,
      Lemmas lemmas,
      CheckOptions options,
      CheckListener listener,
      Numbers numbers,
      long startNanos) {
    long deadline = startNanos + options.timeout().toNanos();
    GdModel model = new GdModel(gd, options.hotUsers());
    rel = model.representing(rel);
    List<Integer> required = new ArrayList<>(rel.outputs() != null ? rel.outputs() : results(gs));
    Map<Integer, List<CoreRelation.Expect>> expects = new HashMap<>();
    Set<Integer> wanted = new LinkedHashSet<>(required);
    for (CoreRelation.Expect e : rel.expects()) {
      expects.computeIfAbsent(e.gs(), k -> new ArrayList<>()).add(e);
      wanted.add(e.gs());
    }
    GsWalk walk = new GsWalk(gs, rel.inputs().keySet(), new ArrayList<>(wanted));
    Context ctx =
        new Context(
            walk, model, lemmas, options, listener, deadline, rel.equalities(), rel.ranges());
    for (Map.Entry<Integer, List<CoreTerm>> e : rel.inputs().entrySet()) {
      ctx.relate(e.getKey(), e.getValue());
    }
    CheckResult result = new CheckRun(ctx, required, expects, numbers, startNanos).go();
    if (ctx.replays) {
      long[] counts = ctx.saturations.counts();
      listener.saturationsReplayed(counts[0], counts[1]);
    }
    listener.finished();
    return result;
  }

  /**
   * The G_s outputs that are results: those no G_s node uses again. An output that G_s itself
   * consumes as well is an activation it saves for backward (G_d saves its own, sharded form), not
   * a result of the model.
   */
  static List<Integer> results(CoreProgram gs) {
    Set<Integer> used = new HashSet<>();
    gs.ops()
        .forEach(
            op -> {
              for (int r : op.reads()) {
                used.add(r);
              }
            });
    List<Integer> out = new ArrayList<>();
    for (int v : gs.outputs(-1)) {
      if (!used.contains(v) && !out.contains(v)) {
        out.add(v);
      }
    }
    return out;
  }
}
