package dev.entangle.refine;

import dev.entangle.collectives.CollectiveGroups;
import dev.entangle.graph.Arg;
import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.graph.Node;
import dev.entangle.ops.AtenNormalizer;
import dev.entangle.ops.OpTable;
import dev.entangle.ops.Shapes;
import dev.entangle.ops.TypeInfo;
import dev.entangle.relation.ExprPrinter;
import dev.entangle.relation.RelationEntry;
import dev.entangle.relation.RelationFile;
import dev.entangle.rules.Lemmas;
import dev.entangle.rules.Saturation;
import dev.entangle.util.InputException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks that G_d refines G_s (the paper's Listing 1): processes G_s's operators in topological
 * order, computes each one's clean output relation with {@link OperatorCheck}, and stops at the
 * first operator whose outputs map to no G_d tensor. {@code refines} is returned only with the
 * output relation in hand.
 */
public final class RefinementChecker {
  private RefinementChecker() {}

  /** Runs a check. Input problems throw {@link InputException}. */
  public static CheckResult check(Graph gs, DistributedGraph gd, RelationFile rel, Lemmas rules,
      CheckOptions options, ProgressListener progress) {
    long start = System.nanoTime();
    long deadline = start + options.timeout().toNanos();
    OpTable table = new OpTable();
    AtenNormalizer normalizer = new AtenNormalizer(table);
    Shapes plainShapes = new Shapes(table, id -> {
      throw new IllegalStateException("no G_d tensors while checking shapes");
    });
    ShapeCheck.check(gs, gs.source(), -1, normalizer, plainShapes);
    for (int r = 0; r < gd.worldSize(); r++) {
      ShapeCheck.check(gd.rank(r), gd.source(), r, normalizer, plainShapes);
    }
    CollectiveGroups collectives = CollectiveGroups.of(gd);
    GdModel gdm = new GdModel(gd, collectives);
    Shapes shapes = new Shapes(table, id -> gdm.types.get((int) id));
    RelationTerms terms = new RelationTerms(gdm, shapes);

    Map<String, List<GdExpr>> inputRelation = new LinkedHashMap<>();
    for (RelationEntry e : rel.relations()) {
      Node n = resolveGs(gs, e.gs(), rel.source() + ": " + e.where());
      RelationTerms.Typed t = terms.resolve(e.gd(), rel.source() + ": " + e.where());
      TypeInfo want = AtenNormalizer.typeOf(n.type(), n);
      if (!Arrays.equals(want.shape(), t.type().shape())) {
        throw new InputException(rel.source() + ": " + e.where() + " (gs \"" + e.gs() + "\"): "
            + ExprPrinter.print(e.gd()) + " has shape " + Arrays.toString(t.type().shape()) + " but " + n.name()
            + " has shape " + Arrays.toString(want.shape()) + "; check the shard dim and which tensors are related.");
      }
      List<GdExpr> list = inputRelation.computeIfAbsent(n.name(), k -> new ArrayList<>());
      if (!list.contains(t.expr())) {
        list.add(t.expr());
      }
    }
    List<List<GdExpr>> equalities = new ArrayList<>();
    for (int i = 0; i < rel.equalities().size(); i++) {
      List<GdExpr> group = new ArrayList<>();
      TypeInfo first = null;
      for (var x : rel.equalities().get(i)) {
        RelationTerms.Typed t = terms.resolve(x, rel.source() + ": equalities[" + i + "]");
        if (first != null && !Arrays.equals(first.shape(), t.type().shape())) {
          throw new InputException(rel.source() + ": equalities[" + i + "]: its expressions have different shapes ("
              + Arrays.toString(first.shape()) + " and " + Arrays.toString(t.type().shape()) + ").");
        }
        first = t.type();
        group.add(t.expr());
      }
      equalities.add(group);
    }

    List<String> required = new ArrayList<>();
    if (rel.outputs() != null) {
      for (String o : rel.outputs()) {
        required.add(resolveGs(gs, o, rel.source() + ": outputs").name());
      }
    } else if (!rel.expect().isEmpty()) {
      // the expectations name the outputs that matter (a forward graph also returns the tensors
      // it saves for backward, which G_d saves in its own, sharded form)
      for (RelationEntry e : rel.expect()) {
        String name = resolveGs(gs, e.gs(), rel.source() + ": expect").name();
        if (!required.contains(name)) {
          required.add(name);
        }
      }
    } else {
      for (Arg a : gs.outputs()) {
        if (a instanceof Arg.NodeRef r && gs.node(r.name()) != null && gs.node(r.name()).type() != null) {
          required.add(r.name());
        }
      }
    }
    Map<String, List<OperatorCheck.Expect>> expects = new HashMap<>();
    Set<String> wanted = new LinkedHashSet<>(required);
    for (int i = 0; i < rel.expect().size(); i++) {
      RelationEntry e = rel.expect().get(i);
      String where = rel.source() + ": expect[" + i + "]";
      Node n = resolveGs(gs, e.gs(), where);
      RelationTerms.Typed t = terms.resolve(e.gd(), where);
      expects.computeIfAbsent(n.name(), k -> new ArrayList<>())
          .add(new OperatorCheck.Expect(n.name(), t.expr(), ExprPrinter.print(e.gd())));
      wanted.add(n.name());
    }

    GsModel gsm = new GsModel(gs, inputRelation.keySet(), new ArrayList<>(wanted));
    Saturation saturation = new Saturation(rules);
    Context ctx = new Context(gsm, gdm, table, shapes, saturation, terms, options, deadline, equalities);
    inputRelation.forEach(ctx::relate);
    return new Run(ctx, required, expects, progress, start).go();
  }

  static Node resolveGs(Graph gs, String name, String where) {
    Node n = gs.resolve(name);
    if (n == null) {
      throw new InputException(where + ": G_s has no tensor named or tagged '" + name + "'; check the name against "
          + gs.source() + ".");
    }
    if (n.type() == null) {
      throw new InputException(where + ": '" + name + "' in G_s is not a single tensor (a tuple or the output node); "
          + "relate its getitem results instead.");
    }
    return n;
  }

  /** One check's walk over G_s. */
  private static final class Run {
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

    Run(Context ctx, List<String> required, Map<String, List<OperatorCheck.Expect>> expects,
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
      GsModel.forEachRef(op, inputs::add);
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
      GsModel.forEachRef(op, inputs::add);
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
      GsModel.forEachRef(op, seen::add);
      for (String name : seen) {
        List<String> exprs = new ArrayList<>();
        for (GdExpr e : ctx.relation.getOrDefault(name, List.of())) {
          exprs.add(print(e));
        }
        if (exprs.isEmpty() && ctx.gs.constant.contains(name)) {
          exprs.add("(a constant)");
        }
        out.add(new CheckResult.InputRelation(name, exprs));
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
}
