package dev.entangle.refine;

import dev.entangle.core.CoreOp;
import dev.entangle.core.CoreRelation;
import dev.entangle.core.CoreTerm;
import dev.entangle.core.CoreValue;
import dev.entangle.core.Op;
import dev.entangle.core.Steps;
import dev.entangle.core.TermBuilder;
import dev.entangle.core.TypeInfo;
import dev.entangle.core.ValueKind;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import dev.entangle.egraph.Extractor;
import dev.entangle.egraph.Journal;
import dev.entangle.egraph.RunReport;
import dev.entangle.egraph.Runner;
import dev.entangle.egraph.StopReason;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Computes R_v for one G_s operation v (the paper's Listing 2 with Listing 3's exploration):
 *
 * <ol>
 *   <li>a fresh e-graph holds v's term over its inputs, each input being the union of the clean G_d
 *       terms R relates it to;
 *   <li>lemmas saturate it;
 *   <li>G_d values are brought in with their definitions when every dependency is in T_rel (the G_d
 *       tensors that expressions of v's inputs, outputs and sub-terms use), related by R to an
 *       earlier G_s value and a few steps above T_rel, constant, or itself brought in a few steps
 *       before; T_rel grows with the tensors those expressions then reach; 2 and 3 repeat until
 *       nothing new comes in;
 *   <li>the cheapest clean expressions of each output are R_v ({@link CleanAlternatives}).
 * </ol>
 *
 * Everything an e-class holds is equal to it: R (by induction), lemmas (assumed sound) and G_d's
 * own definitions are the only sources of equalities, so what is extracted is a certificate.
 */
final class OperatorCheck {
  /**
   * What the check found.
   *
   * @param undefined the outputs that have no defined value
   * @param found per output, its clean expressions (cheapest first; none when not found)
   * @param overOutputs per required output, a clean expression over G_d's outputs (and inputs)
   * @param limit the limit that ended the search ({@link StopReason#isLimit}), or null when none
   *     did
   * @param missingInput an input related to no G_d tensor (the check did not run), or -1
   * @param explored the G_d values brought in, in order
   * @param hints per output without a clean expression, what it equals in G_d's terms
   * @param violated the expectations on the outputs that were not proved
   * @param nodes e-nodes of the e-graph
   * @param cleanLeaves the G_d tensors the outputs' clean expressions use
   * @param learned groups of G_d terms the e-graph proved equal, for later operations
   */
  record Outcome(
      Set<Integer> undefined,
      Map<Integer, List<CoreTerm>> found,
      Map<Integer, CoreTerm> overOutputs,
      StopReason limit,
      int missingInput,
      List<Integer> explored,
      Map<Integer, CoreTerm> hints,
      List<CoreRelation.Expect> violated,
      int nodes,
      Set<Integer> cleanLeaves,
      List<List<CoreTerm>> learned) {
    /** The check could not start: {@code input} is related to no G_d tensor. */
    static Outcome missingInput(int input, int nodes) {
      return new Outcome(
          Set.of(), Map.of(), Map.of(), null, input, List.of(), Map.of(), List.of(), nodes,
          Set.of(), List.of());
    }

    /**
     * The operation's one output is one of its inputs: it is related to that input's terms {@code
     * relation}, whose G_d tensors are {@code leaves}; nothing was searched.
     */
    static Outcome sameAsInput(
        int output, List<CoreTerm> relation, Set<Integer> leaves, int nodes) {
      return new Outcome(
          Set.of(),
          Map.of(output, relation),
          Map.of(),
          null,
          -1,
          List.of(),
          Map.of(),
          List.of(),
          nodes,
          leaves,
          List.of());
    }

    boolean mapped(List<Integer> outputs) {
      for (int o : outputs) {
        if (!undefined.contains(o) && found.getOrDefault(o, List.of()).isEmpty()) {
          return false;
        }
      }
      return missingInput < 0;
    }

    boolean limited() {
      return limit != null;
    }
  }

  /**
   * How far past T_rel exploration follows values computed from related tensors alone, in steps
   * that compute or lay out; a step that only views ids or a mask in another shape counts none
   * ({@link GdModel#indexView}).
   */
  static final int MAX_DEPTH = 8;

  /** How far above T_rel a related G_d value may lie for exploration to build on it. */
  static final int UPSTREAM_STEPS = 3;

  /** How many producers above v's inputs its e-graph includes (context for lemmas). */
  static final int CONTEXT_DEPTH = 1;

  /**
   * A chain goes on in an e-graph ({@link #continuable}) while it holds at most this share of the
   * node and exploration limits.
   */
  static final int CONTINUE_SHARE = 8;

  private final Context ctx;
  // the four below change when a later operation of a deferred chain goes on here (continueWith)
  private StateReads reads;
  private CheckListener listener;
  private int[] fired;
  private CoreOp op;
  private final EGraph<TypeInfo> g;
  private final EGraphBuilder b;
  private final GdTerms gdTerms;
  private final Map<Integer, Integer> inputClasses = new LinkedHashMap<>();
  private final OrderedIdSet trel = new OrderedIdSet();
  private final Set<Integer> equalitiesAdded = new HashSet<>();
  private SparseIds equalitiesLookedUp = new SparseIds();

  /** The G_d values brought in, in order. */
  private final List<Integer> broughtIn = new ArrayList<>();

  /** The values {@link #broughtIn}, each with its distance from T_rel (the members: the keys). */
  private final SparseIds broughtInDepth = new SparseIds();

  /**
   * Users {@link #bringIn} refused because a dependency was out of view, each with that dependency:
   * while it stays out of view the user is refused again without reading its other dependencies (an
   * all-gather's output over 16 ranks is a user of each of the 16).
   */
  private final SparseIds refusedFor = new SparseIds();

  /**
   * Users {@link #bringIn} last refused (value 1) because they read only related values near T_rel,
   * none in T_rel or brought in. Only a dependency joining T_rel or the brought-in changes that,
   * and such a dependency is queued and looks at the user again; so a look from a value that is
   * neither refuses it at once (an all-reduce over 16 ranks of values near T_rel is a user of each
   * of them).
   */
  private final SparseIds apart = new SparseIds();

  /**
   * The G_d values at most {@link #UPSTREAM_STEPS} dependency steps above T_rel, each with its
   * fewest steps ({@link #upstreamOfTrel}); grown as T_rel grows.
   */
  private final SparseIds near = new SparseIds();

  /** How many members of T_rel (the first, in order) {@link #near} has looked above. */
  private int trelAbove;

  /** Values that became {@link #near} since {@link #bringIn} last looked. */
  private final List<Integer> nearAdded = new ArrayList<>();

  /**
   * How many members of T_rel (the first, in order) {@link #bringIn} has looked at the users of.
   */
  private int trelLookedAt;

  /** Every value {@link #bringIn} has queued for this operator, in order ({@link #hotUsers}). */
  private int[] queued = new int[16];

  private int queuedCount;

  /** How many users the queued values that are not hot have, together. */
  private long queuedColdUsers;

  /** G_s terms already built, by operation id and depth. */
  private final Map<Long, int[]> produced = new HashMap<>();

  /** A check that reads the context directly and reports to its listener. */
  OperatorCheck(Context ctx, CoreOp op) {
    this(ctx, op, StateReads.direct(ctx), ctx.listener, ctx.fired);
  }

  /**
   * A check that reads the context through {@code reads}, reports its saturations to {@code
   * listener} and counts the lemmas that fired into {@code fired}.
   */
  OperatorCheck(Context ctx, CoreOp op, StateReads reads, CheckListener listener, int[] fired) {
    this.ctx = ctx;
    this.reads = reads;
    this.listener = listener;
    this.fired = fired;
    this.op = op;
    this.g = new EGraph<>(ctx.analysis);
    if (ctx.replays) {
      g.keepJournal(new Journal(Context.NAMING_OPS));
    }
    this.b = new EGraphBuilder(g, ctx.ranges);
    this.gdTerms = new GdTerms(ctx.gd, b);
  }

  /** How many e-nodes this check's e-graph holds. */
  int nodeCount() {
    return g.nodeCount();
  }

  /**
   * Whether a later operation of the same deferred chain may be checked on this e-graph ({@link
   * #continueWith}): it is well within the node and exploration limits, so that going on here is
   * unlikely to reach a limit that a fresh e-graph of the chain would not. Past that share the
   * chain's next operation starts a fresh e-graph.
   */
  boolean continuable() {
    return g.nodeCount() <= ctx.options.nodeLimit() / CONTINUE_SHARE
        && broughtIn.size() <= ctx.options.exploreLimit() / CONTINUE_SHARE;
  }

  /**
   * Makes this the check of {@code next}, an operation that reads the outputs of a deferred chain
   * this check's operation belongs to, on the e-graph as this check left it: it already holds the
   * chain's terms, saturated, and the G_d values brought in for them, so the lemmas search only
   * what {@code next} adds (the runner's incremental search) instead of deriving the chain again on
   * a fresh e-graph. Everything the e-graph holds stays equal to its class, so what is extracted is
   * a certificate as before. What R relates and the equalities learned may have grown since:
   * exploration looks at all of T_rel and its neighbourhood again. Reads the context directly and
   * reports to the context's listener from now on (the walk's thread goes on here).
   */
  OperatorCheck continueWith(CoreOp next) {
    this.op = next;
    this.reads = StateReads.direct(ctx);
    this.listener = ctx.listener;
    this.fired = ctx.fired;
    this.trelLookedAt = 0;
    this.nearAdded.clear();
    for (int d : near.ascending()) {
      nearAdded.add(d);
    }
    this.equalitiesLookedUp = new SparseIds();
    return this;
  }

  private static final class MissingRelation extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final int value;

    MissingRelation(int value) {
      super("missing relation", null, false, false);
      this.value = value;
    }
  }

  Outcome run(List<Integer> outputs, List<CoreRelation.Expect> expects, boolean required) {
    RecordingBuilder rb = new RecordingBuilder(b);
    int[] outs;
    try {
      outs = ctx.gs.program.replay(op, new GsInputs(rb, CONTEXT_DEPTH, true), rb);
    } catch (MissingRelation m) {
      return Outcome.missingInput(m.value, g.nodeCount());
    }
    Map<Integer, Integer> outClass = new LinkedHashMap<>();
    List<Integer> termClasses = new ArrayList<>(rb.handles);
    termClasses.addAll(inputClasses.values());
    for (int o : outputs) {
      int h = outs[ctx.gs.program.value(o).item()];
      outClass.put(o, h);
      termClasses.add(h);
    }
    Outcome same = identity(outputs, outClass, expects, required);
    if (same != null) {
      return same;
    }
    Map<CoreRelation.Expect, Integer> expectClass = new HashMap<>();
    for (CoreRelation.Expect e : expects) {
      expectClass.put(e, e.gd().add(b));
    }
    StopReason limit = explore(termClasses, ctx.saturations.first);
    Extraction x = new Extraction(required);
    Saturations.Stage second = ctx.saturations.second;
    if (second != null
        && continues(limit)
        && !settled(x, outputs, outClass, expects, expectClass)) {
      limit = explore(termClasses, second);
      x = new Extraction(required);
    }
    return outcome(x, outputs, outClass, expects, expectClass, limit);
  }

  /**
   * The cheapest clean term of every class, and over G_d's outputs only when the outputs are {@code
   * required}, at one moment of the e-graph.
   */
  private final class Extraction {
    final Extractor clean;
    final Extractor outputsOnly;

    Extraction(boolean required) {
      clean = new Extractor(g, CleanCost.clean(id -> true));
      outputsOnly = required ? new Extractor(g, CleanCost.overOutputs(ctx.gd::available)) : null;
    }
  }

  /**
   * Whether nothing is left to prove: every output is undefined or has a clean expression (over
   * G_d's outputs when {@code required}), and every expectation holds. Asked before the outcome's
   * terms, hints and learned equalities are built, which a second stage would make again.
   */
  private boolean settled(
      Extraction x,
      List<Integer> outputs,
      Map<Integer, Integer> outClass,
      List<CoreRelation.Expect> expects,
      Map<CoreRelation.Expect, Integer> expectClass) {
    for (int o : outputs) {
      int c = outClass.get(o);
      boolean proved =
          x.clean.bestNode(c) != null
              && (x.outputsOnly == null || x.outputsOnly.bestNode(c) != null);
      if (!proved && !g.holds(c, Op.UNDEF.id())) {
        return false;
      }
    }
    for (CoreRelation.Expect e : expects) {
      if (g.find(expectClass.get(e)) != g.find(outClass.get(e.gs()))) {
        return false;
      }
    }
    return true;
  }

  /** Whether exploring on may find more after a stage that ended with {@code limit}. */
  private static boolean continues(StopReason limit) {
    return limit == null || limit instanceof StopReason.IterationLimit;
  }

  /** What the e-graph shows now: each output's clean expressions, hints, expectations. */
  private Outcome outcome(
      Extraction x,
      List<Integer> outputs,
      Map<Integer, Integer> outClass,
      List<CoreRelation.Expect> expects,
      Map<CoreRelation.Expect, Integer> expectClass,
      StopReason limit) {
    Extractor clean = x.clean;
    Map<Integer, List<CoreTerm>> found = new HashMap<>();
    Map<Integer, CoreTerm> overOutputs = new HashMap<>();
    Extractor outputsOnly = x.outputsOnly;
    Map<Integer, CoreTerm> hints = new HashMap<>();
    Extractor explain = null;
    for (int o : outputs) {
      int c = outClass.get(o);
      List<CoreTerm> alts = CleanAlternatives.of(g, clean, c, ctx.options.alternatives());
      found.put(o, alts);
      if (outputsOnly != null && outputsOnly.bestNode(c) != null) {
        overOutputs.put(o, CoreTerm.of(outputsOnly.extract(c)));
      }
      if (alts.isEmpty()) {
        explain = explain != null ? explain : new Extractor(g, CleanCost.explain());
        if (explain.bestNode(c) != null) {
          hints.put(o, CoreTerm.of(explain.extract(c)));
        }
      }
    }
    List<CoreRelation.Expect> violated = new ArrayList<>();
    for (CoreRelation.Expect e : expects) {
      if (g.find(expectClass.get(e)) != g.find(outClass.get(e.gs()))) {
        violated.add(e);
      }
    }
    Set<Integer> undefined = new HashSet<>();
    for (int o : outputs) {
      if (g.holds(outClass.get(o), Op.UNDEF.id())) {
        undefined.add(o);
      }
    }
    Set<Integer> cleanLeaves = new HashSet<>();
    leaves(new ArrayList<>(outClass.values()), false, cleanLeaves);
    List<Integer> learnFrom = new ArrayList<>(outClass.values());
    learnFrom.addAll(inputClasses.values());
    List<List<CoreTerm>> learned = EqualityLearner.candidates(ctx, g, learnFrom);
    return new Outcome(
        undefined,
        found,
        overOutputs,
        limit,
        -1,
        new ArrayList<>(broughtIn),
        hints,
        violated,
        g.nodeCount(),
        cleanLeaves,
        learned);
  }

  /**
   * The fast path for an operation that is the identity on one of its inputs (clone, detach, a
   * copy, a collective in G_s): its output is that input, so R relates it to the same terms and no
   * e-graph work is needed. Not taken when the output is required or has an expectation, which need
   * the full check.
   */
  private Outcome identity(
      List<Integer> outputs,
      Map<Integer, Integer> outClass,
      List<CoreRelation.Expect> expects,
      boolean required) {
    if (required || !expects.isEmpty() || outputs.size() != 1) {
      return null;
    }
    g.rebuild();
    int out = g.find(outClass.get(outputs.get(0)));
    for (var in : inputClasses.entrySet()) {
      List<CoreTerm> rel = reads.relation(in.getKey());
      if (g.find(in.getValue()) == out && rel != null && !rel.isEmpty()) {
        Set<Integer> leaves = new HashSet<>();
        rel.forEach(e -> e.leaves(leaves));
        return Outcome.sameAsInput(outputs.get(0), rel, leaves, g.nodeCount());
      }
    }
    return null;
  }

  /**
   * A G_d output equal to a G_s value computed from constants alone (a counter initialized to zero,
   * say): both terms are built in one e-graph and compared; null when none is equal.
   */
  static CoreTerm matchConstant(Context ctx, int constant) {
    OperatorCheck check = new OperatorCheck(ctx, null);
    RecordingBuilder rb = new RecordingBuilder(check.b);
    int cls = check.new GsInputs(rb, 0, false).of(constant);
    List<Integer> outputs = new ArrayList<>();
    for (int id = 0; id < ctx.gd.size(); id++) {
      if (ctx.gd.output[id] && ctx.gd.constant[id] && !ctx.gd.undefined[id]) {
        outputs.add(id);
        check.g.union(check.gdTerms.leaf(id), check.gdTerms.operand(id));
      }
    }
    check.g.rebuild();
    for (ENode n : check.g.nodes(cls)) {
      if (n.op() == Op.TENSOR.id()) {
        return CoreTerm.tensor((int) n.attr(0));
      }
    }
    // else a G_d constant output of the same type known to hold the same single value (a sum of
    // ones G_d all-gathers first, say)
    TypeInfo want = check.g.data(cls);
    if (want.constant() == null) {
      return null;
    }
    for (int id : outputs) {
      if (want.equals(check.g.data(check.gdTerms.leaf(id)))) {
        return CoreTerm.tensor(id);
      }
    }
    return null;
  }

  /**
   * v's inputs, as classes: the union of the clean terms R relates each to; constants as their
   * terms; and, up to a depth, the input's own G_s term over its inputs (true by definition, and
   * the context lemmas need to see, e.g., that two masks test one tensor). A deferred value (one
   * whose operation found no clean expression) is always its term.
   */
  private final class GsInputs implements Steps.Refs {
    private final RecordingBuilder rb;
    private final int depth;
    private final boolean top;

    GsInputs(RecordingBuilder rb, int depth, boolean top) {
      this.rb = rb;
      this.depth = depth;
      this.top = top;
    }

    @Override
    public int of(int v) {
      Integer c = top ? inputClasses.get(v) : null;
      if (c != null) {
        return c;
      }
      CoreValue value = ctx.gs.program.value(v);
      if (value.kind().inlined()) {
        return constant(value);
      }
      int cls = -1;
      List<CoreTerm> terms = reads.relation(v);
      for (CoreTerm e : terms != null ? terms : List.<CoreTerm>of()) {
        int x = e.add(b);
        e.leaves(trel);
        cls = cls < 0 ? x : unionNow(cls, x);
      }
      if (reads.deferred(v)) {
        int p = produce(value, depth);
        cls = cls < 0 ? p : unionNow(cls, p);
      } else if (depth > 0 && value.kind() == ValueKind.COMPUTED && cls >= 0) {
        try {
          cls = unionNow(cls, produce(value, depth - 1));
        } catch (MissingRelation e) {
          // context is optional: without its inputs' relations the producer is left out
        }
      }
      if (cls < 0) {
        throw new MissingRelation(v);
      }
      if (top) {
        inputClasses.put(v, cls);
      }
      return cls;
    }

    /** A constant or undefined value: its term (a recorded attribute's term is not context). */
    private int constant(CoreValue value) {
      CoreOp def = ctx.gs.program.op(value.op());
      if (!def.call()) {
        return ctx.gs.program.replay(def, this, b)[0];
      }
      return produce(value, depth);
    }

    /** The G_s term of a value over its inputs at the given depth. */
    private int produce(CoreValue value, int d) {
      return lowerOp(ctx.gs.program.op(value.op()), d)[value.item()];
    }

    private int[] lowerOp(CoreOp def, int d) {
      long key = ((long) def.id() << 8) | d;
      int[] cached = produced.get(key);
      if (cached != null) {
        return cached;
      }
      int[] out = ctx.gs.program.replay(def, new GsInputs(rb, d, false), rb);
      produced.put(key, out);
      return out;
    }
  }

  private int unionNow(int a, int c) {
    g.union(a, c);
    g.rebuild();
    return g.find(a);
  }

  /**
   * Steps 2 and 3, repeated until no G_d value is left to bring in. Returns the limit hit (the last
   * saturation's iteration limit, which does not end exploration, or the one that did), or null.
   */
  private StopReason explore(List<Integer> termClasses, Saturations.Stage stage) {
    StopReason limited = null;
    while (true) {
      RunReport report = saturate(stage);
      listener.saturated(op, report, g.nodeCount(), g.classCount(), broughtIn.size());
      stage.count(report, fired);
      if (report.stopReason().isLimit()) {
        limited = report.stopReason();
        if (!(limited instanceof StopReason.IterationLimit)) {
          return limited;
        }
      }
      growRelated(termClasses);
      int added = bringIn();
      added += addEqualities();
      if (added == 0) {
        return limited;
      }
      if (broughtIn.size() > ctx.options.exploreLimit() || System.nanoTime() > ctx.deadline) {
        saturate(stage);
        return broughtIn.size() > ctx.options.exploreLimit()
            ? new StopReason.ExplorationLimit(ctx.options.exploreLimit())
            : StopReason.TIME_LIMIT;
      }
    }
  }

  /** Runs the lemmas to saturation or a limit, or replays an alike run ({@link Context}). */
  private RunReport saturate(Saturations.Stage stage) {
    return stage.run(g, limits());
  }

  private Runner.Limits limits() {
    return new Runner.Limits(
        ctx.options.iterationLimit(), ctx.options.nodeLimit(), ctx.deadline, 20_000);
  }

  /**
   * T_rel gains the G_d values that expressions of v's inputs, outputs and sub-terms use: through
   * clean nodes always, through other nodes only down to the first class that is a G_d tensor (so
   * what G_d computed that tensor from is not pulled in).
   */
  private void growRelated(List<Integer> roots) {
    leaves(roots, true, trel);
  }

  /**
   * Collects the G_d values reachable from the roots through clean nodes, and, when {@code
   * throughOpen}, also through other nodes of classes that hold no G_d value.
   */
  private void leaves(List<Integer> roots, boolean throughOpen, Set<Integer> out) {
    BitSet seen = new BitSet();
    ArrayList<Integer> stack = new ArrayList<>();
    for (int r : roots) {
      stack.add(g.find(r));
    }
    while (!stack.isEmpty()) {
      int c = stack.remove(stack.size() - 1);
      if (seen.get(c)) {
        continue;
      }
      seen.set(c);
      boolean hasLeaf = false;
      for (ENode n : g.nodes(c)) {
        if (n.op() == Op.TENSOR.id()) {
          out.add((int) n.attr(0));
          hasLeaf = true;
        }
      }
      for (ENode n : g.nodes(c)) {
        if (n.op() != Op.TENSOR.id() && (CleanCost.isClean(n) || (throughOpen && !hasLeaf))) {
          for (int i = 0; i < n.arity(); i++) {
            stack.add(g.find(n.child(i)));
          }
        }
      }
    }
  }

  /**
   * Adds every unexplored G_d value (a user of T_rel or of what was brought in) whose dependencies
   * are all in T_rel, constant, related by R to some G_s value (a G_d input, or a computed value
   * near T_rel: {@link #upstreamOfTrel}), or themselves brought in at most {@link #MAX_DEPTH} steps
   * (views aside) away from related values (Listing 2's "expressible using T_rel", bounded): a
   * chain G_d computes from related tensors alone, such as a vocabulary shard's mask, shift and
   * lookup, is brought in whole, so lemmas can recognize it.
   *
   * <p>Each call looks only at the users of what changed since the last: new members of T_rel, new
   * related values near it, and what it brings in. A user none of whose dependencies changed was
   * refused before and would be again (T_rel, the values near it and those brought in only grow,
   * and distances only shrink). So a value every layer reads (a rotary table's slice) has its
   * thousands of users looked at once per operator, not once per exploration step.
   */
  private int bringIn() {
    int added = 0;
    upstreamOfTrel();
    ArrayDeque<Integer> work = new ArrayDeque<>();
    List<Integer> trelInOrder = trel.inOrder();
    for (int t : trelInOrder.subList(trelLookedAt, trelInOrder.size())) {
      queue(work, t);
    }
    trelLookedAt = trelInOrder.size();
    nearAdded.sort(null);
    for (int d : nearAdded) {
      if (!trel.has(d) && reads.related(d)) {
        queue(work, d);
      }
    }
    nearAdded.clear();
    while (!work.isEmpty() && broughtIn.size() <= ctx.options.exploreLimit()) {
      int t = work.poll();
      boolean fromExplored = trel.has(t) || broughtInDepth.has(t);
      for (int u : ctx.gd.hot(t) ? hotUsers(t) : ctx.gd.users(t)) {
        if (ctx.gd.constant[u]) {
          continue;
        }
        int before = broughtInDepth.value(u);
        int step = ctx.gd.indexView(u) ? 0 : 1;
        if (before == step) {
          continue; // as near as it can be
        }
        if (!fromExplored && apart.value(u) == 1) {
          continue;
        }
        int blocker = refusedFor.value(u);
        if (blocker >= 0 && depthOf(blocker) < 0) {
          continue;
        }
        int depth = 0;
        boolean explored = false;
        for (int d : ctx.gd.deps(u)) {
          int dd = depthOf(d);
          if (dd < 0) {
            depth = -1;
            refusedFor.put(u, d);
            break;
          }
          depth = Math.max(depth, dd);
          explored |= trel.has(d) || broughtInDepth.has(d);
        }
        apart.put(u, depth >= 0 && !explored ? 1 : 0);
        if (before >= 0) {
          // brought in farther away before: a value T_rel gained since is nearer, and so are the
          // users beyond it that the old distance refused
          if (depth >= 0 && depth + step < before) {
            broughtInDepth.put(u, depth + step);
            queue(work, u);
          }
          continue;
        }
        // a user only of related values near T_rel is not one of T_rel's or the brought-in's
        if (depth < 0 || depth + step > MAX_DEPTH || !explored) {
          continue;
        }
        broughtIn.add(u);
        broughtInDepth.put(u, depth + step);
        g.union(gdTerms.leaf(u), gdTerms.definition(u));
        added++;
        queue(work, u);
      }
    }
    if (added > 0) {
      g.rebuild();
    }
    return added;
  }

  private void queue(ArrayDeque<Integer> work, int v) {
    work.add(v);
    if (queuedCount == queued.length) {
      queued = Arrays.copyOf(queued, 2 * queuedCount);
    }
    queued[queuedCount++] = v;
    if (!ctx.gd.hot(v)) {
      queuedColdUsers += ctx.gd.users(v).length;
    }
  }

  /**
   * The users of a hot value ({@link GdModel#hot}) that {@link #bringIn} may bring in now,
   * ascending as {@link GdModel#users} are: those that read no other computed value but hot ones
   * ({@link GdModel#directUsers}), and those that read a value queued for this operator. Any other
   * user reads a computed value not in view (every computed value in view is queued: T_rel, the
   * related values near it, what was brought in), which {@link #bringIn} would refuse; so a table
   * every layer reads has its few users near the operator looked at, not its users in every layer.
   * All its users when looking through the queued values' users would take longer.
   */
  private int[] hotUsers(int t) {
    int[] all = ctx.gd.users(t);
    if (queuedColdUsers >= all.length) {
      return all;
    }
    int[] direct = ctx.gd.directUsers(t);
    int[] out = Arrays.copyOf(direct, direct.length + (int) queuedColdUsers);
    int k = direct.length;
    for (int i = 0; i < queuedCount; i++) {
      int v = queued[i];
      if (v == t || ctx.gd.hot(v)) {
        continue;
      }
      for (int u : ctx.gd.users(v)) {
        if (reads(u, t)) {
          out[k++] = u;
        }
      }
    }
    Arrays.sort(out, 0, k);
    return GdModel.sortedDistinct(Arrays.copyOf(out, k), -1);
  }

  private boolean reads(int u, int t) {
    for (int d : ctx.gd.deps(u)) {
      if (d == t) {
        return true;
      }
    }
    return false;
  }

  /**
   * The G_d values at most {@link #UPSTREAM_STEPS} dependency steps above T_rel: the only related
   * computed values (besides T_rel's own) that exploration may build on; related inputs it may
   * always use. Without this bound a tensor every layer reads (a rotary table) would draw in every
   * earlier layer's related values, and each operator's work would grow with the model's depth.
   */
  private void upstreamOfTrel() {
    List<Integer> trelInOrder = trel.inOrder();
    for (int t : trelInOrder.subList(trelAbove, trelInOrder.size())) {
      above(t, 0);
    }
    trelAbove = trelInOrder.size();
  }

  /**
   * Adds the dependencies of {@code x}, {@code steps} steps above T_rel, to {@link #near}, and
   * theirs, up to {@link #UPSTREAM_STEPS}; a value already near by more steps is near by fewer now,
   * and so may be what is above it.
   */
  private void above(int x, int steps) {
    if (steps == UPSTREAM_STEPS) {
      return;
    }
    for (int d : ctx.gd.deps(x)) {
      int before = near.value(d);
      if (before < 0 || before > steps + 1) {
        near.put(d, steps + 1);
        if (before < 0) {
          nearAdded.add(d);
        }
        above(d, steps + 1);
      }
    }
  }

  /**
   * How many steps a value is from T_rel: 0 in T_rel, constant, or related and either a G_d input
   * or {@link #near}; -1 none of these and not brought in.
   */
  private int depthOf(int d) {
    if (trel.has(d)
        || ctx.gd.constant[d]
        || ((near.has(d) || ctx.gd.input(d)) && reads.related(d))) {
      return 0;
    }
    return broughtInDepth.value(d);
  }

  /**
   * Adds the known G_d equalities ({@link GdEqualities}) that read a tensor the check has in view:
   * one in T_rel or brought in.
   */
  private int addEqualities() {
    List<Integer> candidates = new ArrayList<>();
    for (int l : trel) {
      lookAt(l, candidates);
    }
    for (int l : broughtIn) {
      lookAt(l, candidates);
    }
    int added = 0;
    for (int i : candidates) {
      if (!equalitiesAdded.add(i)) {
        continue;
      }
      List<CoreTerm> group = ctx.equalities.group(i);
      int first = group.get(0).add(b);
      for (CoreTerm e : group.subList(1, group.size())) {
        g.union(first, e.add(b));
        e.leaves(trel);
      }
      group.get(0).leaves(trel);
      added++;
    }
    if (added > 0) {
      g.rebuild();
    }
    return added;
  }

  private void lookAt(int leaf, List<Integer> candidates) {
    if (equalitiesLookedUp.add(leaf)) {
      candidates.addAll(reads.touching(leaf));
    }
  }

  /**
   * Passes terms to another builder and remembers every handle it returned (the terms v's lowering
   * built).
   */
  private static final class RecordingBuilder implements TermBuilder {
    private final TermBuilder inner;
    final List<Integer> handles = new ArrayList<>();

    RecordingBuilder(TermBuilder inner) {
      this.inner = inner;
    }

    @Override
    public int add(int op, long[] attrs, int... children) {
      int h = inner.add(op, attrs, children);
      handles.add(h);
      return h;
    }

    @Override
    public TypeInfo type(int handle) {
      return inner.type(handle);
    }
  }
}
