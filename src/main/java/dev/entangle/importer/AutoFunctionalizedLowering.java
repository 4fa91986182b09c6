package dev.entangle.importer;

import dev.entangle.graph.Arg;
import dev.entangle.graph.Meta;
import dev.entangle.graph.Node;
import dev.entangle.graph.NodeOp;
import dev.entangle.graph.TensorType;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Imports {@code torch.ops.higher_order.auto_functionalized(OP, arg = x, ...)} and its v2 form, the
 * functional wrapper torch puts around a custom operator that mutates its arguments.
 *
 * <p>The node keeps target {@code higher_order.auto_functionalized}, its first argument is the
 * operator's target string and its kwargs are the operator's arguments. It is a tuple node: its
 * first {@code max(1, R)} items are the operator's own R results (one None item when it returns
 * nothing), and its last items are the new values of the mutated arguments. The importer adds the
 * kwarg {@code _mutated}, the list of those argument names in item order, so that item {@code size
 * - len(_mutated) + i} is the new value of {@code kwargs[_mutated[i]]}. Items nobody indexes take
 * the type of the argument they replace.
 *
 * <p>A v2 call ({@code _all_bases = [...]}, {@code _X_base_index = i}) whose mutated arguments are
 * each a whole base tensor of their own is the same computation, and is imported in exactly that
 * form (its item {@code 1 + i} is the new value of base {@code i}, which is the argument {@code
 * _mutated[i]}). A v2 call that mutates views of its bases keeps target {@code
 * higher_order.auto_functionalized_v2} and its printed kwargs; {@code _mutated[i]} then names the
 * argument viewing {@code _all_bases[i]}, whose new value is item {@code 1 + i}.
 *
 * <p>{@code tg.inplace_log_tensor}, which only names a tensor, becomes {@code aten.alias.default}
 * of that tensor with the name as {@code meta.tag}; its getitems become aliases of that node.
 */
final class AutoFunctionalizedLowering {
  static final String MUTATED = "_mutated";
  private static final String ADVICE =
      "torch prints auto_functionalized(torch.ops.NS.OP.OVERLOAD, arg = value, ...); check that"
          + " the call is as printed.";
  private static final List<String> VIEW_SUFFIXES =
      List.of("_size", "_stride", "_storage_offset", "_slice_dim", "_slice_start", "_slice_end");

  /** The lowered call; {@code taggedAlias} when it became a tagged alias (getitems alias it). */
  record Lowered(NodeSpec spec, boolean taggedAlias) {}

  private final SourceFile src;
  private final SchemaRegistry schemas;
  private final ArgConverter args;
  private final TypeAnnotations types;
  private final Function<String, Node> nodes;

  AutoFunctionalizedLowering(
      SourceFile src,
      SchemaRegistry schemas,
      ArgConverter args,
      TypeAnnotations types,
      Function<String, Node> nodes) {
    this.src = src;
    this.schemas = schemas;
    this.args = args;
    this.types = types;
    this.nodes = nodes;
  }

  Lowered lower(Statement.Assign a, PyExpr.Call call, boolean v2, List<IndexUse> uses) {
    int line = a.line();
    String hop = v2 ? "auto_functionalized_v2" : "auto_functionalized";
    if (call.args().size() != 1) {
      throw src.error(
          line,
          hop
              + " takes the operator as its only positional argument, but this call has "
              + call.args().size(),
          ADVICE);
    }
    String op = OpNames.target(PyExpr.dotted(call.args().get(0)));
    if (op == null) {
      throw src.error(
          line,
          "the first argument of "
              + hop
              + " is not an operator such as"
              + " torch.ops._C.rms_norm.default",
          ADVICE);
    }
    if (a.annotation() != null) {
      throw src.error(
          line,
          hop + " returns a tuple, but `" + a.target() + "` is annotated as one value",
          "Remove the annotation; the items' types come from the getitems that index it.");
    }
    if (op.equals(OpNames.INPLACE_LOG_TENSOR)) {
      return new Lowered(taggedAlias(a, call, v2, uses), true);
    }
    OpSchema schema = schemas.find(op);
    if (schema == null) {
      throw src.error(
          line,
          hop
              + " calls the operator `"
              + op
              + "`, whose schema is unknown, so which arguments it"
              + " mutates is unknown",
          "Declare its schema in a schema file, one line in PyTorch's syntax such as `"
              + SchemaParser.EXAMPLE
              + "` (`Tensor!` marks a mutated argument), and give that file"
              + " to the importer as an extra schema file.");
    }
    Map<String, PyExpr> kw = call.kwargs();
    for (String key : kw.keySet()) {
      if (schema.param(key) == null && !(v2 && key.startsWith("_"))) {
        throw src.error(
            line,
            "`"
                + key
                + "` is not an argument of the declared schema "
                + schema.signature()
                + " ("
                + schema.where()
                + ")",
            "The declared schema does not match this call; declare the operator's schema as the"
                + " graph's PyTorch version registered it, in an extra schema file.");
      }
    }
    if (kw.containsKey(MUTATED)) {
      throw src.error(
          line,
          "the call has a kwarg named `" + MUTATED + "`, which the importer reserves",
          ADVICE);
    }
    Mutation m = v2 ? v2(a, kw, schema) : v1(a, kw, schema);
    Map<String, Arg> kwargs = new LinkedHashMap<>(m.kwargs);
    List<Arg> names = new ArrayList<>();
    for (String n : m.mutated) {
      names.add(new Arg.StrArg(n));
    }
    kwargs.put(MUTATED, new Arg.ListArg(names));
    List<TensorType> items = items(a, op, schema, m, uses);
    Meta meta = new Meta(items, true, a.stackTrace(), null, null);
    return new Lowered(
        new NodeSpec(NodeOp.CALL_FUNCTION, m.target, List.of(new Arg.StrArg(op)), kwargs, meta),
        false);
  }

  /** What a call mutates: the node's target and kwargs, and per mutated item its name and input. */
  private record Mutation(
      String target, Map<String, Arg> kwargs, List<String> mutated, List<TensorType> inputs) {}

  private Mutation v1(Statement.Assign a, Map<String, PyExpr> kw, OpSchema schema) {
    Map<String, Arg> kwargs = new LinkedHashMap<>();
    kw.forEach((k, v) -> kwargs.put(k, args.convert(v)));
    List<String> mutated = new ArrayList<>();
    List<TensorType> inputs = new ArrayList<>();
    for (OpSchema.Param p : schema.mutatedParams()) {
      PyExpr value = kw.get(p.name());
      if (value == null) {
        throw src.error(
            a.line(),
            "the call does not pass `"
                + p.name()
                + "`, which the schema "
                + schema.signature()
                + " ("
                + schema.where()
                + ") says the operator mutates",
            "Fix the declared schema so that it matches the operator.");
      }
      mutated.add(p.name());
      inputs.add(value instanceof PyExpr.Name n ? typeOf(n.id()) : null);
    }
    return new Mutation(OpNames.AUTO_FUNCTIONALIZED, kwargs, mutated, inputs);
  }

  private Mutation v2(Statement.Assign a, Map<String, PyExpr> kw, OpSchema schema) {
    int line = a.line();
    List<String> bases = bases(a, kw);
    List<OpSchema.Param> mutatedParams = schema.mutatedParams();
    Integer[] baseOf = new Integer[mutatedParams.size()];
    String[] ownerOf = new String[bases.size()];
    boolean plain = true;
    List<String> consumed = new ArrayList<>(List.of("_all_bases"));
    for (int i = 0; i < mutatedParams.size(); i++) {
      OpSchema.Param p = mutatedParams.get(i);
      if (p.tensorList()) {
        plain = false;
        continue;
      }
      String key = "_" + p.name() + "_base_index";
      PyExpr index = kw.get(key);
      if (index == null) {
        throw src.error(
            line,
            "the call does not say which base the mutated argument `"
                + p.name()
                + "` is (no `"
                + key
                + "`), though the schema "
                + schema.signature()
                + " ("
                + schema.where()
                + ") says the operator mutates it",
            "Fix the declared schema so that it matches the operator.");
      }
      consumed.add(key);
      consumed.add("_" + p.name() + "_alias");
      if (PyExpr.isNone(index)) {
        continue;
      }
      if (!(index instanceof PyExpr.IntLit lit)
          || lit.value().signum() < 0
          || lit.value().intValue() >= bases.size()
          || lit.value().bitLength() > 31) {
        throw src.error(line, "`" + key + "` is not the index of one of the _all_bases", ADVICE);
      }
      int b = lit.value().intValue();
      baseOf[i] = b;
      for (String suffix : VIEW_SUFFIXES) {
        if (kw.containsKey("_" + p.name() + suffix)) {
          plain = false;
        }
      }
      if (ownerOf[b] == null) {
        ownerOf[b] = p.name();
      } else {
        plain = false;
      }
    }
    for (String key : kw.keySet()) {
      if (key.startsWith("_") && !consumed.contains(key)) {
        plain = false;
      }
    }
    for (String owner : ownerOf) {
      if (owner == null) {
        plain = false;
      }
    }
    List<TensorType> inputs = new ArrayList<>();
    for (String base : bases) {
      inputs.add(typeOf(base));
    }
    if (!plain) {
      Map<String, Arg> kwargs = new LinkedHashMap<>();
      kw.forEach((k, v) -> kwargs.put(k, args.convert(v)));
      List<String> mutated = new ArrayList<>();
      for (int b = 0; b < bases.size(); b++) {
        mutated.add(ownerOf[b] != null ? ownerOf[b] : listOwner(kw, b));
      }
      return new Mutation(OpNames.AUTO_FUNCTIONALIZED_V2, kwargs, mutated, inputs);
    }
    Map<String, Arg> kwargs = new LinkedHashMap<>();
    for (OpSchema.Param p : schema.params()) {
      int at = mutatedParams.indexOf(p);
      if (at >= 0) {
        kwargs.put(
            p.name(), baseOf[at] == null ? Arg.NONE : new Arg.NodeRef(bases.get(baseOf[at])));
      } else if (kw.containsKey(p.name())) {
        kwargs.put(p.name(), args.convert(kw.get(p.name())));
      }
    }
    return new Mutation(OpNames.AUTO_FUNCTIONALIZED, kwargs, Arrays.asList(ownerOf), inputs);
  }

  private List<String> bases(Statement.Assign a, Map<String, PyExpr> kw) {
    PyExpr all = kw.get("_all_bases");
    if (!(all instanceof PyExpr.Sequence seq)) {
      throw src.error(a.line(), "auto_functionalized_v2 has no `_all_bases = [...]` list", ADVICE);
    }
    List<String> out = new ArrayList<>();
    for (PyExpr e : seq.items()) {
      if (!(args.convert(e) instanceof Arg.NodeRef ref)) {
        throw src.error(a.line(), "an item of `_all_bases` is not a node", ADVICE);
      }
      out.add(ref.name());
    }
    return out;
  }

  /** The argument a base belongs to when only list elements ({@code _X_J_base_index}) use it. */
  private static String listOwner(Map<String, PyExpr> kw, int base) {
    for (Map.Entry<String, PyExpr> e : kw.entrySet()) {
      String k = e.getKey();
      if (k.startsWith("_")
          && k.endsWith("_base_index")
          && e.getValue() instanceof PyExpr.IntLit i
          && i.value().intValue() == base) {
        return k.substring(1, k.length() - "_base_index".length());
      }
    }
    return "_all_bases[" + base + "]";
  }

  private List<TensorType> items(
      Statement.Assign a, String op, OpSchema schema, Mutation m, List<IndexUse> uses) {
    int offset = Math.max(1, schema.returnCount());
    int size = offset + m.mutated.size();
    List<TensorType> items = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      items.add(i < offset ? null : m.inputs.get(i - offset));
    }
    for (IndexUse use : uses) {
      int i = use.index();
      if (i >= size) {
        throw src.error(
            use.line(),
            "`"
                + a.target()
                + "["
                + i
                + "]` is out of range: "
                + a.target()
                + " has "
                + size
                + " items ("
                + offset
                + " for what `"
                + op
                + "` returns, then the new values of "
                + String.join(", ", m.mutated)
                + ")",
            "Check the declared schema of `" + op + "` (" + schema.where() + ").");
      }
      if (i < offset && schema.returnCount() == 0) {
        throw src.error(
            use.line(),
            "`" + a.target() + "[" + i + "]` is None: `" + op + "` returns nothing",
            "Only the items after the first, the new values of the mutated arguments, hold tensors.");
      }
      if (use.annotation() == null) {
        continue;
      }
      TensorType t = types.parse(use.annotation(), use.line());
      TensorType known = items.get(i);
      if (known != null && !known.equals(t)) {
        String what =
            i >= offset
                ? "it is the new value of `" + m.mutated.get(i - offset) + "`, which is " + known
                : "another getitem annotates it as " + known;
        throw src.error(
            use.line(),
            "`" + a.target() + "[" + i + "]` is annotated " + t + ", but " + what,
            "Check the declared schema of `"
                + op
                + "` ("
                + schema.where()
                + "): its mutated"
                + " arguments must be listed in the operator's order.");
      }
      items.set(i, t);
    }
    return items;
  }

  private NodeSpec taggedAlias(
      Statement.Assign a, PyExpr.Call call, boolean v2, List<IndexUse> uses) {
    int line = a.line();
    Map<String, PyExpr> kw = call.kwargs();
    PyExpr tensor;
    if (v2) {
      List<String> bases = bases(a, kw);
      PyExpr index = kw.get("_t_base_index");
      if (!(index instanceof PyExpr.IntLit lit)
          || lit.value().signum() < 0
          || lit.value().compareTo(BigInteger.valueOf(bases.size())) >= 0) {
        throw src.error(line, "`_t_base_index` is not the index of one of the _all_bases", ADVICE);
      }
      for (String key : kw.keySet()) {
        if (key.startsWith("_t_") && !key.equals("_t_base_index") && !key.equals("_t_alias")) {
          throw src.error(
              line,
              "the tagged tensor is a view of its base (`" + key + "`), which is not supported",
              "Tag whole tensors.");
        }
      }
      PyExpr.Span span = call.span();
      tensor = new PyExpr.Name(bases.get(lit.value().intValue()), span);
    } else {
      tensor = kw.get("t");
    }
    PyExpr name = kw.get("s");
    if (!(tensor instanceof PyExpr.Name t) || !(name instanceof PyExpr.StrLit s)) {
      throw src.error(
          line,
          "cannot find the tensor `t` and the name `s` of this tagging call",
          "torch prints it as auto_functionalized(torch.ops.tg.inplace_log_tensor.default, t = x,"
              + " s = 'name').");
    }
    Arg ref = args.convert(t);
    TensorType type = typeOf(t.id());
    if (type == null) {
      throw src.error(
          line, "the tagged value `" + t.id() + "` is not a single tensor", "Tag tensors only.");
    }
    for (IndexUse use : uses) {
      if (use.index() != 1) {
        throw src.error(
            use.line(),
            "`" + a.target() + "[" + use.index() + "]` is not the tagged tensor, which is item 1",
            "tg.inplace_log_tensor returns nothing; only item 1, the tagged tensor, can be indexed.");
      }
    }
    return new NodeSpec(
        NodeOp.CALL_FUNCTION,
        OpNames.ALIAS,
        List.of(ref),
        Map.of(),
        new Meta(List.of(type), false, a.stackTrace(), s.value(), null));
  }

  private TensorType typeOf(String name) {
    Node n = nodes.apply(name);
    return n == null ? null : n.type();
  }
}
