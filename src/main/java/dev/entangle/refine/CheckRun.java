package dev.entangle.refine;

import dev.entangle.graph.Arg;
import dev.entangle.graph.Node;
import dev.entangle.relation.ExprPrinter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** One check's walk over G_s: operators in order, deferral of chains, the result. */
final class CheckRun {
  private final Context ctx;
  private final List<String> required;
  private final Map<String, List<OperatorCheck.Expect>> expects;
  private final ProgressListener progress;
  private final long start;
  private final Map<String, GdExpr> overOutputs = new HashMap<>();
  private final Set<String> undefined = new LinkedHashSet<>();
  private final Map<String, Node> chainRoot = new HashMap<>();
  private final Map<String, Integer> chainLength = new HashMap<>();
  private final Map<String, OperatorCheck.Outcome> failedAt = new HashMap<>();

  /** Most G_s operators one deferred chain may span before the check gives up on it. */
  static final int MAX_CHAIN = 12;
  private final List<OperatorCheck.Expect> violated = new ArrayList<>();
  private Node violatedAt;

  CheckRun(Context ctx, List<String> required, Map<String, List<OperatorCheck.Expect>> expects,
      ProgressListener progress, long start) {
    this.ctx = ctx;
    this.required = required;
    this.expects = expects;
    this.progress = progress;
    this.start = start;
  }

  CheckResult go() {
    List<Node> ops = ctx.gs.operators;
    undefined.addAll(ctx.gs.undefined);
    Set<String> requiredSet = new LinkedHashSet<>(required);
    for (int i = 0; i < ops.size(); i++) {
      Node op = ops.get(i);
      List<Node> outs = ctx.gs.outputs(op);
      List<OperatorCheck.Expect> ex = new ArrayList<>();
      boolean req = false;
      for (Node o : outs) {
        ex.addAll(expects.getOrDefault(o.name(), List.of()));
        req |= requiredSet.contains(o.name());
      }
      long opStart = System.nanoTime();
      OperatorCheck.Outcome out = new OperatorCheck(ctx, op).run(outs, ex, req);
      String took = String.format(" (%.0f ms)", (System.nanoTime() - opStart) / 1e6);
      if (!out.mapped(outs)) {
        progress.operatorDone(i, ops.size(), op.name(), op.target() + ": no clean expression found");
        if (out.limited() || out.missingInput() != null || !defer(op, outs, out)) {
          Node root = rootOf(op);
          OperatorCheck.Outcome rootOut = failedAt.getOrDefault(root.name(), out);
          Verdict v = out.limited() ? Verdict.INCONCLUSIVE : Verdict.NOT_REFINED;
          return result(v, failure(root, rootOut, reason(root, ctx.gs.outputs(root), rootOut)
              + chainNote(root, op)));
        }
        continue;
      }
      for (Node o : outs) {
        ctx.relate(o.name(), out.found().get(o.name()));
      }
      overOutputs.putAll(out.overOutputs());
      out.cleanLeaves().forEach(ctx.related::set);
      undefined.addAll(out.undefined());
      if (!out.violated().isEmpty() && violated.isEmpty()) {
        violated.addAll(out.violated());
        violatedAt = op;
      }
      progress.operatorDone(i, ops.size(), op.name(), op.target() + ": " + out.nodes() + " e-nodes, "
          + out.explored().size() + " G_d values explored" + took + firstMapping(outs, out));
    }
    // required outputs computed from constants alone match G_d's constant outputs
    for (String o : required) {
      if (!overOutputs.containsKey(o) && ctx.gs.constant.contains(o)) {
        GdExpr e = OperatorCheck.matchConstant(ctx, ctx.gs.gs.node(o));
        if (e != null) {
          overOutputs.put(o, e);
        }
      }
    }
    // required outputs that are inputs or cut points map through their given relation
    for (String o : required) {
      if (!overOutputs.containsKey(o)) {
        for (GdExpr e : ctx.relation.getOrDefault(o, List.of())) {
          Set<Integer> leaves = new java.util.HashSet<>();
          e.leaves(leaves);
          if (leaves.stream().allMatch(ctx.gd::available)) {
            overOutputs.put(o, e);
            break;
          }
        }
      }
    }
    for (String o : required) {
      Node root = chainRoot.get(o);
      if (root != null) {
        OperatorCheck.Outcome rootOut = failedAt.get(root.name());
        Node last = producer(ctx.gs.gs.node(o));
        return result(Verdict.NOT_REFINED, failure(root, rootOut,
            reason(root, ctx.gs.outputs(root), rootOut) + chainNote(root, last)));
      }
    }
    for (String o : required) {
      if (!overOutputs.containsKey(o) && !undefined.contains(o)) {
        Node producer = producer(ctx.gs.gs.node(o));
        String reason = "G_s output '" + o + "' equals " + describe(ctx.relation.get(o))
            + " in terms of G_d tensors, but no clean expression over G_d's outputs (and inputs) equals it: G_d does not "
            + "return what is needed to rebuild it (a missing collective, or an output G_d does not return?).";
        return result(Verdict.NOT_REFINED, new CheckResult.Failure(producer.name(), producer.target(),
            producer.meta().stackTrace(), reason, inputRelations(producer), List.of(), null));
      }
    }
    if (!violated.isEmpty()) {
      OperatorCheck.Expect e = violated.get(0);
      String reason = "the output relation exists, but the expectation " + e.gs() + " = " + e.text()
          + " could not be proved: " + e.gs() + " equals " + describe(ctx.relation.get(e.gs())) + ".";
      return result(Verdict.EXPECTATION_VIOLATED, new CheckResult.Failure(violatedAt.name(), violatedAt.target(),
          violatedAt.meta().stackTrace(), reason, inputRelations(violatedAt), List.of(), e.text()));
    }
    return result(Verdict.REFINES, null);
  }

  /**
   * Defers an operator whose outputs have no clean expression: consumers see its term instead,
   * so a chain of G_s operators that only maps as a whole (a vocabulary shard's shifted targets,
   * say) is checked as a chain. Refused past {@link #MAX_CHAIN} operators.
   */
  private boolean defer(Node op, List<Node> outs, OperatorCheck.Outcome out) {
    int length = 1;
    Node root = rootOf(op);
    Set<String> inputs = new LinkedHashSet<>();
    NodeRefs.forEach(op, inputs::add);
    for (String in : inputs) {
      if (chainRoot.containsKey(in)) {
        length = Math.max(length, chainLength.get(in) + 1);
      }
    }
    if (length > MAX_CHAIN) {
      return false;
    }
    if (root == op) {
      failedAt.put(op.name(), out);
    }
    for (Node o : outs) {
      ctx.deferred.add(o.name());
      chainRoot.put(o.name(), root);
      chainLength.put(o.name(), length);
    }
    return true;
  }

  private Node rootOf(Node op) {
    Node root = op;
    Set<String> inputs = new LinkedHashSet<>();
    NodeRefs.forEach(op, inputs::add);
    for (String in : inputs) {
      Node p = chainRoot.get(in);
      if (p != null && p.index() < root.index()) {
        root = p;
      }
    }
    return root;
  }

  private String chainNote(Node root, Node last) {
    if (root == last) {
      return "";
    }
    return " The operators after it that use its result could not be mapped either, up to " + last.name()
        + " (" + last.target() + ").";
  }

  private String firstMapping(List<Node> outs, OperatorCheck.Outcome out) {
    for (Node o : outs) {
      List<GdExpr> found = out.found().getOrDefault(o.name(), List.of());
      if (!found.isEmpty()) {
        return "; " + o.name() + " = " + print(found.get(0));
      }
    }
    return "";
  }

  private Node producer(Node n) {
    if (n != null && n.target().equals("getitem")) {
      return ctx.gs.gs.node(((Arg.NodeRef) n.arg(0)).name());
    }
    return n;
  }

  private String reason(Node op, List<Node> outs, OperatorCheck.Outcome out) {
    if (out.missingInput() != null && undefined.contains(out.missingInput())) {
      return "its input '" + out.missingInput() + "' has no defined value (a dropout mask or an uninitialized "
          + "buffer), so nothing computed from it can be related to G_d.";
    }
    if (out.missingInput() != null) {
      return "its input '" + out.missingInput() + "' is related to no G_d tensor; add it to the relation file "
          + "(a graph input) or check why it is not computed.";
    }
    StringBuilder sb = new StringBuilder();
    sb.append("no clean expression (concat, slice, transpose, reshape, sums across ranks) of G_d tensors equals ");
    sb.append(outs.size() == 1 ? "its output" : "its outputs");
    if (out.limited()) {
      sb.append(" within the limits (the e-graph or time limit was reached first; try --timeout or --node-limit)");
    }
    sb.append('.');
    for (Node o : outs) {
      String hint = out.hints().get(o.name());
      if (hint != null && out.found().getOrDefault(o.name(), List.of()).isEmpty()) {
        sb.append(" In terms of G_d tensors, ").append(o.name()).append(" = ").append(hint)
            .append(", which G_d never computes.");
      }
    }
    return sb.toString();
  }

  private CheckResult.Failure failure(Node op, OperatorCheck.Outcome out, String reason) {
    List<String> explored = out.explored().size() > 60 ? out.explored().subList(0, 60) : out.explored();
    return new CheckResult.Failure(op.name(), op.target(), op.meta().stackTrace(), reason, inputRelations(op),
        explored, null);
  }

  private List<CheckResult.InputRelation> inputRelations(Node op) {
    List<CheckResult.InputRelation> out = new ArrayList<>();
    Set<String> seen = new LinkedHashSet<>();
    NodeRefs.forEach(op, seen::add);
    for (String name : seen) {
      List<String> exprs = new ArrayList<>();
      for (GdExpr e : ctx.relation.getOrDefault(name, List.of())) {
        exprs.add(print(e));
      }
      out.add(new CheckResult.InputRelation(name, exprs, exprs.isEmpty() && ctx.gs.constant.contains(name)));
    }
    return out;
  }

  private String describe(List<GdExpr> exprs) {
    if (exprs == null || exprs.isEmpty()) {
      return "nothing";
    }
    return print(exprs.get(0));
  }

  private String print(GdExpr e) {
    return ExprPrinter.print(ctx.terms.toExpr(e));
  }

  private CheckResult result(Verdict v, CheckResult.Failure f) {
    List<CheckResult.OutputEntry> rel = new ArrayList<>();
    for (String o : required) {
      GdExpr e = overOutputs.get(o);
      if (e != null) {
        rel.add(new CheckResult.OutputEntry(o, print(e)));
      }
    }
    List<String> notChecked = required.stream().filter(undefined::contains).distinct().toList();
    if (v == Verdict.REFINES && rel.size() + notChecked.size() < required.size()) {
      throw new IllegalStateException("refines without a complete output relation");
    }
    Map<String, Integer> fired = new LinkedHashMap<>();
    List<String> names = ctx.saturation.names();
    for (int i = 0; i < names.size(); i++) {
      if (ctx.fired[i] > 0) {
        fired.put(names.get(i), ctx.fired[i]);
      }
    }
    double secs = (System.nanoTime() - start) / 1e9;
    return new CheckResult(v, rel, notChecked, f, new CheckResult.Stats(ctx.gs.operators.size(), ctx.gd.operators, secs, fired));
  }
}
