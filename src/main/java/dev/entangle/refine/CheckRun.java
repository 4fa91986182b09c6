package dev.entangle.refine;

import dev.entangle.lower.CoreOp;
import dev.entangle.lower.CoreProgram;
import dev.entangle.lower.CoreRelation;
import dev.entangle.lower.CoreTerm;
import dev.entangle.lower.CoreValue;
import dev.entangle.lower.ValueKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** One check's walk over G_s: operations in order, deferral of chains, the result. */
final class CheckRun {
  /** Most G_s operations one deferred chain may span before the check gives up on it. */
  static final int MAX_CHAIN = 12;

  private final Context ctx;
  private final CoreProgram gs;
  private final List<Integer> required;
  private final Map<Integer, List<CoreRelation.Expect>> expects;
  private final long start;
  private final Map<Integer, CoreTerm> overOutputs = new HashMap<>();
  private final Set<Integer> undefined = new LinkedHashSet<>();
  private final Map<Integer, CoreOp> chainRoot = new HashMap<>();
  private final Map<Integer, Integer> chainLength = new HashMap<>();
  private final Map<Integer, OperatorCheck.Outcome> failedAt = new HashMap<>();
  private final List<CoreRelation.Expect> violated = new ArrayList<>();
  private CoreOp violatedAt;

  CheckRun(
      Context ctx,
      List<Integer> required,
      Map<Integer, List<CoreRelation.Expect>> expects,
      long start) {
    this.ctx = ctx;
    this.gs = ctx.gs.program;
    this.required = required;
    this.expects = expects;
    this.start = start;
  }

  CheckResult go() {
    List<CoreOp> ops = ctx.gs.operators;
    for (CoreValue v : gs.values()) {
      if (v.kind() == ValueKind.UNDEFINED) {
        undefined.add(v.id());
      }
    }
    Set<Integer> requiredSet = new LinkedHashSet<>(required);
    for (int i = 0; i < ops.size(); i++) {
      CoreOp op = ops.get(i);
      List<Integer> outs = ctx.gs.outputs(op);
      List<CoreRelation.Expect> ex = new ArrayList<>();
      boolean req = false;
      for (int o : outs) {
        ex.addAll(expects.getOrDefault(o, List.of()));
        req |= requiredSet.contains(o);
      }
      long opStart = System.nanoTime();
      OperatorCheck.Outcome out = new OperatorCheck(ctx, op).run(outs, ex, req);
      double millis = (System.nanoTime() - opStart) / 1e6;
      if (!out.mapped(outs)) {
        ctx.listener.operatorChecked(
            i,
            ops.size(),
            op,
            new CheckListener.OperatorSummary(
                false, out.nodes(), out.explored().size(), millis, -1, null));
        if (out.limited() || out.missingInput() >= 0 || !defer(op, outs, out)) {
          CoreOp root = rootOf(op);
          OperatorCheck.Outcome rootOut = failedAt.getOrDefault(root.id(), out);
          Verdict v = out.limited() ? Verdict.INCONCLUSIVE : Verdict.NOT_REFINED;
          return result(v, failure(root, rootOut, root == op ? -1 : op.id()));
        }
        continue;
      }
      for (int o : outs) {
        ctx.relate(o, out.found().get(o));
      }
      overOutputs.putAll(out.overOutputs());
      out.cleanLeaves().forEach(ctx.related::set);
      undefined.addAll(out.undefined());
      if (!out.violated().isEmpty() && violated.isEmpty()) {
        violated.addAll(out.violated());
        violatedAt = op;
      }
      int first = -1;
      CoreTerm firstTerm = null;
      for (int o : outs) {
        List<CoreTerm> found = out.found().getOrDefault(o, List.of());
        if (!found.isEmpty()) {
          first = o;
          firstTerm = found.get(0);
          break;
        }
      }
      ctx.listener.operatorChecked(
          i,
          ops.size(),
          op,
          new CheckListener.OperatorSummary(
              true, out.nodes(), out.explored().size(), millis, first, firstTerm));
    }
    // required outputs computed from constants alone match G_d's constant outputs
    for (int o : required) {
      if (!overOutputs.containsKey(o) && gs.value(o).kind() == ValueKind.CONSTANT) {
        CoreTerm e = OperatorCheck.matchConstant(ctx, o);
        if (e != null) {
          overOutputs.put(o, e);
        }
      }
    }
    // required outputs that are inputs or cut points map through their given relation
    for (int o : required) {
      if (!overOutputs.containsKey(o)) {
        for (CoreTerm e : ctx.relation.getOrDefault(o, List.of())) {
          Set<Integer> leaves = new HashSet<>();
          e.leaves(leaves);
          if (leaves.stream().allMatch(ctx.gd::available)) {
            overOutputs.put(o, e);
            break;
          }
        }
      }
    }
    for (int o : required) {
      CoreOp root = chainRoot.get(o);
      if (root != null) {
        OperatorCheck.Outcome rootOut = failedAt.get(root.id());
        CoreOp last = gs.definition(o);
        return result(Verdict.NOT_REFINED, failure(root, rootOut, root == last ? -1 : last.id()));
      }
    }
    for (int o : required) {
      if (!overOutputs.containsKey(o) && !undefined.contains(o)) {
        CoreOp producer = gs.definition(o);
        return result(
            Verdict.NOT_REFINED,
            new Failure.OutputNotReturned(
                producer == null ? -1 : producer.id(),
                o,
                first(ctx.relation.get(o)),
                producer == null ? List.of() : inputRelations(producer)));
      }
    }
    if (!violated.isEmpty()) {
      CoreRelation.Expect e = violated.get(0);
      return result(
          Verdict.EXPECTATION_VIOLATED,
          new Failure.ExpectationViolated(
              violatedAt.id(), e, first(ctx.relation.get(e.gs())), inputRelations(violatedAt)));
    }
    return result(Verdict.REFINES, null);
  }

  private static CoreTerm first(List<CoreTerm> terms) {
    return terms == null || terms.isEmpty() ? null : terms.get(0);
  }

  /**
   * Defers an operation whose outputs have no clean expression: consumers see its term instead, so
   * a chain of G_s operations that only maps as a whole (a vocabulary shard's shifted targets, say)
   * is checked as a chain. Refused past {@link #MAX_CHAIN} operations.
   */
  private boolean defer(CoreOp op, List<Integer> outs, OperatorCheck.Outcome out) {
    int length = 1;
    CoreOp root = rootOf(op);
    for (int in : op.reads()) {
      if (chainRoot.containsKey(in)) {
        length = Math.max(length, chainLength.get(in) + 1);
      }
    }
    if (length > MAX_CHAIN) {
      return false;
    }
    if (root == op) {
      failedAt.put(op.id(), out);
    }
    for (int o : outs) {
      ctx.deferred.add(o);
      chainRoot.put(o, root);
      chainLength.put(o, length);
    }
    return true;
  }

  private CoreOp rootOf(CoreOp op) {
    CoreOp root = op;
    for (int in : op.reads()) {
      CoreOp p = chainRoot.get(in);
      if (p != null && p.id() < root.id()) {
        root = p;
      }
    }
    return root;
  }

  private Failure failure(CoreOp op, OperatorCheck.Outcome out, int chainEnd) {
    List<Integer> explored =
        out.explored().size() > 60 ? out.explored().subList(0, 60) : out.explored();
    List<Failure.InputRelation> inputs = inputRelations(op);
    if (out.missingInput() >= 0) {
      return new Failure.MissingInput(
          op.id(),
          out.missingInput(),
          undefined.contains(out.missingInput()),
          chainEnd,
          inputs,
          explored);
    }
    List<Failure.OutputTerm> terms = new ArrayList<>();
    List<Integer> outs = ctx.gs.outputs(op);
    for (int o : outs) {
      CoreTerm hint = out.hints().get(o);
      if (hint != null && out.found().getOrDefault(o, List.of()).isEmpty()) {
        terms.add(new Failure.OutputTerm(o, hint));
      }
    }
    return new Failure.NoCleanExpression(
        op.id(), outs.size(), terms, out.limit(), chainEnd, inputs, explored);
  }

  private List<Failure.InputRelation> inputRelations(CoreOp op) {
    List<Failure.InputRelation> out = new ArrayList<>();
    for (int v : op.reads()) {
      List<CoreTerm> terms = ctx.relation.getOrDefault(v, List.of());
      boolean constant = terms.isEmpty() && gs.value(v).kind() == ValueKind.CONSTANT;
      out.add(new Failure.InputRelation(v, terms, constant));
    }
    return out;
  }

  private CheckResult result(Verdict v, Failure f) {
    List<CheckResult.OutputEntry> rel = new ArrayList<>();
    for (int o : required) {
      CoreTerm e = overOutputs.get(o);
      if (e != null) {
        rel.add(new CheckResult.OutputEntry(o, e));
      }
    }
    List<Integer> notChecked = required.stream().filter(undefined::contains).distinct().toList();
    if (v == Verdict.REFINES && rel.size() + notChecked.size() < required.size()) {
      throw new IllegalStateException("refines without a complete output relation");
    }
    Map<String, Integer> fired = new LinkedHashMap<>();
    List<String> names = ctx.lemmas.names();
    for (int i = 0; i < names.size(); i++) {
      if (ctx.fired[i] > 0) {
        fired.put(names.get(i), ctx.fired[i]);
      }
    }
    double secs = (System.nanoTime() - start) / 1e9;
    return new CheckResult(
        v,
        rel,
        notChecked,
        f,
        new CheckResult.Stats(ctx.gs.operators.size(), ctx.gd.program.callCount(), secs, fired));
  }
}
