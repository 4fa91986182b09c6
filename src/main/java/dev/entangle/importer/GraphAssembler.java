package dev.entangle.importer;

import dev.entangle.graph.Arg;
import dev.entangle.graph.Graph;
import dev.entangle.graph.Meta;
import dev.entangle.graph.Node;
import dev.entangle.graph.NodeOp;
import dev.entangle.graph.TensorType;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Builds the graph's nodes from the statements of a printed {@code forward}, in order: inputs, one
 * node per assignment, the output node. Types come from the annotations; a multi-output call
 * (unannotated, indexed by getitems) gets {@code meta.tuple} from its getitems' annotations, so the
 * statements are scanned once before the nodes are built.
 */
final class GraphAssembler {
  private static final Set<String> BUILTIN_FUNCTIONS =
      Set.of("getattr", "len", "int", "float", "bool", "max", "min", "abs", "round", "sum");
  private static final String ADVICE =
      "The importer reads graph code as torch.fx prints it (GraphModule.print_readable() or a"
          + " TORCH_LOGS graph dump); check that the file is such a dump.";

  private final SourceFile src;
  private final TensorConstants constants;
  private final TypeAnnotations types;
  private final ArgConverter args;
  private final AutoFunctionalizedLowering autoFunctionalized;
  private final List<Node> nodes = new ArrayList<>();
  private final Map<String, Node> byName = new HashMap<>();
  private final Map<String, List<IndexUse>> indexUses = new HashMap<>();
  private final Set<String> taggedAliases = new HashSet<>();

  /**
   * @param usedConstants receives the {@code constants} keys this graph uses
   */
  GraphAssembler(
      SourceFile src, ImportOptions opts, SchemaRegistry schemas, Set<String> usedConstants) {
    this.src = src;
    this.types = new TypeAnnotations(src);
    this.constants = new TensorConstants(src, types, opts.constants(), usedConstants);
    this.args = new ArgConverter(src, byName::containsKey);
    this.autoFunctionalized =
        new AutoFunctionalizedLowering(src, schemas, args, types, byName::get);
  }

  Graph assemble(GraphCode code, String graphName) {
    scan(code.body());
    List<String> containers = List.of();
    for (Statement s : code.body()) {
      if (s instanceof Statement.FlattenInputs f) {
        containers = f.containers();
      }
    }
    for (GraphCode.Param p : code.params()) {
      if (containers.contains(p.name())) {
        continue;
      }
      if (p.annotation() == null) {
        throw src.error(
            p.line(),
            "the input `" + p.name() + "` has no type annotation",
            "Print the graph with its annotations, e.g. `" + p.name() + ": \"f32[8, 16]\"`.");
      }
      placeholder(p.name(), p.annotation(), p.line());
    }
    Map<String, Statement.Annotate> pending = new LinkedHashMap<>();
    boolean returned = false;
    boolean flattened = false;
    for (Statement s : code.body()) {
      if (s instanceof Statement.Annotate an) {
        if (pending.put(an.target(), an) != null) {
          throw src.error(an.line(), "`" + an.target() + "` is annotated twice", ADVICE);
        }
      } else if (s instanceof Statement.FlattenInputs f) {
        if (flattened) {
          throw src.error(f.line(), "the inputs are flattened twice", ADVICE);
        }
        flattened = true;
        flattenedInputs(f, code, pending);
      } else if (s instanceof Statement.Assign a) {
        assign(a);
      } else if (s instanceof Statement.Return r) {
        output(r);
        returned = true;
      }
    }
    if (!pending.isEmpty()) {
      Statement.Annotate an = pending.values().iterator().next();
      throw src.error(
          an.line(),
          "`" + an.target() + "` is annotated but never assigned",
          "Bare annotations only declare the types of the inputs that"
              + " fx_pytree.tree_flatten_spec(...) unpacks.");
    }
    if (!returned) {
      throw src.error("the `forward` function has no `return`", "Give the whole printed graph.");
    }
    return new Graph(graphName, src.name(), nodes);
  }

  /** First pass: the getitems of each node and the same-type users of each name. */
  private void scan(List<Statement> body) {
    for (Statement s : body) {
      if (!(s instanceof Statement.Assign a)) {
        continue;
      }
      PyExpr[] indexed = indexing(a.value());
      if (indexed != null
          && indexed[0] instanceof PyExpr.Name base
          && indexed[1] instanceof PyExpr.IntLit idx
          && idx.value().signum() >= 0
          && idx.value().bitLength() < 31) {
        indexUses
            .computeIfAbsent(base.id(), k -> new ArrayList<>())
            .add(new IndexUse(a.target(), idx.value().intValue(), a.annotation(), a.line()));
      }
      if (a.value() instanceof PyExpr.Call call
          && a.annotation() != null
          && OpNames.isSameTypeOp(OpNames.target(PyExpr.dotted(call.func())))
          && !call.args().isEmpty()
          && call.args().get(0) instanceof PyExpr.Name n) {
        constants.sameTypeUser(n.id(), a);
      }
    }
  }

  /** {@code base[index]} or {@code operator.getitem(base, index)}: {base, index}, else null. */
  private static PyExpr[] indexing(PyExpr value) {
    if (value instanceof PyExpr.Subscript sub) {
      return new PyExpr[] {sub.value(), sub.index()};
    }
    if (value instanceof PyExpr.Call call && call.kwargs().isEmpty() && call.args().size() == 2) {
      String fn = PyExpr.dotted(call.func());
      if ("operator.getitem".equals(fn) || "_operator.getitem".equals(fn)) {
        return new PyExpr[] {call.args().get(0), call.args().get(1)};
      }
    }
    return null;
  }

  // ---- inputs ----

  private void flattenedInputs(
      Statement.FlattenInputs f, GraphCode code, Map<String, Statement.Annotate> pending) {
    if (!nodes.isEmpty() && nodes.get(nodes.size() - 1).op() != NodeOp.PLACEHOLDER) {
      throw src.error(f.line(), "the inputs are flattened after other nodes", ADVICE);
    }
    for (String container : f.containers()) {
      boolean isParam = code.params().stream().anyMatch(p -> p.name().equals(container));
      if (!isParam) {
        throw src.error(
            f.line(),
            "`" + container + "` is flattened but is not a parameter of `forward`",
            ADVICE);
      }
    }
    for (String name : f.targets()) {
      Statement.Annotate an = pending.remove(name);
      if (an == null) {
        throw src.error(
            f.line(),
            "the input `" + name + "` has no type annotation",
            "torch prints the inputs' types before this line, e.g. `"
                + name
                + ": \"f32[8, 16]\";`; restore that line.");
      }
      placeholder(name, an.annotation(), an.line());
    }
  }

  /**
   * {@code l_x_ = L_x_}: TorchDynamo prints an input whose node name differs from its target this
   * way, at the top of the body. The input node takes the new name and keeps the old as target.
   */
  private void renameInput(Statement.Assign a, String from) {
    Node p = byName.get(from);
    boolean onlyInputsSoFar = nodes.stream().allMatch(n -> n.op() == NodeOp.PLACEHOLDER);
    if (p == null || p.op() != NodeOp.PLACEHOLDER || !onlyInputsSoFar) {
      throw src.error(
          a.line(),
          "`"
              + a.target()
              + " = "
              + from
              + "` copies a name; graph code only renames inputs this"
              + " way, before any other node",
          ADVICE);
    }
    Node renamed =
        new Node(
            a.target(), NodeOp.PLACEHOLDER, p.target(), p.args(), p.kwargs(), p.meta(), p.index());
    nodes.set(p.index(), renamed);
    byName.remove(from);
    byName.put(a.target(), renamed);
  }

  private void placeholder(String name, String annotation, int line) {
    TensorType t = types.parse(annotation, line);
    add(name, line, new NodeSpec(NodeOp.PLACEHOLDER, name, List.of(), Map.of(), single(t, null)));
  }

  // ---- assignments ----

  private void assign(Statement.Assign a) {
    if (byName.containsKey(a.target())) {
      throw src.error(
          a.line(),
          "`" + a.target() + "` is assigned a second time; graph code defines each name once",
          ADVICE);
    }
    PyExpr value = a.value();
    if (value instanceof PyExpr.Name n && a.annotation() == null) {
      renameInput(a, n.id());
      return;
    }
    PyExpr[] indexed = indexing(value);
    String dotted = PyExpr.dotted(value);
    NodeSpec spec;
    if (indexed != null) {
      spec = getitem(a, indexed[0], indexed[1]);
    } else if (dotted != null && dotted.startsWith("self.")) {
      spec = constants.getAttr(a, dotted.substring(5));
    } else if (value instanceof PyExpr.Call call) {
      spec = call(a, call);
    } else if (value instanceof PyExpr.BinOp b && PythonOperators.binary(b.op()) != null) {
      spec = builtin(a, PythonOperators.binary(b.op()), List.of(b.left(), b.right()), Map.of());
    } else if (value instanceof PyExpr.UnaryOp u) {
      spec = builtin(a, PythonOperators.unary(u.op()), List.of(u.operand()), Map.of());
    } else {
      throw src.error(
          a.line(),
          "cannot read what is assigned to `"
              + a.target()
              + "`; graph code assigns calls,"
              + " getitems, attributes of self and arithmetic on symbols",
          ADVICE);
    }
    add(a.target(), a.line(), spec);
  }

  private NodeSpec call(Statement.Assign a, PyExpr.Call call) {
    String fn = PyExpr.dotted(call.func());
    if (fn == null) {
      throw src.error(a.line(), "cannot tell which function this call calls", ADVICE);
    }
    if (OpNames.isOp(fn)) {
      String target = OpNames.target(fn);
      if (target == null) {
        throw src.error(
            a.line(),
            "cannot read the operator `" + fn + "`",
            "Operators are written torch.ops.NAMESPACE.NAME.OVERLOAD (or torch.ops.NAMESPACE.NAME).");
      }
      if (target.equals(OpNames.AUTO_FUNCTIONALIZED)
          || target.equals(OpNames.AUTO_FUNCTIONALIZED_V2)) {
        AutoFunctionalizedLowering.Lowered l =
            autoFunctionalized.lower(
                a, call, target.equals(OpNames.AUTO_FUNCTIONALIZED_V2), uses(a.target()));
        if (l.taggedAlias()) {
          taggedAliases.add(a.target());
        }
        return l.spec();
      }
      if (OpNames.isTagging(target)) {
        return tagging(a, call, target);
      }
      return function(a, NodeOp.CALL_FUNCTION, target, call, List.of());
    }
    if (fn.startsWith("operator.") || fn.startsWith("_operator.")) {
      String op = fn.substring(fn.indexOf('.') + 1);
      return builtin(a, op, call.args(), call.kwargs());
    }
    if (fn.startsWith("self.")) {
      return function(a, NodeOp.CALL_MODULE, fn.substring(5), call, List.of());
    }
    int dot = fn.indexOf('.');
    if (dot > 0 && fn.indexOf('.', dot + 1) < 0 && byName.containsKey(fn.substring(0, dot))) {
      Arg self = new Arg.NodeRef(fn.substring(0, dot));
      return function(a, NodeOp.CALL_METHOD, fn.substring(dot + 1), call, List.of(self));
    }
    if (fn.startsWith("torch.") || fn.startsWith("math.") || BUILTIN_FUNCTIONS.contains(fn)) {
      return function(a, NodeOp.CALL_FUNCTION, fn, call, List.of());
    }
    throw src.error(
        a.line(),
        "`" + fn + "` is not a function graph code calls",
        "Graph code calls torch.ops operators, operator.* builtins, torch functions, methods of"
            + " nodes and submodules of self.");
  }

  private NodeSpec function(
      Statement.Assign a, NodeOp op, String target, PyExpr.Call call, List<Arg> leading) {
    List<Arg> positional = new ArrayList<>(leading);
    positional.addAll(args.convertAll(call.args()));
    Map<String, Arg> kwargs = new LinkedHashMap<>();
    call.kwargs().forEach((k, v) -> kwargs.put(k, args.convert(v)));
    return new NodeSpec(op, target, positional, kwargs, resultMeta(a, target));
  }

  /** The type of a call's result: annotated, a tuple indexed by getitems, or derived. */
  private Meta resultMeta(Statement.Assign a, String target) {
    if (a.annotation() != null) {
      if (indexUses.containsKey(a.target())) {
        IndexUse use = indexUses.get(a.target()).get(0);
        throw src.error(
            use.line(),
            "`"
                + a.target()
                + "` is indexed, but it is annotated as one value (line "
                + a.line()
                + ")",
            "Only the results of multi-output calls, printed without an annotation, are indexed.");
      }
      return single(types.parse(a.annotation(), a.line()), a.stackTrace());
    }
    List<IndexUse> uses = indexUses.get(a.target());
    if (uses != null) {
      return new Meta(tupleItems(a, uses), true, a.stackTrace(), null, null);
    }
    if (OpNames.SYM_INT_OPS.contains(target)) {
      return single(new TensorType(List.of(), "int64"), a.stackTrace());
    }
    if (OpNames.VOID_ATEN.contains(target)) {
      return new Meta(List.of(), true, a.stackTrace(), null, null);
    }
    throw src.error(
        a.line(),
        "the result `"
            + a.target()
            + "` has no type annotation and is never indexed, so its type"
            + " is unknown",
        "Print the graph with its type annotations, e.g. `"
            + a.target()
            + ": \"f32[8, 16]\" = ...`.");
  }

  private List<TensorType> tupleItems(Statement.Assign a, List<IndexUse> uses) {
    int size = 0;
    for (IndexUse u : uses) {
      size = Math.max(size, u.index() + 1);
    }
    List<TensorType> items = new ArrayList<>(Collections.nCopies(size, (TensorType) null));
    for (IndexUse u : uses) {
      if (u.annotation() == null) {
        continue;
      }
      TensorType t = types.parse(u.annotation(), u.line());
      TensorType known = items.get(u.index());
      if (known != null && !known.equals(t)) {
        throw src.error(
            u.line(),
            "`"
                + a.target()
                + "["
                + u.index()
                + "]` is annotated "
                + t
                + ", but another getitem of the same item says "
                + known,
            ADVICE);
      }
      items.set(u.index(), t);
    }
    return items;
  }

  private List<IndexUse> uses(String name) {
    return indexUses.getOrDefault(name, List.of());
  }

  /** {@code name = base[index]}. */
  private NodeSpec getitem(Statement.Assign a, PyExpr baseExpr, PyExpr indexExpr) {
    if (!(baseExpr instanceof PyExpr.Name base)) {
      throw src.error(a.line(), "only a node can be indexed", ADVICE);
    }
    if (!(indexExpr instanceof PyExpr.IntLit lit)
        || lit.value().signum() < 0
        || lit.value().bitLength() >= 31) {
      throw src.error(
          a.line(),
          "the index is not a non-negative integer",
          "Graph code indexes the results of multi-output calls with integers.");
    }
    Node baseNode = byName.get(base.id());
    if (baseNode == null) {
      throw src.error(
          a.line(),
          "`" + base.id() + "` is not a node defined above this line",
          "Every name must be assigned (or be an input) before it is used.");
    }
    int index = lit.value().intValue();
    TensorType annotated = a.annotation() == null ? null : types.parse(a.annotation(), a.line());
    if (taggedAliases.contains(base.id())) {
      TensorType t = annotated != null ? annotated : baseNode.type();
      return new NodeSpec(
          NodeOp.CALL_FUNCTION,
          OpNames.ALIAS,
          List.of(new Arg.NodeRef(base.id())),
          Map.of(),
          single(t, a.stackTrace()));
    }
    if (!baseNode.meta().tuple()) {
      throw src.error(
          a.line(),
          "`"
              + base.id()
              + "` is a single value, not the tuple of a multi-output call, so it"
              + " cannot be indexed",
          "Only unannotated results of multi-output calls are indexed in graph code.");
    }
    List<TensorType> items = baseNode.meta().types();
    TensorType t = annotated != null ? annotated : index < items.size() ? items.get(index) : null;
    if (t == null) {
      throw src.error(
          a.line(),
          "`"
              + a.target()
              + "` has no type annotation, and the type of `"
              + base.id()
              + "["
              + index
              + "]` cannot be derived",
          "Print the graph with its type annotations, e.g. `"
              + a.target()
              + ": \"f32[8, 16]\" = "
              + base.id()
              + "["
              + index
              + "]`.");
    }
    return new NodeSpec(
        NodeOp.CALL_FUNCTION,
        "getitem",
        List.of(new Arg.NodeRef(base.id()), new Arg.IntArg(index)),
        Map.of(),
        single(t, a.stackTrace()));
  }

  /** {@code tg.log_tensor(x, 'name')} and {@code tg.inplace_log_tensor(x, 'name')}. */
  private NodeSpec tagging(Statement.Assign a, PyExpr.Call call, String target) {
    PyExpr tensor = call.args().size() > 0 ? call.args().get(0) : call.kwargs().get("t");
    PyExpr name = call.args().size() > 1 ? call.args().get(1) : call.kwargs().get("s");
    if (!(tensor instanceof PyExpr.Name) || !(name instanceof PyExpr.StrLit s)) {
      throw src.error(
          a.line(),
          "cannot find the tensor and the name of this tagging call",
          "torch prints it as torch.ops." + target + "(x, 'name').");
    }
    if (!(args.convert(tensor) instanceof Arg.NodeRef ref)) {
      throw src.error(a.line(), "the tagged value is not a node", "Tag tensors only.");
    }
    TensorType t =
        a.annotation() != null
            ? types.parse(a.annotation(), a.line())
            : byName.get(ref.name()).type();
    if (t == null) {
      throw src.error(a.line(), "the tagged value is not a single tensor", "Tag tensors only.");
    }
    return new NodeSpec(
        NodeOp.CALL_FUNCTION,
        OpNames.ALIAS,
        List.of(ref),
        Map.of(),
        new Meta(List.of(t), false, a.stackTrace(), s.value(), null));
  }

  /** Python builtins on symbols: {@code s0 + 1}, {@code operator.ge(x, 0)}, {@code -s0}. */
  private NodeSpec builtin(
      Statement.Assign a, String op, List<PyExpr> operands, Map<String, PyExpr> kw) {
    if (op == null) {
      throw src.error(a.line(), "cannot read this operation", ADVICE);
    }
    if (op.equals("getitem")) {
      throw src.error(a.line(), "operator.getitem takes a node and an integer index", ADVICE);
    }
    List<Arg> converted = args.convertAll(operands);
    Map<String, Arg> kwargs = new LinkedHashMap<>();
    kw.forEach((k, v) -> kwargs.put(k, args.convert(v)));
    Meta meta;
    if (a.annotation() != null || indexUses.containsKey(a.target())) {
      meta = resultMeta(a, op);
    } else {
      meta = single(derivedScalar(a, op, converted), a.stackTrace());
    }
    return new NodeSpec(NodeOp.CALL_FUNCTION, op, converted, kwargs, meta);
  }

  /** The type of unannotated arithmetic on symbolic scalars. */
  private TensorType derivedScalar(Statement.Assign a, String op, List<Arg> operands) {
    boolean anyFloat = false;
    for (Arg x : operands) {
      if (x instanceof Arg.NodeRef r) {
        TensorType t = byName.get(r.name()).type();
        if (t == null || t.rank() != 0) {
          throw src.error(
              a.line(),
              "the result `"
                  + a.target()
                  + "` has no type annotation, and `"
                  + r.name()
                  + "` is not a scalar, so its type is unknown",
              "Print the graph with its type annotations.");
        }
        anyFloat |= t.dtype().startsWith("float");
      } else if (x instanceof Arg.FloatArg) {
        anyFloat = true;
      }
    }
    return new TensorType(List.of(), PythonOperators.resultDtype(op, anyFloat));
  }

  // ---- output ----

  private void output(Statement.Return r) {
    PyExpr value = r.value();
    List<PyExpr> items;
    if (value instanceof PyExpr.Sequence seq) {
      items = seq.items();
    } else if (value instanceof PyExpr.Call call
        && "pytree.tree_unflatten".equals(PyExpr.dotted(call.func()))
        && !call.args().isEmpty()
        && call.args().get(0) instanceof PyExpr.Sequence seq) {
      items = seq.items();
    } else {
      items = List.of(value);
    }
    List<Arg> outs = args.convertAll(items);
    String name = "output";
    for (int i = 1; byName.containsKey(name); i++) {
      name = "output_" + i;
    }
    add(
        name,
        r.line(),
        new NodeSpec(
            NodeOp.OUTPUT, "output", List.of(new Arg.ListArg(outs)), Map.of(), Meta.empty()));
  }

  // ---- helpers ----

  private void add(String name, int line, NodeSpec spec) {
    if (byName.containsKey(name)) {
      throw src.error(
          line, "`" + name + "` is defined twice; graph code defines each name once", ADVICE);
    }
    Node n =
        new Node(
            name, spec.op(), spec.target(), spec.args(), spec.kwargs(), spec.meta(), nodes.size());
    nodes.add(n);
    byName.put(name, n);
  }

  private static Meta single(TensorType t, String stackTrace) {
    return new Meta(List.of(t), false, stackTrace, null, null);
  }
}
