package dev.entangle.lower;

import dev.entangle.core.CoreOp;
import dev.entangle.core.CoreProgram;
import dev.entangle.core.CoreValue;
import dev.entangle.core.KnownValues;
import dev.entangle.core.NumberFacts;
import dev.entangle.core.Op;
import dev.entangle.core.OpTable;
import dev.entangle.core.ShapeException;
import dev.entangle.core.Shapes;
import dev.entangle.core.Steps;
import dev.entangle.core.TypeInfo;
import dev.entangle.core.ValueKind;
import dev.entangle.core.numeric.Tensor;
import dev.entangle.graph.Arg;
import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.graph.Node;
import dev.entangle.graph.NodeOp;
import dev.entangle.graph.TensorType;
import dev.entangle.lower.aten.AtenNormalizer;
import dev.entangle.lower.collectives.Collective;
import dev.entangle.lower.collectives.CollectiveGroups;
import dev.entangle.lower.collectives.CollectiveLowering;
import dev.entangle.util.InputException;
import dev.entangle.util.Interruption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The lowering stage: turns G_s or G_d, right after reading, into a {@link CoreProgram}. Every node
 * is lowered exactly once, into recorded {@link Steps}; its shape is checked against the one the
 * file records (a mismatch is an input error naming the node), and where the lowering infers
 * another dtype than the file records, the result is cast to the recorded one, so that every value
 * has the type the graph gives it. Collectives of G_d are paired across ranks and become the sums,
 * concats and slices of what their members sent; in G_s every collective is the identity.
 */
public final class Lowering {
  private final String source;
  private final int worldSize;
  private final boolean distributed;
  private final OpTable table;
  private final AtenNormalizer normalizer;
  private final Shapes shapes;
  private final List<CoreValue> values = new ArrayList<>();
  private final List<Node> valueNodes = new ArrayList<>();
  private final List<CoreOp> ops = new ArrayList<>();
  private final Map<String, Integer> byName = new HashMap<>();
  private final Map<String, Integer> byTag = new HashMap<>();

  /** The operation of each {@code call_function} node, by {@link CoreProgram#key}. */
  private final Map<String, Integer> opOf = new HashMap<>();

  private final List<List<Integer>> outputs = new ArrayList<>();

  /** Per operation: its node, and its kind when fixed (a recorded constant), else null. */
  private final List<Node> opNodes = new ArrayList<>();

  private final List<ValueKind> fixedKind = new ArrayList<>();

  /** The {@code getitem} node of each tuple item value. */
  private final Map<Integer, Node> itemNodes = new HashMap<>();

  private final List<List<String>> nodeLabels = new ArrayList<>();

  private int callCount;

  private Lowering(String source, int worldSize, boolean distributed, OpTable table) {
    this.source = source;
    this.worldSize = worldSize;
    this.distributed = distributed;
    this.table = table;
    this.normalizer = new AtenNormalizer(table);
    this.shapes = new Shapes(table, id -> values.get((int) id).type());
  }

  /** Lowers the sequential model (one graph; every collective is the identity). */
  public static CoreProgram sequential(Graph gs, OpTable table) {
    Lowering l = new Lowering(gs.source(), 1, false, table);
    l.declareValues(gs, -1);
    l.lowerGraph(gs, -1, null);
    return l.finish();
  }

  /**
   * Lowers the distributed implementation, every rank; collectives are paired across ranks ({@link
   * CollectiveGroups}) after every rank's shapes are checked.
   */
  public static CoreProgram distributed(DistributedGraph gd, OpTable table) {
    Lowering pass = new Lowering(gd.source(), gd.worldSize(), true, table);
    CoreProgram p = pass.distributedPass(gd);
    NumberFacts.Known known = null;
    for (int n = 1; pass.undecidedGuard && n < MAX_PASSES; n++) {
      // a guard read a value that a later rank's collective computes: lowered again, each value
      // known finite (or never negative) as the lowering before showed once every collective was;
      // a fact a collective passes on may show one more past the next collective
      NumberFacts.Known shown = NumberFacts.Known.of(p);
      if (known != null && shown.sameAs(known)) {
        break;
      }
      known = shown;
      pass = new Lowering(gd.source(), gd.worldSize(), true, table);
      pass.known = known;
      p = pass.distributedPass(gd);
    }
    return p;
  }

  /**
   * Most lowerings of a distributed program: facts about numbers (NumberFacts) cross one more
   * collective at each.
   */
  private static final int MAX_PASSES = 4;

  private CoreProgram distributedPass(DistributedGraph gd) {
    for (int r = 0; r < gd.worldSize(); r++) {
      declareValues(gd.rank(r), r);
    }
    List<Runnable> collectives = new ArrayList<>();
    for (int r = 0; r < gd.worldSize(); r++) {
      lowerGraph(gd.rank(r), r, collectives::add);
    }
    CollectiveGroups groups = CollectiveGroups.of(gd);
    this.groups = groups;
    collectives.forEach(Runnable::run);
    return finish();
  }

  private CollectiveGroups groups;

  /** Gives every node with a tensor type a value id, in node order. */
  private void declareValues(Graph g, int graph) {
    graphs.put(graph, g);
    List<String> labels = new ArrayList<>();
    for (Node n : g.nodes()) {
      labels.add((graph < 0 ? n.name() : "r" + graph + "." + n.name()) + " (" + n.target() + ")");
    }
    nodeLabels.add(labels);
    for (Node n : g.nodes()) {
      if (n.op() == NodeOp.OUTPUT || n.type() == null) {
        continue;
      }
      int id = values.size();
      String tag = n.meta().tag();
      values.add(
          new CoreValue(
              id, graph, n.name(), tag, declared(n, graph), ValueKind.COMPUTED, -1, 0, false));
      valueNodes.add(n);
      byName.put(CoreProgram.key(graph, n.name()), id);
      if (tag != null) {
        byTag.putIfAbsent(CoreProgram.key(graph, tag), id);
      }
    }
  }

  private TypeInfo declared(Node n, int graph) {
    try {
      return AtenNormalizer.typeOf(n.type(), n);
    } catch (LoweringException e) {
      throw nodeError(n, graph, e);
    }
  }

  /** Lowers every node of one graph; collectives of G_d are handed to {@code later}. */
  private void lowerGraph(Graph g, int graph, Consumer<Runnable> later) {
    for (Node n : g.nodes()) {
      Interruption.check();
      if (n.op() == NodeOp.OUTPUT) {
        continue;
      }
      try {
        lowerNode(g, graph, n, later);
      } catch (LoweringException | ShapeException e) {
        throw nodeError(n, graph, e);
      }
    }
    List<Integer> outs = new ArrayList<>();
    for (Arg a : g.outputs()) {
      if (a instanceof Arg.NodeRef r) {
        int id = valueId(graph, r.name());
        if (id >= 0) {
          outs.add(id);
          CoreValue v = values.get(id);
          values.set(id, v.returned());
        }
      }
    }
    outputs.add(outs);
  }

  private void lowerNode(Graph g, int graph, Node n, Consumer<Runnable> later) {
    int id = valueId(graph, n.name());
    if (n.op() != NodeOp.CALL_FUNCTION) {
      if (n.op() != NodeOp.PLACEHOLDER && n.op() != NodeOp.GET_ATTR) {
        throw new LoweringException(
            "node kind '"
                + n.op().jsonName()
                + "' is not supported; export the graph "
                + "with call_module/call_method nodes traced down to ATen operators");
      }
      if (n.type() == null) {
        throw new LoweringException("it has no tensor type");
      }
      if (n.op() == NodeOp.GET_ATTR && n.meta().value() != null) {
        Steps.Recorder rec = recorder();
        int slot = AtenNormalizer.constant(n, rec);
        define(n, graph, ValueKind.CONSTANT, rec, new int[] {slot}, new int[0], List.of(id));
      } else {
        setKind(id, ValueKind.INPUT, -1, 0);
      }
      return;
    }
    callCount++;
    if (n.target().equals("getitem")) {
      defineItem(graph, n, id);
      return;
    }
    if (distributed && Collective.isWait(n)) {
      identity(n, graph, ((Arg.NodeRef) n.arg(0)).name(), id);
      return;
    }
    if (distributed && Collective.isCollectiveTarget(n.target())) {
      Collective c;
      try {
        c = Collective.read(n, graph);
      } catch (IllegalArgumentException e) {
        throw new LoweringException(e.getMessage());
      }
      TypeInfo declared = AtenNormalizer.declaredType(n);
      int in = valueId(graph, c.input());
      long[] want = in < 0 ? null : c.resultShape(values.get(in).type().shape());
      if (want != null && !Arrays.equals(want, declared.shape())) {
        throw new ShapeException(
            "has shape "
                + Arrays.toString(want)
                + " by its arguments, but the "
                + "graph records "
                + Arrays.toString(declared.shape()));
      }
      int opId = reserveOp(graph, n);
      later.accept(() -> collective(graph, n, c, opId, id));
      return;
    }
    String same = distributed ? null : CollectiveLowering.singleRankInput(n);
    if (same != null) {
      identity(n, graph, same, id);
      return;
    }
    Node call = functional(g, n);
    Steps.Recorder rec = recorder();
    int[] out =
        normalizer.lower(
            call,
            new AtenNormalizer.Inputs() {
              @Override
              public int[] of(String name) {
                int v = valueId(graph, name);
                if (v >= 0) {
                  return new int[] {rec.ref(v)};
                }
                if (opOf.containsKey(CoreProgram.key(graph, name))) {
                  throw new LoweringException(
                      "argument " + name + " is a tuple; index it with getitem first");
                }
                return null;
              }

              @Override
              public int graphId() {
                return graph;
              }

              @Override
              public String target(String name) {
                Node producer = g.node(name);
                return producer != null && producer.op() == NodeOp.CALL_FUNCTION
                    ? producer.target()
                    : null;
              }
            },
            rec);
    out = checked(n, out, rec);
    Steps steps = rec.finish();
    define(
        n,
        graph,
        null,
        steps,
        out,
        rec.folded() ? unused(steps, out, reads(g, graph, n)) : reads(g, graph, n),
        n.meta().tuple() ? List.of() : List.of(id));
  }

  /**
   * The reads without the values the steps read but the results do not use: a test the lowering
   * decided ({@code is_finite} of a finite value, a {@code where} on a constant mask) reads nothing
   * it needs, so a result computed from constants alone is a constant.
   */
  private static int[] unused(Steps steps, int[] results, int[] reads) {
    BitSet needed = new BitSet();
    for (int r : results) {
      if (r >= 0) {
        needed.set(r);
      }
    }
    Set<Integer> read = new HashSet<>();
    Set<Integer> used = new HashSet<>();
    for (int i = steps.size() - 1; i >= 0; i--) {
      if (steps.kind(i) == Steps.ADD && needed.get(steps.slot(i))) {
        for (int k : steps.kids(i)) {
          needed.set(k);
        }
      } else if (steps.kind(i) == Steps.REF) {
        read.add(steps.arg(i));
        if (needed.get(steps.slot(i))) {
          used.add(steps.arg(i));
        }
      }
    }
    if (used.size() == read.size()) {
      return reads;
    }
    return Arrays.stream(reads).filter(v -> used.contains(v) || !read.contains(v)).toArray();
  }

  /**
   * In-place element-wise operators that lower as their functional forms ({@code add_} as {@code
   * add}), where nothing reads the tensor they update afterwards.
   */
  private static final Set<String> IN_PLACE =
      Set.of(
          "add",
          "sub",
          "mul",
          "div",
          "neg",
          "exp",
          "log",
          "sqrt",
          "rsqrt",
          "pow",
          "clamp",
          "clamp_min",
          "clamp_max",
          "relu",
          "sigmoid",
          "tanh",
          "gelu",
          "silu",
          "masked_fill",
          "fill",
          "abs",
          "reciprocal",
          "square",
          "erf",
          "floor",
          "ceil",
          "round",
          "sign");

  /**
   * The node itself, or, for an in-place element-wise call ({@code aten.add_.Scalar}, as {@code
   * F.rms_norm} adds its epsilon), the same call out of place when no later node reads the tensor
   * it updates (so the update is seen only through its result, as in a functional graph). A later
   * reader would see the updated tensor, which the core language does not model: an error.
   */
  private Node functional(Graph g, Node n) {
    String target = n.target();
    int dot = target.indexOf('.');
    int end = target.indexOf('.', dot + 1);
    if (!target.startsWith("aten.") || end < 0 || target.charAt(end - 1) != '_') {
      return n;
    }
    String op = target.substring(dot + 1, end - 1);
    if (!IN_PLACE.contains(op) || !(n.arg(0) instanceof Arg.NodeRef updated)) {
      return n;
    }
    Integer last = lastReads(g).get(updated.name());
    if (last != null && last > n.index()) {
      throw new LoweringException(
          "the in-place "
              + target
              + " updates '"
              + updated.name()
              + "', which '"
              + g.nodes().get(last).name()
              + "' reads afterwards; the checker reads graphs as functional programs: export"
              + " the model functionalized (torch.export, or make_fx after"
              + " torch.func.functionalize)");
    }
    return new Node(
        n.name(),
        n.op(),
        "aten." + op + target.substring(end),
        n.args(),
        n.kwargs(),
        n.meta(),
        n.index());
  }

  private final Map<Graph, Map<String, Integer>> lastReads = new IdentityHashMap<>();

  /** For each node name of a graph, the index of the last node that reads it. */
  private Map<String, Integer> lastReads(Graph g) {
    return lastReads.computeIfAbsent(
        g,
        k -> {
          Map<String, Integer> last = new HashMap<>();
          for (Node m : k.nodes()) {
            m.forEachRef(name -> last.put(name, m.index()));
          }
          return last;
        });
  }

  /** A node that is its input: a wait, or a collective of G_s. */
  private void identity(Node n, int graph, String input, int id) {
    Steps.Recorder rec = recorder();
    int in = valueId(graph, input);
    if (in < 0) {
      throw new LoweringException("its input '" + input + "' is not a tensor");
    }
    int[] out = checked(n, new int[] {rec.ref(in)}, rec);
    define(n, graph, null, rec, out, new int[] {in}, List.of(id));
  }

  /** A collective of G_d: its value is a term over what every member of its group sent. */
  private void collective(int graph, Node n, Collective c, int opId, int id) {
    CollectiveGroups.Instance inst = groups.of(graph, n.name());
    Steps.Recorder rec = recorder();
    CollectiveLowering.Inputs refs = (rank, name) -> rec.ref(valueId(rank, name));
    int[] result;
    try {
      result = checked(n, new int[] {CollectiveLowering.lower(inst, graph, refs, rec)}, rec);
      if (inst.on(graph).kind() == Collective.Kind.REDUCE_SCATTER && inst.members().size() > 1) {
        rec.beginFacts();
        reassemble(inst, refs, rec);
      }
    } catch (LoweringException | ShapeException | IllegalArgumentException e) {
      throw new InputException(
          source
              + " (rank "
              + graph
              + "): node '"
              + n.name()
              + "' ("
              + n.target()
              + "): "
              + e.getMessage()
              + ".");
    }
    List<Integer> reads = new ArrayList<>();
    for (Collective m : inst.members()) {
      int v = valueId(m.rank(), m.input());
      if (v >= 0 && !reads.contains(v)) {
        reads.add(v);
      }
    }
    ops.set(
        opId,
        new CoreOp(
            opId,
            graph,
            n.name(),
            n.target(),
            true,
            n.meta().stackTrace(),
            ValueKind.COMPUTED,
            rec.finish(),
            result,
            reads.stream().mapToInt(Integer::intValue).toArray(),
            new int[] {id}));
    setKind(id, ValueKind.COMPUTED, opId, 0);
  }

  /**
   * Each member of a reduce-scatter holds its own slice of one sum, so the sum is the concat of all
   * members' results: a fact about the whole group, stated with any member's definition.
   */
  private void reassemble(
      CollectiveGroups.Instance inst, CollectiveLowering.Inputs refs, Steps.Recorder rec) {
    int[] parts = new int[inst.members().size()];
    for (int i = 0; i < parts.length; i++) {
      Collective m = inst.members().get(i);
      int leaf = rec.add(Op.TENSOR, new long[] {valueId(m.rank(), m.node().name())});
      rec.union(leaf, CollectiveLowering.lower(inst, m.rank(), refs, rec));
      parts[i] = leaf;
    }
    int sum = CollectiveLowering.reduction(inst, refs, rec);
    rec.union(sum, rec.add(Op.CONCAT, new long[] {0}, parts));
  }

  /** A {@code getitem}: item {@code i} of its tuple's operation. */
  private void defineItem(int graph, Node n, int id) {
    String tupleName = ((Arg.NodeRef) n.arg(0)).name();
    Integer opId = opOf.get(CoreProgram.key(graph, tupleName));
    long i = n.arg(1) instanceof Arg.IntArg ix ? ix.value() : -1;
    if (opId == null) {
      int v = valueId(graph, tupleName);
      throw new LoweringException(
          "getitem " + i + " of a result with " + (v >= 0 ? 1 : 0) + " items");
    }
    CoreOp op = ops.get(opId);
    if (i < 0 || i >= op.results().length || op.results()[(int) i] < 0) {
      throw new LoweringException(
          "getitem " + i + " of a result with " + op.results().length + " items");
    }
    TypeInfo item = op.steps().type(op.results()[(int) i]);
    if (n.type() == null) {
      throw new ShapeException("the graph records no shape for it");
    }
    same(n, n.type(), item, "");
    int[] vs = Arrays.copyOf(op.values(), op.values().length + 1);
    vs[vs.length - 1] = id;
    ops.set(opId, op.withValues(vs));
    setKind(id, ValueKind.COMPUTED, opId, (int) i);
    itemNodes.put(id, n);
  }

  /** Records an operation; its values are classified at the end ({@link #classify}). */
  private void define(
      Node n,
      int graph,
      ValueKind kind,
      Steps.Recorder rec,
      int[] results,
      int[] reads,
      List<Integer> defined) {
    define(n, graph, kind, rec.finish(), results, reads, defined);
  }

  private void define(
      Node n,
      int graph,
      ValueKind kind,
      Steps steps,
      int[] results,
      int[] reads,
      List<Integer> defined) {
    int opId = ops.size();
    ops.add(
        new CoreOp(
            opId,
            graph,
            n.name(),
            n.target(),
            n.op() == NodeOp.CALL_FUNCTION,
            n.meta().stackTrace(),
            kind != null ? kind : ValueKind.COMPUTED,
            steps,
            results,
            reads,
            defined.stream().mapToInt(Integer::intValue).toArray()));
    opNodes.add(n);
    fixedKind.add(kind);
    opOf.put(CoreProgram.key(graph, n.name()), opId);
    for (int v : defined) {
      setKind(v, kind != null ? kind : ValueKind.COMPUTED, opId, 0);
    }
  }

  private int reserveOp(int graph, Node n) {
    int opId = ops.size();
    ops.add(null);
    opNodes.add(n);
    fixedKind.add(null);
    opOf.put(CoreProgram.key(graph, n.name()), opId);
    return opId;
  }

  /**
   * Classifies every operation and value, one rule for both graphs: computed from constants alone
   * is a constant (checked first, so a call of no tensors, such as {@code zeros}, is one); else a
   * node without defined contents (uninitialized memory, a random sample, a dropout mask) or one
   * computed from such values and constants only is undefined; else it is computed. An item of a
   * constant or undefined tuple is one too. Repeated until nothing changes, since a collective
   * reads values of later ranks.
   */
  private void classify() {
    boolean changed = true;
    while (changed) {
      changed = false;
      for (int o = 0; o < ops.size(); o++) {
        CoreOp op = ops.get(o);
        ValueKind k =
            fixedKind.get(o) != null
                ? fixedKind.get(o)
                : kindOf(opNodes.get(o), op.graph(), op.reads());
        if (k != op.kind()) {
          ops.set(o, op.withKind(k));
          changed = true;
        }
        for (int v : op.values()) {
          Node item = itemNodes.get(v);
          ValueKind vk = item == null ? k : itemKind(op, k, item, values.get(v).item());
          if (vk != values.get(v).kind()) {
            CoreValue x = values.get(v);
            values.set(v, x.withKind(vk));
            changed = true;
          }
        }
      }
    }
  }

  private ValueKind itemKind(CoreOp tuple, ValueKind tupleKind, Node item, int index) {
    if (tupleKind.inlined()) {
      return tupleKind;
    }
    if (AtenNormalizer.isUndefinedSource(item, graphOf(tuple.graph())::node)) {
      return ValueKind.UNDEFINED;
    }
    if (index >= 0
        && index < tuple.results().length
        && fromConstants(tuple, tuple.results()[index])) {
      return ValueKind.CONSTANT; // e.g. the total weight nll_loss_forward returns beside the loss
    }
    return tupleKind;
  }

  /**
   * Whether the term in a slot of an operation's steps is built from constant values and core
   * operators alone (no opaque operator, no undefined contents): an item of a tuple computed from
   * its inputs can still be such a constant.
   */
  private boolean fromConstants(CoreOp op, int slot) {
    Steps steps = op.steps();
    int[] stepOf = steps.definingSteps();
    ArrayDeque<Integer> work = new ArrayDeque<>(List.of(slot));
    BitSet seen = new BitSet();
    while (!work.isEmpty()) {
      int sl = work.pop();
      if (sl < 0 || sl >= stepOf.length || stepOf[sl] < 0) {
        return false;
      }
      if (seen.get(sl)) {
        continue;
      }
      seen.set(sl);
      int i = stepOf[sl];
      if (steps.kind(i) == Steps.REF) {
        if (values.get(steps.arg(i)).kind() != ValueKind.CONSTANT) {
          return false;
        }
        continue;
      }
      Op core = Op.of(steps.arg(i));
      if (core == null || core == Op.UNDEF || core == Op.TENSOR) {
        return false;
      }
      for (int k : steps.kids(i)) {
        work.push(k);
      }
    }
    return true;
  }

  private ValueKind kindOf(Node n, int graph, int[] reads) {
    boolean allConstant = true;
    boolean someUndefined = false;
    boolean allInlined = true;
    for (int r : reads) {
      ValueKind k = values.get(r).kind();
      allConstant &= k == ValueKind.CONSTANT;
      someUndefined |= k == ValueKind.UNDEFINED;
      allInlined &= k.inlined();
    }
    if (allConstant) {
      return ValueKind.CONSTANT;
    }
    if (AtenNormalizer.isUndefinedSource(n, graphOf(graph)::node)
        || (someUndefined && allInlined)) {
      return ValueKind.UNDEFINED;
    }
    return ValueKind.COMPUTED;
  }

  private void setKind(int id, ValueKind kind, int op, int item) {
    if (id < 0) {
      return;
    }
    CoreValue v = values.get(id);
    values.set(id, v.defined(kind, op, item));
  }

  /**
   * The values a node depends on, without repeats, in argument order: a reference to a tuple node
   * stands for what that node reads. A call that reads only its arguments' shapes and dtypes
   * ({@code ones_like}, {@code new_zeros}, ...) depends on none, so it is a constant.
   */
  private int[] reads(Graph g, int graph, Node n) {
    if (n.op() == NodeOp.CALL_FUNCTION && AtenNormalizer.readsShapesOnly(n.target())) {
      return new int[0];
    }
    Set<Integer> out = new LinkedHashSet<>();
    collectReads(g, graph, n, out);
    return out.stream().mapToInt(Integer::intValue).toArray();
  }

  private void collectReads(Graph g, int graph, Node n, Set<Integer> out) {
    n.forEachRef(
        name -> {
          int id = valueId(graph, name);
          if (id >= 0) {
            out.add(id);
            return;
          }
          Node t = g.node(name);
          if (t != null && t.op() == NodeOp.CALL_FUNCTION) {
            collectReads(g, graph, t, out);
          }
        });
  }

  /**
   * Compares the lowering's result types with the recorded ones: shapes must agree; a dtype that
   * differs is cast to the recorded one. Returns the result slots to use.
   */
  private int[] checked(Node n, int[] out, Steps.Recorder rec) {
    if (n.meta().tuple()) {
      List<TensorType> items = n.meta().types();
      if (items.size() > out.length) {
        throw new ShapeException(
            "it returns " + out.length + " values but the graph records " + items.size());
      }
      int[] res = out.clone();
      for (int i = 0; i < items.size(); i++) {
        if (items.get(i) != null && out[i] >= 0) {
          res[i] = recorded(n, items.get(i), out[i], rec, "item " + i + " ");
        }
      }
      return res;
    }
    if (out.length != 1) {
      throw new ShapeException(
          "it returns " + out.length + " values but the graph records one tensor");
    }
    if (n.type() == null) {
      throw new ShapeException("the graph records no shape for it");
    }
    return new int[] {recorded(n, n.type(), out[0], rec, "")};
  }

  private int recorded(Node n, TensorType declared, int slot, Steps.Recorder rec, String what) {
    TypeInfo d = same(n, declared, rec.type(slot), what);
    return d.dtype() == rec.type(slot).dtype()
        ? slot
        : rec.add(Op.CAST, new long[] {d.dtype()}, slot);
  }

  private static TypeInfo same(Node n, TensorType declared, TypeInfo inferred, String what) {
    TypeInfo d = AtenNormalizer.typeOf(declared, n);
    if (!Arrays.equals(d.shape(), inferred.shape())) {
      throw new ShapeException(
          what
              + "has shape "
              + Arrays.toString(inferred.shape())
              + " by its operator's "
              + "semantics, but the graph records "
              + Arrays.toString(d.shape()));
    }
    return d;
  }

  private Steps.Recorder recorder() {
    return new Steps.Recorder(
        new Steps.Recorder.TypeSource() {
          @Override
          public TypeInfo infer(int op, long[] attrs, TypeInfo[] kids) {
            return shapes.infer(op, attrs, kids);
          }

          @Override
          public TypeInfo valueType(int valueId) {
            return values.get(valueId).type();
          }

          @Override
          public boolean finite(int valueId) {
            return finiteValue(valueId);
          }

          @Override
          public boolean nonNegative(int valueId) {
            if (known != null && known.nonNegative(valueId)) {
              return true;
            }
            int slot = resultSlot(valueId);
            return slot >= 0 && definition(valueId).steps().nonNegative(slot);
          }

          @Override
          public void undecided() {
            undecidedGuard = true;
          }

          @Override
          public Double constant(int valueId) {
            int slot = resultSlot(valueId);
            return slot >= 0 ? definition(valueId).steps().type(slot).constant() : null;
          }

          @Override
          public Tensor known(int valueId) {
            return knownValue(valueId);
          }
        });
  }

  /**
   * The elements of values computed from constants alone, as far as asked ({@link #knownValue}).
   */
  private final Map<Integer, Tensor> knownValues = new HashMap<>();

  /**
   * The elements of a value computed from constants alone ({@link KnownValues}), or null: an input
   * or a collective's result is never known, a constant's steps are computed from what they read.
   */
  private Tensor knownValue(int valueId) {
    if (knownValues.containsKey(valueId)) {
      return knownValues.get(valueId);
    }
    int slot = resultSlot(valueId);
    if (slot < 0) {
      return null; // an input, or a collective not lowered yet
    }
    Tensor t = definition(valueId).steps().known(slot, this::knownValue);
    knownValues.put(valueId, t);
    return t;
  }

  /** The operation that defines a value, or null (an input, or not lowered yet). */
  private CoreOp definition(int valueId) {
    CoreValue v = values.get(valueId);
    return v.op() >= 0 ? ops.get(v.op()) : null;
  }

  /** The slot of a value's defining operation's steps that holds it, or -1 (not yet defined). */
  private int resultSlot(int valueId) {
    CoreOp op = definition(valueId);
    return op == null ? -1 : op.resultSlot(values.get(valueId).item());
  }

  /**
   * Whether every element of a value is a finite number: an input's are (as the numbers the checker
   * draws are), a computed value's as its steps show ({@link NumberFacts}), or as an earlier
   * lowering of the same graphs showed.
   */
  private boolean finiteValue(int valueId) {
    if (values.get(valueId).kind() == ValueKind.INPUT || known != null && known.finite(valueId)) {
      return true;
    }
    int slot = resultSlot(valueId);
    return slot >= 0 && definition(valueId).steps().finite(slot);
  }

  /** What an earlier lowering of the same graphs showed of each value, or null. */
  private NumberFacts.Known known;

  /** Whether a guard was left undecided for want of a fact about a value ({@link #distributed}). */
  private boolean undecidedGuard;

  private int valueId(int graph, String name) {
    Integer id = byName.get(CoreProgram.key(graph, name));
    return id == null ? -1 : id;
  }

  private final Map<Integer, Graph> graphs = new HashMap<>();

  private Graph graphOf(int graph) {
    return graphs.get(graph);
  }

  private InputException nodeError(Node n, int graph, RuntimeException e) {
    String where = graph < 0 ? source : source + " (rank " + graph + ")";
    return new InputException(
        where
            + ": node '"
            + n.name()
            + "' ("
            + n.target()
            + "): "
            + e.getMessage()
            + ". Check the node in the graph file; if the operator is legitimate, this is a limitation of the checker.");
  }

  private CoreProgram finish() {
    classify();
    return new CoreProgram(
        source, worldSize, table, values, ops, outputs, byName, byTag, callCount, nodeLabels);
  }
}
