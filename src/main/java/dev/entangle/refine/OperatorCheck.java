package dev.entangle.refine;

import dev.entangle.collectives.CollectiveLowering;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import dev.entangle.egraph.Extractor;
import dev.entangle.egraph.RunReport;
import dev.entangle.egraph.Runner;
import dev.entangle.egraph.StopReason;
import dev.entangle.graph.Node;
import dev.entangle.ops.AtenNormalizer;
import dev.entangle.ops.Op;
import dev.entangle.ops.TypeInfo;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Computes R_v for one G_s operator v (the paper's Listing 2 with Listing 3's exploration):
 *
 * <ol>
 *   <li>a fresh e-graph holds v's term over its inputs, each input being the union of the clean
 *       G_d expressions R relates it to;
 *   <li>lemmas saturate it;
 *   <li>G_d values are brought in with their definitions when every dependency is in T_rel (the
 *       G_d tensors that expressions of v's inputs, outputs and sub-terms use), related by R to
 *       an earlier G_s value, constant, or itself brought in a few steps before; T_rel grows with
 *       the tensors those expressions then reach; 2 and 3 repeat until nothing new comes in;
 *   <li>the cheapest clean expressions of each output are R_v ({@link CleanAlternatives}).
 * </ol>
 *
 * Everything an e-class holds is equal to it: R (by induction), lemmas (assumed sound) and G_d's
 * own definitions are the only sources of equalities, so what is extracted is a certificate.
 */
final class OperatorCheck {
  /** An expectation to check on one of v's outputs. */
  record Expect(String gs, GdExpr gd, String text) {}

  /** What the check found. */
  record Outcome(
      Set<String> undefined,
      Map<String, List<GdExpr>> found,
      Map<String, GdExpr> overOutputs,
      boolean limited,
      String missingInput,
      List<String> explored,
      Map<String, String> hints,
      List<Expect> violated,
      int nodes,
      Set<Integer> cleanLeaves) {
    boolean mapped(List<Node> outputs) {
      for (Node o : outputs) {
        if (!undefined.contains(o.name()) && found.getOrDefault(o.name(), List.of()).isEmpty()) {
          return false;
        }
      }
      return missingInput == null;
    }
  }

  /** Set ENTANGLE_TRACE=1 to print every saturation's outcome to stderr (for lemma authors). */
  private static final boolean TRACE = System.getenv("ENTANGLE_TRACE") != null;

  private final Context ctx;
  private final Node op;
  private final EGraph<TypeInfo> g;
  private final EGraphBuilder b;
  private final GdTerms gdTerms;
  private final Map<String, Integer> inputClasses = new HashMap<>();
  private final Set<Integer> trel = new LinkedHashSet<>();
  private final Set<Integer> equalitiesAdded = new HashSet<>();
  private final BitSet equalitiesLookedUp = new BitSet();
  /** The G_d values brought in, in order, with their distance from T_rel. */
  private final Map<Integer, Integer> broughtIn = new java.util.LinkedHashMap<>();

  /** How far past T_rel exploration follows values computed from related tensors alone. */
  static final int MAX_DEPTH = 8;

  OperatorCheck(Context ctx, Node op) {
    this.ctx = ctx;
    this.op = op;
    this.g = new EGraph<>(ctx.analysis);
    this.b = new EGraphBuilder(g);
    this.gdTerms = new GdTerms(ctx.gd, ctx.normalizer, b);
  }

  private static final class MissingRelation extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final String name;

    MissingRelation(String name) {
      super(name, null, false, false);
      this.name = name;
    }
  }

  Outcome run(List<Node> outputs, List<Expect> expects, boolean required) {
    RecordingBuilder rb = new RecordingBuilder(b);
    int[] outs;
    try {
      AtenNormalizer.Inputs in = gsInputs(rb);
      String same = CollectiveLowering.singleRankInput(op);
      outs = same != null ? in.of(same) : ctx.normalizer.lower(op, in, rb);
    } catch (MissingRelation m) {
      return new Outcome(Set.of(), Map.of(), Map.of(), false, m.name, List.of(), Map.of(), List.of(), g.nodeCount(),
          Set.of());
    }
    Map<String, Integer> outClass = new HashMap<>();
    List<Integer> termClasses = new ArrayList<>(rb.handles);
    termClasses.addAll(inputClasses.values());
    for (Node o : outputs) {
      int h = outs.length == 1 && !op.meta().tuple() ? outs[0] : outs[(int) getitemIndex(o)];
      outClass.put(o.name(), h);
      termClasses.add(h);
    }
    Map<Expect, Integer> expectClass = new HashMap<>();
    Outcome same = identity(outputs, outClass, expects, required);
    if (same != null) {
      return same;
    }
    for (Expect e : expects) {
      expectClass.put(e, e.gd().add(b));
    }
    boolean limited = explore(termClasses);

    Extractor clean = new Extractor(g, CleanCost.clean(id -> true));
    Map<String, List<GdExpr>> found = new HashMap<>();
    Map<String, GdExpr> overOutputs = new HashMap<>();
    Extractor outputsOnly = required ? new Extractor(g, CleanCost.clean(ctx.gd::available)) : null;
    Map<String, String> hints = new HashMap<>();
    Extractor explain = null;
    for (Node o : outputs) {
      int c = outClass.get(o.name());
      List<GdExpr> alts = CleanAlternatives.of(g, clean, c, ctx.options.alternatives());
      found.put(o.name(), alts);
      if (outputsOnly != null && outputsOnly.bestNode(c) != null) {
        overOutputs.put(o.name(), GdExpr.of(outputsOnly.extract(c)));
      }
      if (alts.isEmpty()) {
        explain = explain != null ? explain : new Extractor(g, CleanCost.explain());
        if (explain.bestNode(c) != null) {
          hints.put(o.name(), TermPrinter.print(explain.extract(c), ctx));
        }
      }
    }
    List<Expect> violated = new ArrayList<>();
    for (Expect e : expects) {
      if (g.find(expectClass.get(e)) != g.find(outClass.get(e.gs()))) {
        violated.add(e);
      }
    }
    List<String> exploredLabels = new ArrayList<>();
    for (int id : broughtIn.keySet()) {
      exploredLabels.add(ctx.gd.value(id).label());
    }
    Set<String> undefined = new HashSet<>();
    for (Node o : outputs) {
      for (ENode n : g.nodes(outClass.get(o.name()))) {
        if (n.op() == Op.UNDEF.id()) {
          undefined.add(o.name());
        }
      }
    }
    Set<Integer> cleanLeaves = new HashSet<>();
    leaves(new ArrayList<>(outClass.values()), false, cleanLeaves);
    List<Integer> learnFrom = new ArrayList<>(outClass.values());
    learnFrom.addAll(inputClasses.values());
    EqualityLearner.learn(ctx, g, learnFrom, TRACE ? op.name() : null);
    return new Outcome(undefined, found, overOutputs, limited, null, exploredLabels, hints, violated, g.nodeCount(),
        cleanLeaves);
  }

  /**
   * The fast path for an operator that is the identity on one of its inputs (clone, detach, a copy,
   * a collective in G_s): its output is that input, so R relates it to the same expressions and no
   * e-graph work is needed. Not taken when the output is required or has an expectation, which need
   * the full check.
   */
  private Outcome identity(List<Node> outputs, Map<String, Integer> outClass, List<Expect> expects,
      boolean required) {
    if (required || !expects.isEmpty() || outputs.size() != 1) {
      return null;
    }
    g.rebuild();
    int out = g.find(outClass.get(outputs.get(0).name()));
    for (var in : inputClasses.entrySet()) {
      List<GdExpr> rel = ctx.relation.get(in.getKey());
      if (g.find(in.getValue()) == out && rel != null && !rel.isEmpty()) {
        Set<Integer> leaves = new HashSet<>();
        rel.forEach(e -> e.leaves(leaves));
        return new Outcome(Set.of(), Map.of(outputs.get(0).name(), rel), Map.of(), false, null, List.of(), Map.of(),
            List.of(), g.nodeCount(), leaves);
      }
    }
    return null;
  }

  /**
   * A G_d output equal to a G_s value computed from constants alone (a counter initialized to
   * zero, say): both terms are built in one e-graph and compared; null when none is equal.
   */
  static GdExpr matchConstant(Context ctx, Node constant) {
    OperatorCheck check = new OperatorCheck(ctx, constant);
    RecordingBuilder rb = new RecordingBuilder(check.b);
    int cls = check.new GsInputs(rb, 0, false).of(constant.name())[0];
    for (int id = 0; id < ctx.gd.values.size(); id++) {
      if (ctx.gd.output[id] && ctx.gd.constant[id] && !ctx.gd.undefined[id]) {
        check.g.union(check.b.leaf(id), check.gdTerms.operand(id));
      }
    }
    check.g.rebuild();
    for (ENode n : check.g.nodes(cls)) {
      if (n.op() == Op.TENSOR.id()) {
        return GdExpr.tensor((int) n.attr(0));
      }
    }
    return null;
  }

  private static long getitemIndex(Node getitem) {
    return ((dev.entangle.graph.Arg.IntArg) getitem.arg(1)).value();
  }

  /** How many producers above v's inputs its e-graph includes (context for lemmas). */
  static final int CONTEXT_DEPTH = 1;

  private final Map<String, int[]> produced = new HashMap<>();

  private AtenNormalizer.Inputs gsInputs(RecordingBuilder rb) {
    return new GsInputs(rb, CONTEXT_DEPTH, true);
  }

  /**
   * v's inputs, as classes: the union of the clean expressions R relates each to; constants as
   * their terms; and, up to a depth, the input's own G_s term over its inputs (true by
   * definition, and the context lemmas need to see, e.g., that two masks test one tensor). A
   * deferred value (one whose operator found no clean expression) is always its term.
   */
  private final class GsInputs implements AtenNormalizer.Inputs {
    private final RecordingBuilder rb;
    private final int depth;
    private final boolean top;

    GsInputs(RecordingBuilder rb, int depth, boolean top) {
      this.rb = rb;
      this.depth = depth;
      this.top = top;
    }

    @Override
    public int[] of(String name) {
      Integer c = top ? inputClasses.get(name) : null;
      if (c != null) {
        return new int[] {c};
      }
      Node n = ctx.gs.gs.node(name);
      if (ctx.gs.inlined(name) && n != null) {
        return new int[] {constant(n)};
      }
      int cls = -1;
      for (GdExpr e : ctx.relation.getOrDefault(name, List.of())) {
        int x = e.add(b);
        Set<Integer> leaves = new HashSet<>();
        e.leaves(leaves);
        trel.addAll(leaves);
        cls = cls < 0 ? x : unionNow(cls, x);
      }
      boolean deferred = ctx.deferred.contains(name);
      if (n != null && deferred) {
        int p = produce(n, depth);
        cls = cls < 0 ? p : unionNow(cls, p);
      } else if (n != null && depth > 0 && isComputed(n) && cls >= 0) {
        try {
          cls = unionNow(cls, produce(n, depth - 1));
        } catch (MissingRelation | dev.entangle.ops.LoweringException e) {
          // context is optional: without its inputs' relations the producer is left out
        }
      }
      if (cls < 0) {
        throw new MissingRelation(name);
      }
      if (top) {
        inputClasses.put(name, cls);
      }
      return new int[] {cls};
    }

    private int constant(Node n) {
      if (n.op() == dev.entangle.graph.NodeOp.GET_ATTR) {
        return AtenNormalizer.constant(n, b);
      }
      return produce(n, depth);
    }

    /** The G_s term of a value over its inputs at the given depth. */
    private int produce(Node n, int d) {
      if (n.target().equals("getitem")) {
        Node tuple = ctx.gs.gs.node(((dev.entangle.graph.Arg.NodeRef) n.arg(0)).name());
        return lowerOp(tuple, d)[(int) getitemIndex(n)];
      }
      return lowerOp(n, d)[0];
    }

    private int[] lowerOp(Node op, int d) {
      String key = op.name() + "@" + d;
      int[] cached = produced.get(key);
      if (cached != null) {
        return cached;
      }
      GsInputs in = new GsInputs(rb, d, false);
      String same = CollectiveLowering.singleRankInput(op);
      int[] out = same != null ? in.of(same) : ctx.normalizer.lower(op, in, rb);
      produced.put(key, out);
      return out;
    }
  }

  private boolean isComputed(Node n) {
    return n.op() == dev.entangle.graph.NodeOp.CALL_FUNCTION && !ctx.gs.inlined(n.name());
  }

  private int unionNow(int a, int c) {
    g.union(a, c);
    g.rebuild();
    return g.find(a);
  }

  /** Steps 2 and 3, repeated until no G_d value is left to bring in. Returns whether a limit was hit. */
  private boolean explore(List<Integer> termClasses) {
    boolean limited = false;
    while (true) {
      RunReport report = Runner.run(g, ctx.lemmas.rewrites(), limits(), () -> false);
      if (TRACE) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < report.names().size(); i++) {
          if (report.applied(i) > 0) {
            sb.append(' ').append(report.names().get(i)).append('=').append(report.applied(i));
          }
        }
        System.err.printf("  [%s] %s after %d iterations, %d nodes, %d classes, %d explored:%s%n", op.name(),
            report.stopReason(), report.iterations(), g.nodeCount(), g.classCount(), broughtIn.size(), sb);
      }
      for (int i = 0; i < ctx.fired.length; i++) {
        ctx.fired[i] += report.applied(i);
      }
      if (report.stopReason() != StopReason.SATURATED && report.stopReason() != StopReason.GOAL_REACHED) {
        limited = true;
        if (report.stopReason() != StopReason.ITERATION_LIMIT) {
          return true;
        }
      }
      growRelated(termClasses);
      int added = bringIn();
      added += addEqualities();
      if (added == 0) {
        return limited;
      }
      if (broughtIn.size() > ctx.options.exploreLimit() || System.nanoTime() > ctx.deadline) {
        Runner.run(g, ctx.lemmas.rewrites(), limits(), () -> false);
        return true;
      }
    }
  }

  private Runner.Limits limits() {
    return new Runner.Limits(ctx.options.iterationLimit(), ctx.options.nodeLimit(), ctx.deadline, 20_000);
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
   * are all in T_rel, constant, related by R to some G_s value, or themselves
   * brought in at most {@link #MAX_DEPTH} steps away from related values (Listing 2's
   * "expressible using T_rel", bounded): a chain G_d computes from related tensors alone, such as
   * a vocabulary shard's mask, shift and lookup, is brought in whole, so lemmas can recognize it.
   */
  private int bringIn() {
    int added = 0;
    java.util.ArrayDeque<Integer> work = new java.util.ArrayDeque<>(trel);
    work.addAll(broughtIn.keySet());
    while (!work.isEmpty() && broughtIn.size() <= ctx.options.exploreLimit()) {
      int t = work.poll();
      for (int u : ctx.gd.users[t]) {
        if (broughtIn.containsKey(u) || ctx.gd.constant[u]) {
          continue;
        }
        int depth = 0;
        for (int d : ctx.gd.deps[u]) {
          int dd = depthOf(d);
          if (dd < 0) {
            depth = -1;
            break;
          }
          depth = Math.max(depth, dd);
        }
        if (depth < 0 || depth + 1 > MAX_DEPTH) {
          continue;
        }
        broughtIn.put(u, depth + 1);
        g.union(b.leaf(u), gdTerms.definition(u));
        added++;
        work.add(u);
      }
    }
    if (added > 0) {
      g.rebuild();
    }
    return added;
  }

  /** How many steps a value is from T_rel: 0 related or constant, -1 neither related nor brought in. */
  private int depthOf(int d) {
    if (trel.contains(d) || ctx.gd.constant[d] || ctx.related.get(d)) {
      return 0;
    }
    Integer x = broughtIn.get(d);
    return x == null ? -1 : x;
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
    for (int l : broughtIn.keySet()) {
      lookAt(l, candidates);
    }
    int added = 0;
    for (int i : candidates) {
      if (!equalitiesAdded.add(i)) {
        continue;
      }
      List<GdExpr> group = ctx.equalities.group(i);
      int first = group.get(0).add(b);
      for (GdExpr e : group.subList(1, group.size())) {
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
    if (!equalitiesLookedUp.get(leaf)) {
      equalitiesLookedUp.set(leaf);
      candidates.addAll(ctx.equalities.touching(leaf));
    }
  }
}
