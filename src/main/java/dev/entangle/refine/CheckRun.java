package dev.entangle.refine;

import dev.entangle.core.CoreOp;
import dev.entangle.core.CoreProgram;
import dev.entangle.core.CoreRelation;
import dev.entangle.core.CoreTerm;
import dev.entangle.core.CoreValue;
import dev.entangle.core.Op;
import dev.entangle.core.ValueKind;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;

/**
 * One check's walk over G_s: operations in order, deferral of chains, numbers where a proof fails,
 * the result.
 *
 * <p>Where no clean expression is found, the operation is deferred (its consumers see its term, so
 * a chain that only maps as a whole is checked as a chain). Where the walk would stop, the numbers
 * are asked ({@link Numbers}): when every unmapped output of the failing operation numerically
 * equals a clean expression of G_d on every draw, that is a gap in the lemmas, not a bug: the walk
 * takes the step on numbers ({@link Assumption}) and goes on from there, and can at best end {@code
 * unproved}. Otherwise the failure stands, with the numbers that show the bug.
 */
final class CheckRun {
  /**
   * Most G_s operations one deferred chain may span before the check gives up on it, those that
   * only copy or lay out values not counted (JAX writes a reshape and a broadcast around every
   * reduction); and {@link #MAX_SPAN} counting them.
   */
  static final int MAX_CHAIN = 12;

  /**
   * Most G_s operations, layout ones too, one deferred chain may span: past {@link #MAX_CHAIN} of
   * them only while its e-graph holds at most {@link #LONG_CHAIN_NODES} nodes.
   */
  static final int MAX_SPAN = 16;

  /** The e-graph size up to which a chain may span more than {@link #MAX_CHAIN} operations. */
  static final int LONG_CHAIN_NODES = 4_000;

  /**
   * The e-graph size past which a chain is not gone on in at all: each operation it adds saturates
   * the whole e-graph again (a bug's chain through an attention block at 4 ranks grows past 30,000
   * nodes and takes seconds per operation). Such a chain is judged on numbers.
   */
  static final int MAX_CHAIN_NODES = 20_000;

  private final Context ctx;
  private final CoreProgram gs;
  private final List<CoreOp> ops;
  private final List<Integer> required;
  private final Set<Integer> requiredSet;
  private final Map<Integer, List<CoreRelation.Expect>> expects;
  private final Numbers numbers;
  private final long start;
  private final Map<Integer, CoreTerm> overOutputs = new HashMap<>();
  private final Set<Integer> undefined = new LinkedHashSet<>();
  private final Map<Integer, CoreOp> chainRoot = new HashMap<>();
  private final Map<Integer, ChainLength> chainLength = new HashMap<>();

  /**
   * How far into its chain a deferred value lies: the operations that compute ({@code computing})
   * and all of them, layout ones too ({@code all}).
   */
  private record ChainLength(int computing, int all) {}

  private final Map<Integer, OperatorCheck.Outcome> failedAt = new HashMap<>();

  /**
   * Per open deferred chain (by its root's id), the check of its last operation, whose e-graph the
   * chain's next operation goes on in ({@link #chainCheck}).
   */
  private final Map<Integer, OperatorCheck> chainChecks = new HashMap<>();

  /**
   * Roots of chains that grew past {@link #MAX_CHAIN} or {@link #MAX_SPAN} with no clean expression
   * of their root on numbers either: the root may be a value G_d never computes (the whole rows of
   * a ring attention's scores, which each rank only sees block by block), so the chain is judged at
   * the outputs it reaches, on numbers ({@link #chainOutputsOnNumbers}); what reads it is deferred
   * without a search.
   */
  private final Set<Integer> judgedAtOutputs = new HashSet<>();

  private final List<CoreRelation.Expect> violated = new ArrayList<>();
  private final List<Assumption> assumptions = new ArrayList<>();

  /** Per assumed operation: the outcome of its check, for the report. */
  private final Map<Integer, OperatorCheck.Outcome> assumedOutcome = new HashMap<>();

  private CoreOp violatedAt;

  /**
   * The first stop at an operator kept opaque ({@link OpaqueOperators}), or null. The walk goes on
   * past it, leaving what is computed from it unchecked ({@link #unsupportedValues}), so that a bug
   * the numbers can show elsewhere is still reported as {@code not-refined}.
   */
  private Failure.Unsupported unsupported;

  /** The G_s values computed from an operator kept opaque where the walk stopped. */
  private final Set<Integer> unsupportedValues = new HashSet<>();

  /** Checks operators ahead of the walk ({@link CheckOptions#jobs}). */
  private Speculation speculation;

  CheckRun(
      Context ctx,
      List<Integer> required,
      Map<Integer, List<CoreRelation.Expect>> expects,
      Numbers numbers,
      long start) {
    this.ctx = ctx;
    this.gs = ctx.gs.program;
    this.ops = ctx.gs.operators;
    this.required = required;
    this.requiredSet = new LinkedHashSet<>(required);
    this.expects = expects;
    this.numbers = numbers;
    this.start = start;
  }

  /** Where a stretch of the walk ended. */
  private sealed interface Step {
    /** Nothing stopped the stretch: every operation was checked, or no chain is left open. */
    Step DONE = new Done();

    /** See {@link #DONE}. */
    record Done() implements Step {}

    /** A step was taken on numbers: the walk goes on from the operation at index {@code from}. */
    record Resume(int from) implements Step {}

    /** The walk stopped short: a verdict and where. */
    record Stop(Verdict verdict, Failure failure) implements Step {}
  }

  CheckResult go() {
    IntFunction<Speculation.Task> tasks =
        new IntFunction<>() {
          @Override
          public Speculation.Task apply(int i) {
            return task(i);
          }
        };
    try (Speculation s = new Speculation(ctx, ops, tasks, ctx.options.jobs())) {
      speculation = s;
      return goWith();
    }
  }

  /** What the check of the operator at walk index {@code i} is asked. */
  private Speculation.Task task(int i) {
    List<Integer> outs = ctx.gs.outputs(ops.get(i));
    List<CoreRelation.Expect> ex = new ArrayList<>();
    boolean req = false;
    for (int o : outs) {
      ex.addAll(expects.getOrDefault(o, List.of()));
      req |= requiredSet.contains(o);
    }
    return new Speculation.Task(outs, ex, req);
  }

  private CheckResult goWith() {
    for (CoreValue v : gs.values()) {
      if (v.kind() == ValueKind.UNDEFINED) {
        undefined.add(v.id());
      }
    }
    int from = 0;
    while (true) {
      Step step = walk(from);
      if (step instanceof Step.Done) {
        step = chainsEndingInOutputs();
      }
      if (step instanceof Step.Resume r) {
        from = r.from();
      } else if (step instanceof Step.Stop s) {
        return result(s.verdict(), s.failure());
      } else {
        return finish();
      }
    }
  }

  /**
   * Checks operations from index {@code from} on: where the walk stopped, where it resumes after a
   * step taken on numbers, or {@link Step#DONE} when every operation was checked.
   */
  private Step walk(int from) {
    for (int i = from; i < ops.size(); i++) {
      CoreOp op = ops.get(i);
      List<Integer> outs = ctx.gs.outputs(op);
      if (readsUnsupported(op)) {
        unsupportedValues.addAll(outs);
        continue;
      }
      CoreOp judged = judgedRootRead(op);
      if (judged != null) {
        deferUnchecked(outs, judged);
        ctx.listener.operatorChecked(
            i, ops.size(), op, new CheckListener.OperatorSummary(false, 0, 0, 0, -1, null));
        continue;
      }
      speculation.ahead(i);
      Speculation.Taken taken = speculation.check(i, chainCheck(op));
      OperatorCheck.Outcome out = taken.outcome();
      double millis = taken.millis();
      EqualityLearner.keep(ctx, out.learned(), op);
      if (!out.mapped(outs)) {
        ctx.listener.operatorChecked(
            i,
            ops.size(),
            op,
            new CheckListener.OperatorSummary(
                false, out.nodes(), out.explored().size(), millis, -1, null));
        if (out.limited() || out.missingInput() >= 0 || !defer(op, outs, out, taken.check())) {
          CoreOp root = rootOf(op);
          OperatorCheck.Outcome rootOut = failedAt.getOrDefault(root.id(), out);
          int chainEnd = root == op ? -1 : op.id();
          if (out.limited() || rootOut.missingInput() >= 0) {
            Verdict v = out.limited() ? Verdict.INCONCLUSIVE : Verdict.NOT_REFINED;
            Evidence e = out.limited() ? evidenceAbout(root, rootOut) : null;
            Failure f = failure(root, rootOut, chainEnd, e);
            return stop(v, f);
          }
          return takeOnNumbersOrStop(root, rootOut, chainEnd, false, out.limited() ? null : op);
        }
        continue;
      }
      mapped(op, outs, out);
      chainChecks.values().remove(taken.check()); // a chain that mapped is not gone on in
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
    return Step.DONE;
  }

  private void mapped(CoreOp op, List<Integer> outs, OperatorCheck.Outcome out) {
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
  }

  /**
   * The walk would stop at {@code root}: asks the numbers about its outputs that no clean
   * expression was found for. When each equals a clean expression of G_d on every draw, takes that
   * as their relation and resumes after the root; else stops with the failure, with the numbers. At
   * the walk's end ({@code atWalkEnd}, a chain that never mapped), a root no clean expression
   * equals may still be a value G_d never computes: when the chain's outputs were taken on numbers
   * instead ({@link #chainOutputsOnNumbers}), the walk resumes at its end, where the chains left
   * are looked at again.
   */
  private Step takeOnNumbersOrStop(
      CoreOp root,
      OperatorCheck.Outcome rootOut,
      int chainEnd,
      boolean atWalkEnd,
      CoreOp tooLongAt) {
    Map<Integer, Evidence.Candidate> candidates = new LinkedHashMap<>();
    Evidence against = null;
    for (int o : ctx.gs.outputs(root)) {
      if (undefined.contains(o) || !rootOut.found().getOrDefault(o, List.of()).isEmpty()) {
        continue;
      }
      Evidence e = numbers.search(o, false);
      if (e instanceof Evidence.Candidate c) {
        candidates.put(o, c);
      } else {
        against = e;
        break;
      }
    }
    if (against != null || candidates.isEmpty()) {
      if (atWalkEnd) {
        ChainOutputs judged = chainOutputsOnNumbers(root, rootOut);
        if (judged.taken()) {
          return new Step.Resume(ops.size());
        }
        if (comparable(judged.against()) && nothingToCompare(against)) {
          // the numbers that show the bug are the chain's output's when its first value has
          // nothing in G_d to compare with (a value no rank computes whole); numbers that did
          // not run (an operator without them) stay, and decide as they did
          against = judged.against();
          chainEnd = Math.max(chainEnd, judged.at());
        }
      }
      if (tooLongAt != null && root != tooLongAt && rootOut.missingInput() < 0) {
        judgedAtOutputs.add(root.id());
        chainChecks.remove(root.id());
        deferUnchecked(ctx.gs.outputs(tooLongAt), root);
        return new Step.Resume(ops.indexOf(tooLongAt) + 1);
      }
      return notRefined(root, failure(root, rootOut, chainEnd, against));
    }
    for (int o : ctx.gs.outputs(root)) {
      Evidence.Candidate c = candidates.get(o);
      List<CoreTerm> found =
          c != null ? List.of(c.term()) : rootOut.found().getOrDefault(o, List.of());
      ctx.relate(o, found);
      if (c != null) {
        assumptions.add(new Assumption(root.id(), o, c, rootOut.hints().get(o)));
        Set<Integer> leaves = new HashSet<>();
        c.term().leaves(leaves);
        leaves.forEach(ctx.related::set);
        if (requiredSet.contains(o) && leaves.stream().allMatch(ctx.gd::available)) {
          overOutputs.put(o, c.term());
        }
      }
    }
    assumedOutcome.put(root.id(), rootOut);
    forgetChain(root);
    return new Step.Resume(ops.indexOf(root) + 1);
  }

  /**
   * The walk would stop at {@code root} with {@code f}. With numbers that show a bug, it does
   * ({@code not-refined}). Without, when {@code root} or an operation it depends on uses an
   * operator kept opaque, nothing can tell a bug from the missing operator: the first such stop is
   * kept as the {@code unsupported} failure, and the walk resumes after {@code root} with what is
   * computed from it left unchecked. Otherwise it stops {@code not-refined}.
   */
  private Step notRefined(CoreOp root, Failure f) {
    if (f.evidence() instanceof Evidence.Witness || !(f instanceof Failure.NoCleanExpression)) {
      return stop(Verdict.NOT_REFINED, f);
    }
    Failure.Unsupported why = undecidable(root, f);
    if (why == null) {
      return stop(Verdict.NOT_REFINED, f);
    }
    if (unsupported == null) {
      unsupported = why;
    }
    unsupportedValues.addAll(ctx.gs.outputs(root));
    forgetChain(root);
    return new Step.Resume(ops.indexOf(root) + 1);
  }

  /**
   * The operation that makes a failure at {@code root} undecidable: {@code root} itself when it
   * uses an operator kept opaque; else, when the numbers could evaluate the models but not this
   * value, the nearest operation it depends on that uses one (the numbers would have told a bug
   * from a gap without it). Null otherwise: over the numeric budget, say, the failure stays {@code
   * not-refined} with why the numbers did not run.
   */
  private CoreOp opaqueBehind(CoreOp root) {
    if (OpaqueOperators.targetOf(root, gs.table()) != null) {
      return root;
    }
    return numbers.evaluated() ? OpaqueOperators.nearest(gs, root) : null;
  }

  /**
   * Why a failure at {@code root} without numbers that show a bug cannot be told from a missing
   * operator, or null when it can: an operator kept opaque in G_s ({@link #opaqueBehind}), or in
   * G_d, where the G_d values the numbers needed go through one.
   */
  private Failure.Unsupported undecidable(CoreOp root, Failure f) {
    if (f.evidence() instanceof Evidence.NotRun n && n.gdOperator() != null) {
      return new Failure.Unsupported(
          root.id(),
          n.gdOperator(),
          n.gdValue(),
          root.id(),
          f.inputs(),
          f.explored(),
          f.evidence());
    }
    CoreOp user = opaqueBehind(root);
    if (user == null) {
      return null;
    }
    String target = OpaqueOperators.targetOf(user, gs.table());
    return user == root
        ? new Failure.Unsupported(
            user.id(), target, null, root.id(), f.inputs(), f.explored(), f.evidence())
        : new Failure.Unsupported(
            user.id(), target, null, root.id(), inputRelations(user), List.of(), f.evidence());
  }

  /**
   * Stops the walk, except that a stop without numbers that show a bug comes after an earlier stop
   * at an operator kept opaque: that one is reported ({@code unsupported}), the first problem met.
   */
  private Step stop(Verdict v, Failure f) {
    if (unsupported != null && !(f.evidence() instanceof Evidence.Witness)) {
      return new Step.Stop(Verdict.UNSUPPORTED, unsupported);
    }
    return new Step.Stop(v, f);
  }

  /** Whether an operation reads a value computed from an operator kept opaque. */
  private boolean readsUnsupported(CoreOp op) {
    if (unsupportedValues.isEmpty()) {
      return false;
    }
    for (int v : op.reads()) {
      if (unsupportedValues.contains(v)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The numbers about an operation's outputs that no clean expression was found for (the first).
   */
  private Evidence evidenceAbout(CoreOp op, OperatorCheck.Outcome out) {
    for (int o : ctx.gs.outputs(op)) {
      if (!undefined.contains(o) && out.found().getOrDefault(o, List.of()).isEmpty()) {
        return numbers.search(o, false);
      }
    }
    return null;
  }

  /**
   * The root of a chain judged at its outputs ({@link #judgedAtOutputs}) that op reads, or null.
   */
  private CoreOp judgedRootRead(CoreOp op) {
    CoreOp found = null;
    for (int in : op.dependencies()) {
      CoreOp r = chainRoot.get(in);
      if (r != null && judgedAtOutputs.contains(r.id()) && (found == null || r.id() < found.id())) {
        found = r;
      }
    }
    return found;
  }

  /** Defers values into {@code root}'s chain without a search (a chain judged at its outputs). */
  private void deferUnchecked(List<Integer> outs, CoreOp root) {
    for (int o : outs) {
      ctx.deferred.add(o);
      chainRoot.put(o, root);
      chainLength.put(o, new ChainLength(MAX_CHAIN, MAX_SPAN));
    }
  }

  /**
   * Undoes the deferral of a chain whose root now has a relation: its operations are checked again.
   */
  private void forgetChain(CoreOp root) {
    List<Integer> members = new ArrayList<>();
    chainRoot.forEach(
        (v, r) -> {
          if (r == root) {
            members.add(v);
          }
        });
    for (int v : members) {
      chainRoot.remove(v);
      chainLength.remove(v);
      ctx.deferred.remove(v);
    }
    failedAt.remove(root.id());
    chainChecks.remove(root.id());
    judgedAtOutputs.remove(root.id());
  }

  /**
   * A required output whose deferred chain never mapped: the walk would stop at the chain's root.
   * Returns where the walk stopped or resumes, or {@link Step#DONE} when there is no such output.
   */
  private Step chainsEndingInOutputs() {
    for (int o : required) {
      CoreOp root = chainRoot.get(o);
      if (root != null && !unsupportedValues.contains(o)) {
        OperatorCheck.Outcome rootOut = failedAt.get(root.id());
        CoreOp last = gs.definition(o);
        return takeOnNumbersOrStop(root, rootOut, root == last ? -1 : last.id(), true, null);
      }
    }
    return Step.DONE;
  }

  /**
   * A chain that never mapped, at the walk's end, whose root no clean expression equals: its
   * intermediate values may be ones G_d never computes, as a vocabulary-parallel cross-entropy
   * never computes the log-softmax of the whole logits, only each row's log-sum-exp and target
   * logit. When every required output of the chain equals G_d's outputs as G_d lays them out (a
   * rank's value, or their concat or sum across ranks) on every draw, that is a gap in the lemmas,
   * not a bug: takes those outputs on numbers (the check is then at best {@code unproved}). When
   * one does not, or only after a transpose or reshape (blocks gathered along the wrong dim may
   * hold the right numbers in a scrambled layout), or an expectation about one does not hold on
   * numbers, nothing is taken and the failure stays at the root, with the numbers of the output or
   * expectation that differs when there are some.
   */
  private ChainOutputs chainOutputsOnNumbers(CoreOp root, OperatorCheck.Outcome rootOut) {
    Map<Integer, Evidence.Candidate> taken = new LinkedHashMap<>();
    for (int o : required) {
      if (chainRoot.get(o) != root || undefined.contains(o) || unsupportedValues.contains(o)) {
        continue;
      }
      Evidence found = numbers.search(o, true);
      if (!(found instanceof Evidence.Candidate c) || !asLaidOut(c.term())) {
        return againstChain(found, o);
      }
      for (CoreRelation.Expect e : expects.getOrDefault(o, List.of())) {
        Evidence ev = numbers.compare(o, e.gd());
        if (!(ev instanceof Evidence.Candidate)) {
          return againstChain(ev, o);
        }
      }
      taken.put(o, c);
    }
    if (taken.isEmpty()) {
      return ChainOutputs.NOT_TAKEN;
    }
    Map<Integer, Evidence.Candidate> expected = new LinkedHashMap<>();
    for (Map.Entry<Integer, List<CoreRelation.Expect>> x : expects.entrySet()) {
      int v = x.getKey();
      if (chainRoot.get(v) != root || taken.containsKey(v) || unsupportedValues.contains(v)) {
        continue; // a chain value no model output: its expectations hold on numbers, or it fails
      }
      for (CoreRelation.Expect e : x.getValue()) {
        Evidence ev = numbers.compare(v, e.gd());
        if (!(ev instanceof Evidence.Candidate c)) {
          return againstChain(ev, v);
        }
        expected.putIfAbsent(v, c);
      }
    }
    taken.forEach(
        (o, c) -> {
          overOutputs.put(o, c.term());
          assumptions.add(new Assumption(root.id(), o, c, null));
        });
    expected.forEach((v, c) -> assumptions.add(new Assumption(root.id(), v, c, null)));
    assumedOutcome.put(root.id(), rootOut);
    forgetChain(root);
    return ChainOutputs.TAKEN;
  }

  /**
   * How a chain's outputs fared on numbers ({@link #chainOutputsOnNumbers}).
   *
   * @param taken whether they were taken on numbers
   * @param against the numbers of the output or expectation that differs (a {@link
   *     Evidence.Witness}), or null
   * @param at the operation computing that value, or -1
   */
  private record ChainOutputs(boolean taken, Evidence.Witness against, int at) {
    static final ChainOutputs TAKEN = new ChainOutputs(true, null, -1);
    static final ChainOutputs NOT_TAKEN = new ChainOutputs(false, null, -1);
  }

  /** Whether evidence compares a value with a G_d expression (a witness with a closest one). */
  private static boolean comparable(Evidence e) {
    return e instanceof Evidence.Witness w && w.closest() != null;
  }

  /**
   * Whether the numbers ran and found no G_d expression of the value's size to compare with: a
   * witness either way, so taking another in its place leaves the verdict as it was.
   */
  private static boolean nothingToCompare(Evidence e) {
    return e instanceof Evidence.Witness w && w.closest() == null;
  }

  private ChainOutputs againstChain(Evidence e, int value) {
    if (!(e instanceof Evidence.Witness w)) {
      return ChainOutputs.NOT_TAKEN;
    }
    CoreOp producer = gs.definition(value);
    return new ChainOutputs(false, w, producer == null ? -1 : producer.id());
  }

  /** Whether a term is G_d values as laid out: a value, or a concat or sum across ranks of such. */
  private static boolean asLaidOut(CoreTerm t) {
    if (t.isTensor()) {
      return true;
    }
    if (t.op() != Op.CONCAT.id() && t.op() != Op.SUMN.id()) {
      return false;
    }
    return t.children().stream().allMatch(CheckRun::asLaidOut);
  }

  /** After the walk: constants, cut points, outputs over G_d's outputs, expectations. */
  private CheckResult finish() {
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
          if (leaves.stream().allMatch(ctx.gd::available) && !e.restsOnDerivedFactor()) {
            overOutputs.put(o, e);
            break;
          }
        }
      }
    }
    for (int o : required) {
      if (!overOutputs.containsKey(o) && !undefined.contains(o) && !unsupportedValues.contains(o)) {
        CoreOp producer = gs.definition(o);
        Evidence e = numbers.search(o, true);
        if (e instanceof Evidence.Candidate c) {
          overOutputs.put(o, c.term());
          assumptions.add(
              new Assumption(
                  producer == null ? -1 : producer.id(), o, c, first(ctx.relation.get(o))));
          continue;
        }
        Failure f =
            new Failure.OutputNotReturned(
                producer == null ? -1 : producer.id(),
                o,
                first(ctx.relation.get(o)),
                producer == null ? List.of() : inputRelations(producer),
                e);
        Failure.Unsupported why =
            producer == null || e instanceof Evidence.Witness ? null : undecidable(producer, f);
        if (why != null && unsupported == null) {
          unsupported = why;
        }
        Step.Stop s = (Step.Stop) stop(Verdict.NOT_REFINED, f);
        return result(s.verdict(), s.failure());
      }
    }
    Step.Stop unchecked = expectationsOfDeferred();
    if (unchecked != null) {
      return result(unchecked.verdict(), unchecked.failure());
    }
    for (CoreRelation.Expect e : violated) {
      if (unsupportedValues.contains(e.gs())) {
        continue;
      }
      Evidence ev = numbers.compare(e.gs(), e.gd());
      if (ev instanceof Evidence.Candidate c) {
        assumptions.add(
            new Assumption(violatedAt.id(), e.gs(), c, first(ctx.relation.get(e.gs()))));
        continue;
      }
      Step.Stop s =
          (Step.Stop)
              stop(
                  Verdict.EXPECTATION_VIOLATED,
                  new Failure.ExpectationViolated(
                      violatedAt.id(),
                      e,
                      first(ctx.relation.get(e.gs())),
                      inputRelations(violatedAt),
                      ev));
      return result(s.verdict(), s.failure());
    }
    if (unsupported != null) {
      return result(Verdict.UNSUPPORTED, unsupported);
    }
    if (!assumptions.isEmpty()) {
      Assumption a = assumptions.get(0);
      OperatorCheck.Outcome out = assumedOutcome.get(a.operator());
      List<Integer> explored = out == null ? List.of() : cut(out.explored());
      CoreOp op = a.operator() < 0 ? null : gs.op(a.operator());
      return result(
          Verdict.UNPROVED,
          new Failure.ProvedOnNumbers(
              a.operator(),
              a,
              op == null ? List.of() : inputRelations(op),
              explored,
              unstatedRanges(a.output())));
    }
    return result(Verdict.REFINES, null);
  }

  /**
   * The expectations about values whose chain never mapped and reached no model output (an
   * expectation is otherwise checked with its operator's outputs): each is compared on numbers,
   * taken as a step when it holds, else the check stops {@code expectation-violated}. Null when
   * every one holds.
   */
  private Step.Stop expectationsOfDeferred() {
    for (Map.Entry<Integer, List<CoreRelation.Expect>> x : expects.entrySet()) {
      int v = x.getKey();
      if (!ctx.deferred.contains(v) || unsupportedValues.contains(v) || undefined.contains(v)) {
        continue;
      }
      CoreOp producer = gs.definition(v);
      int at = producer == null ? -1 : producer.id();
      for (CoreRelation.Expect e : x.getValue()) {
        Evidence ev = numbers.compare(v, e.gd());
        if (ev instanceof Evidence.Candidate c) {
          assumptions.add(new Assumption(at, v, c, null));
          continue;
        }
        return (Step.Stop)
            stop(
                Verdict.EXPECTATION_VIOLATED,
                new Failure.ExpectationViolated(
                    at,
                    e,
                    first(ctx.relation.get(v)),
                    producer == null ? List.of() : inputRelations(producer),
                    ev));
      }
    }
    return null;
  }

  /**
   * The G_s inputs of ids upstream of G_s value {@code value} (where a step was taken on numbers)
   * that the relation states no range for, with the ranges the numbers drew.
   */
  private List<Failure.DrawnRange> unstatedRanges(int value) {
    Map<String, Failure.DrawnRange> drawn = numbers.unstatedRanges();
    if (drawn.isEmpty()) {
      return List.of();
    }
    List<Failure.DrawnRange> out = new ArrayList<>();
    BitSet seen = new BitSet();
    ArrayDeque<Integer> work = new ArrayDeque<>();
    work.add(value);
    while (!work.isEmpty()) {
      int v = work.poll();
      if (seen.get(v)) {
        continue;
      }
      seen.set(v);
      CoreOp def = gs.definition(v);
      if (def == null) {
        Failure.DrawnRange r = drawn.get(gs.value(v).name());
        if (r != null) {
          out.add(r);
        }
        continue;
      }
      for (int in : def.reads()) {
        work.add(in);
      }
    }
    return out;
  }

  private static CoreTerm first(List<CoreTerm> terms) {
    return terms == null || terms.isEmpty() ? null : terms.get(0);
  }

  private static List<Integer> cut(List<Integer> explored) {
    return explored.size() > 60 ? explored.subList(0, 60) : explored;
  }

  /**
   * Defers an operation whose outputs have no clean expression: consumers see its term instead, so
   * a chain of G_s operations that only maps as a whole (a vocabulary shard's shifted targets, say)
   * is checked as a chain. Refused past {@link #MAX_CHAIN} operations (layout operations not
   * counted) or {@link #MAX_SPAN} (counted; past {@link #MAX_CHAIN} only on a small e-graph).
   */
  private boolean defer(
      CoreOp op, List<Integer> outs, OperatorCheck.Outcome out, OperatorCheck check) {
    int length = 1;
    int span = 1;
    int step = op.steps().layoutOnly() ? 0 : 1;
    CoreOp root = rootOf(op);
    for (int in : op.reads()) {
      if (chainRoot.containsKey(in)) {
        ChainLength before = chainLength.get(in);
        length = Math.max(length, before.computing() + step);
        span = Math.max(span, before.all() + 1);
      }
    }
    if (length > MAX_CHAIN
        || span > MAX_SPAN
        || (span > MAX_CHAIN && check.nodeCount() > LONG_CHAIN_NODES)
        || (root != op && check.nodeCount() > MAX_CHAIN_NODES)) {
      return false;
    }
    if (root == op) {
      failedAt.put(op.id(), out);
    }
    if (check.continuable()) {
      chainChecks.put(root.id(), check);
    } else {
      chainChecks.remove(root.id());
    }
    for (int o : outs) {
      ctx.deferred.add(o);
      chainRoot.put(o, root);
      chainLength.put(o, new ChainLength(length, span));
    }
    return true;
  }

  /**
   * The check an operation goes on from: when it reads deferred values of an open chain, the check
   * of that chain's last operation (of the first such chain, in the order of its reads, where two
   * chains meet: the other's terms are built into that e-graph); else null (a fresh e-graph).
   */
  private OperatorCheck chainCheck(CoreOp op) {
    if (!ctx.options.chainsGoOn()) {
      return null;
    }
    for (int in : op.reads()) {
      CoreOp r = chainRoot.get(in);
      OperatorCheck c = r == null ? null : chainChecks.get(r.id());
      if (c != null) {
        return c;
      }
    }
    return null;
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

  private Failure failure(CoreOp op, OperatorCheck.Outcome out, int chainEnd, Evidence evidence) {
    List<Integer> explored = cut(out.explored());
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
        op.id(), outs.size(), terms, out.limit(), chainEnd, inputs, explored, evidence);
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
    if (v == Verdict.REFINES
        && (rel.size() + notChecked.size() < required.size()
            || !assumptions.isEmpty()
            || expects.keySet().stream().anyMatch(ctx.deferred::contains))) {
      throw new IllegalStateException("refines without a complete, proved output relation");
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
        List.copyOf(assumptions),
        new CheckResult.Stats(ctx.gs.operators.size(), ctx.gd.program.callCount(), secs, fired));
  }
}
