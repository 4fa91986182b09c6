package dev.entangle.lower;

import dev.entangle.core.CoreProgram;
import dev.entangle.core.CoreRelation;
import dev.entangle.core.CoreTerm;
import dev.entangle.core.IdRange;
import dev.entangle.core.Op;
import dev.entangle.core.ShapeException;
import dev.entangle.core.Shapes;
import dev.entangle.core.TypeInfo;
import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.graph.Node;
import dev.entangle.relation.Expr;
import dev.entangle.relation.ExprPrinter;
import dev.entangle.relation.ExprShapes;
import dev.entangle.relation.RelationEntry;
import dev.entangle.relation.RelationFile;
import dev.entangle.util.InputException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;

/**
 * Resolves a relation file (validated against the graphs by {@code RelationValidator}) into a
 * {@link CoreRelation}: {@code rK.NAME} becomes a G_d value, G_s names become G_s values, and every
 * expression becomes a clean core term.
 */
public final class RelationLowering {
  private final Graph gs;
  private final DistributedGraph gd;
  private final CoreProgram gsp;
  private final CoreProgram gdp;
  private final Shapes shapes;

  /** The G_d value an expression's tensor names (the name resolves to a node name, then a tag). */
  private final ToIntFunction<Expr.Tensor> leaf;

  private RelationLowering(Graph gs, DistributedGraph gd, CoreProgram gsp, CoreProgram gdp) {
    this.gs = gs;
    this.gd = gd;
    this.gsp = gsp;
    this.gdp = gdp;
    this.shapes = new Shapes(gdp.table(), id -> gdp.value((int) id).type());
    this.leaf =
        t ->
            gd == null
                ? gdp.resolve(t.rank(), t.name())
                : gdp.id(t.rank(), gd.rank(t.rank()).resolve(t.name()).name());
  }

  /**
   * A clean term from an expression over G_d values that is already normalized (dims non-negative,
   * bounds in range, no -1 sizes), such as the numeric search builds; names resolve against the
   * program alone.
   */
  public static CoreTerm clean(Expr normalized, CoreProgram gdp) {
    return new RelationLowering(null, null, null, gdp).convert(normalized).term();
  }

  /** Resolves {@code rel}; input problems throw {@link InputException} naming the entry. */
  public static CoreRelation lower(
      RelationFile rel, Graph gs, DistributedGraph gd, CoreProgram gsp, CoreProgram gdp) {
    return new RelationLowering(gs, gd, gsp, gdp).lower(rel);
  }

  private CoreRelation lower(RelationFile rel) {
    Map<Integer, List<CoreTerm>> inputs = new LinkedHashMap<>();
    Map<Integer, IdRange> ranges = new LinkedHashMap<>();
    for (RelationEntry e : rel.relations()) {
      String where = rel.source() + ": " + e.where();
      int v = gsValue(e.gs(), where);
      CoreTerm t = resolve(e.gd(), where);
      List<CoreTerm> list = inputs.computeIfAbsent(v, k -> new ArrayList<>());
      if (!list.contains(t)) {
        list.add(t);
      }
      if (e.range() != null) {
        rangeOfLeaves(t, e.range(), ranges, where + " (gs \"" + e.gs() + "\")");
      }
    }
    List<List<CoreTerm>> equalities = new ArrayList<>();
    for (int i = 0; i < rel.equalities().size(); i++) {
      List<CoreTerm> group = new ArrayList<>();
      for (Expr x : rel.equalities().get(i)) {
        group.add(resolve(x, rel.source() + ": equalities[" + i + "]"));
      }
      equalities.add(group);
    }
    List<Integer> outputs = null;
    if (rel.outputs() != null) {
      outputs = new ArrayList<>();
      for (String o : rel.outputs()) {
        outputs.add(gsValue(o, rel.source() + ": outputs"));
      }
    }
    List<CoreRelation.Expect> expects = new ArrayList<>();
    for (int i = 0; i < rel.expect().size(); i++) {
      RelationEntry e = rel.expect().get(i);
      String where = rel.source() + ": expect[" + i + "]";
      int v = gsValue(e.gs(), where);
      expects.add(new CoreRelation.Expect(v, resolve(e.gd(), where), ExprPrinter.print(e.gd())));
    }
    return new CoreRelation(inputs, equalities, outputs, expects, ranges);
  }

  /**
   * Gives {@code range} to every G_d tensor of {@code t}, an expression that only rearranges them
   * (so each element of theirs is an element of the G_s tensor); with a tensor's range stated
   * twice, both hold.
   */
  private static void rangeOfLeaves(
      CoreTerm t, IdRange range, Map<Integer, IdRange> ranges, String where) {
    if (t.op() == Op.TENSOR.id()) {
      int id = (int) t.attrs()[0];
      IdRange before = ranges.get(id);
      IdRange both = before == null ? range : before.intersect(range);
      if (both == null) {
        throw new InputException(
            where
                + ": \"in_range\" "
                + range
                + " and an earlier "
                + before
                + " of the same G_d tensor have no value in common; state one range.");
      }
      ranges.put(id, both);
      return;
    }
    Op op = Op.of(t.op());
    if (op != Op.CONCAT && op != Op.SLICE && op != Op.PERMUTE && op != Op.RESHAPE) {
      throw new InputException(
          where
              + ": \"in_range\" applies to an entry whose G_d expression only rearranges G_d"
              + " tensors (concat, slice, transpose, permute, reshape), so that its range is theirs;"
              + " this one computes them ("
              + (op == null ? "an opaque call" : op.symbol())
              + "). State the range on an input related that way.");
    }
    for (CoreTerm c : t.children()) {
      rangeOfLeaves(c, range, ranges, where);
    }
  }

  private int gsValue(String name, String where) {
    Node n = gs.resolve(name);
    if (n == null) {
      throw new InputException(
          where
              + ": G_s has no tensor named or tagged '"
              + name
              + "'; check the name against "
              + gs.source()
              + ".");
    }
    int v = gsp.id(-1, n.name());
    if (n.type() == null || v < 0) {
      throw new InputException(
          where
              + ": '"
              + name
              + "' in G_s is not a single tensor (a tuple or the output node); "
              + "relate its getitem results instead.");
    }
    return v;
  }

  /** A relation expression over G_d as a clean core term, dims and bounds normalized. */
  private CoreTerm resolve(Expr e, String where) {
    Expr normalized =
        ExprShapes.normalize(e, t -> gd.rank(t.rank()).resolve(t.name()).type(), where);
    try {
      return convert(normalized).term();
    } catch (ShapeException ex) {
      throw new InputException(
          where
              + ": the expression "
              + ExprPrinter.print(e)
              + " does not fit: "
              + ex.getMessage()
              + ".");
    }
  }

  private record Typed(CoreTerm term, TypeInfo type) {}

  private Typed convert(Expr e) {
    if (e instanceof Expr.Tensor t) {
      int id = leaf.applyAsInt(t);
      if (id < 0) {
        throw new IllegalArgumentException("G_d has no tensor " + t.rank() + "." + t.name());
      }
      return new Typed(CoreTerm.tensor(id), gdp.value(id).type());
    }
    if (e instanceof Expr.Concat c) {
      return node(Op.CONCAT, new long[] {c.dim()}, convertAll(c.parts()));
    }
    if (e instanceof Expr.Slice s) {
      return node(
          Op.SLICE,
          new long[] {s.dim(), s.start(), s.end(), s.step()},
          List.of(convert(s.input())));
    }
    if (e instanceof Expr.Reduce r) {
      List<Typed> operands = convertAll(r.operands());
      if (operands.size() == 1) {
        return operands.get(0); // one operand stands for its sum, max, min or mean
      }
      Op op =
          switch (r.kind()) {
            case SUM, MEAN -> Op.SUMN;
            case MAX -> Op.MAXN;
            case MIN -> Op.MINN;
          };
      Typed combined = node(op, new long[0], operands);
      return r.kind() == Expr.ReduceKind.MEAN
          ? node(Op.SCALE, new long[] {1, operands.size()}, List.of(combined))
          : combined;
    }
    if (e instanceof Expr.Scale s) {
      return node(
          Op.SCALE, Op.scaleAttrs(s.num(), s.den(), s.derived()), List.of(convert(s.input())));
    }
    if (e instanceof Expr.Transpose t) {
      Typed x = convert(t.input());
      long[] p = new long[x.type().rank()];
      for (int i = 0; i < p.length; i++) {
        p[i] = i;
      }
      p[t.dim0()] = t.dim1();
      p[t.dim1()] = t.dim0();
      return node(Op.PERMUTE, p, List.of(x));
    }
    if (e instanceof Expr.Permute p) {
      return node(
          Op.PERMUTE,
          p.dims().stream().mapToLong(Integer::longValue).toArray(),
          List.of(convert(p.input())));
    }
    if (e instanceof Expr.Reshape r) {
      return node(
          Op.RESHAPE,
          r.shape().stream().mapToLong(Long::longValue).toArray(),
          List.of(convert(r.input())));
    }
    if (e instanceof Expr.Squeeze s) {
      Typed x = convert(s.input());
      long[] in = x.type().shape();
      if (in.length == 0 || in[s.dim()] != 1) {
        return x; // squeezing a dim that is not 1 changes nothing
      }
      long[] out = new long[in.length - 1];
      for (int i = 0, k = 0; i < in.length; i++) {
        if (i != s.dim()) {
          out[k++] = in[i];
        }
      }
      return node(Op.RESHAPE, out, List.of(x));
    }
    Expr.Unsqueeze u = (Expr.Unsqueeze) e;
    Typed x = convert(u.input());
    long[] in = x.type().shape();
    long[] out = new long[in.length + 1];
    for (int i = 0, k = 0; i < out.length; i++) {
      out[i] = i == u.dim() ? 1 : in[k++];
    }
    return node(Op.RESHAPE, out, List.of(x));
  }

  private List<Typed> convertAll(List<Expr> parts) {
    List<Typed> out = new ArrayList<>();
    for (Expr p : parts) {
      out.add(convert(p));
    }
    return out;
  }

  private Typed node(Op op, long[] attrs, List<Typed> kids) {
    TypeInfo[] types = new TypeInfo[kids.size()];
    List<CoreTerm> terms = new ArrayList<>();
    for (int i = 0; i < types.length; i++) {
      types[i] = kids.get(i).type();
      terms.add(kids.get(i).term());
    }
    return new Typed(new CoreTerm(op.id(), attrs, terms), shapes.infer(op.id(), attrs, types));
  }
}
