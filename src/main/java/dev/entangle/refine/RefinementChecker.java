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
import dev.entangle.relation.RelationValidator;
import dev.entangle.rules.Lemmas;
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

  /**
   * Runs a check; the relation is validated against both graphs first. Input problems throw
   * {@link InputException}.
   */
  public static CheckResult check(Graph gs, DistributedGraph gd, RelationFile rel, Lemmas rules,
      CheckOptions options, ProgressListener progress) {
    long start = System.nanoTime();
    long deadline = start + options.timeout().toNanos();
    RelationValidator.validate(gs, gd, rel);
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
      List<GdExpr> list = inputRelation.computeIfAbsent(n.name(), k -> new ArrayList<>());
      if (!list.contains(t.expr())) {
        list.add(t.expr());
      }
    }
    List<List<GdExpr>> equalities = new ArrayList<>();
    for (int i = 0; i < rel.equalities().size(); i++) {
      List<GdExpr> group = new ArrayList<>();
      for (var x : rel.equalities().get(i)) {
        group.add(terms.resolve(x, rel.source() + ": equalities[" + i + "]").expr());
      }
      equalities.add(group);
    }

    List<String> required = new ArrayList<>();
    if (rel.outputs() != null) {
      for (String o : rel.outputs()) {
        required.add(resolveGs(gs, o, rel.source() + ": outputs").name());
      }
    } else {
      required.addAll(results(gs));
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
    Context ctx = new Context(gsm, gdm, normalizer, shapes, rules, terms, options, deadline, equalities);
    inputRelation.forEach(ctx::relate);
    return new CheckRun(ctx, required, expects, progress, start).go();
  }

  /**
   * The G_s outputs that are results: those no G_s node uses again. An output that G_s itself
   * consumes as well is an activation it saves for backward (G_d saves its own, sharded form), not
   * a result of the model.
   */
  static List<String> results(Graph gs) {
    Set<String> used = new java.util.HashSet<>();
    for (Node n : gs.nodes()) {
      if (n.op() != dev.entangle.graph.NodeOp.OUTPUT) {
        NodeRefs.forEach(n, used::add);
      }
    }
    List<String> out = new ArrayList<>();
    for (Arg a : gs.outputs()) {
      if (a instanceof Arg.NodeRef r && gs.node(r.name()) != null && gs.node(r.name()).type() != null
          && !used.contains(r.name()) && !out.contains(r.name())) {
        out.add(r.name());
      }
    }
    return out;
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
}
