package dev.entangle.importer.hlo;

import dev.entangle.graph.Arg;
import dev.entangle.graph.Graph;
import dev.entangle.graph.Meta;
import dev.entangle.graph.NodeOp;
import dev.entangle.importer.SourceFile;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Builds one rank's graph from an HLO module: one node per instruction of the entry computation
 * (calls and fusions inlined), named after the instruction, with target {@code xla.OPCODE} ({@code
 * -} spelled {@code _}) and the attributes as kwargs; the core language's lowering ({@code
 * ops.XlaLowering}) gives them their meaning. Besides:
 *
 * <ul>
 *   <li>parameters are inputs, tagged with their metadata's {@code op_name} (JAX's argument names),
 *       which relation files may use; {@code get-tuple-element} is a {@code getitem}; the ROOT
 *       tuple's elements are the graph's outputs;
 *   <li>values computed from literals and the rank ({@code partition-id}, {@code replica-id}
 *       evaluate to the rank) are constants of that rank, and a {@code dynamic-slice} or {@code
 *       dynamic-update-slice} at known offsets is a plain {@code xla.slice} or an update at those
 *       offsets;
 *   <li>a {@code reduce} names its reducer ({@code reducer}: add, max, min, ...) and the values of
 *       its initial values ({@code init_values}); a {@code custom-call} the values of its scalar
 *       literal operands ({@code operand_values});
 *   <li>literals: a scalar is {@code value}, a printed array {@code values} (or, above {@value
 *       #MAX_LISTED} elements, the {@code digest} of its text); an array whose values the dump
 *       elides ({@code {...}}) is identified by its instruction's name and printed form alone
 *       ({@code instruction}, {@code literal}): see {@code package-info};
 *   <li>collectives become torch's functional collectives ({@link HloCollectives}).
 * </ul>
 */
final class HloNodes {
  /** Attributes that do not change what an instruction computes. */
  static final Set<String> IGNORED_ATTRIBUTES =
      Set.of(
          "metadata",
          "sharding",
          "frontend_attributes",
          "channel_id",
          "api_version",
          "operand_layout_constraints",
          "output_to_operand_aliasing",
          "statistics_viz",
          "control-predecessors",
          "schedule",
          "custom_call_schedule",
          "result_accuracy",
          "origin",
          "backend_config");

  /** The fewest operands of variadic instructions that the importer reads by position. */
  private static final Map<String, Integer> MIN_OPERANDS =
      Map.of(
          "dynamic-slice", 1,
          "dynamic-update-slice", 2,
          "reduce", 2,
          "concatenate", 1,
          "all-reduce", 1,
          "all-gather", 1,
          "reduce-scatter", 1,
          "all-to-all", 1,
          "collective-permute", 1);

  /** Printed literals with more elements are identified by a digest of their text. */
  static final int MAX_LISTED = 4096;

  private final SourceFile src;
  private final HloModule module;
  private final int rank;
  private final GraphSink sink;
  private final KnownValues known;
  private final HloCollectives collectives;
  private final BodyTexts bodies;
  private final Map<String, HloInstruction> defs = new LinkedHashMap<>();

  /**
   * @param rank the rank whose graph this is (0 for a one-rank program)
   * @param worldSize the number of ranks the program runs on
   * @param processGroups receives the process groups the collectives use
   */
  HloNodes(
      SourceFile src,
      HloModule module,
      int rank,
      int worldSize,
      Map<String, List<Integer>> processGroups) {
    this.src = src;
    this.module = module;
    this.rank = rank;
    this.sink = new GraphSink(src);
    this.known = new KnownValues(rank);
    this.collectives = new HloCollectives(src, module, sink, rank, worldSize, processGroups);
    this.bodies = new BodyTexts(src, module);
  }

  Graph build(String graphName) {
    String root =
        Inliner.flatten(
            src,
            module,
            new Inliner.Consumer() {
              @Override
              public void accept(HloInstruction ins) {
                defs.put(ins.name(), ins);
                known.evaluate(ins);
                emit(ins);
              }

              @Override
              public Double knownScalar(String name) {
                KnownValues.Known k = known.of(name);
                return k != null && k.isScalar() ? k.scalar() : null;
              }
            });
    List<Arg> outputs = new ArrayList<>();
    outputsOf(defs.get(root), outputs);
    sink.add(
        sink.fresh("output"),
        NodeOp.OUTPUT,
        "output",
        List.of(new Arg.ListArg(outputs)),
        Map.of(),
        Meta.empty());
    return new Graph(graphName, src.name(), sink.nodes());
  }

  private void emit(HloInstruction ins) {
    checkOpcode(ins);
    HloAttributes attrs = new HloAttributes(src, ins);
    attrs.sharding();
    attrs.frontendAttributes();
    String trace = HloStackTraces.of(attrs.metadata());
    KnownValues.Known k = known.of(ins.name());
    if (k != null && k.rankDependent() && !ins.opcode().equals("parameter")) {
      constant(ins, k.values(), trace);
      return;
    }
    switch (ins.opcode()) {
      case "parameter" -> {
        if (!(ins.type() instanceof HloType.Array)) {
          throw src.error(
              ins.line(),
              "the parameter `" + ins.name() + "` is a tuple, which is not supported yet",
              "Dump the program with its parameters flattened into arrays.");
        }
        String argName = attrs.metadata().get("op_name");
        Meta m = sink.meta(ins.type(), null, ins);
        sink.add(
            ins.name(),
            NodeOp.PLACEHOLDER,
            ins.name(),
            List.of(),
            Map.of(),
            argName == null || argName.isBlank()
                ? m
                : new Meta(m.types(), false, null, argName, null));
      }
      case "get-tuple-element" ->
          sink.call(
              ins.name(),
              "getitem",
              List.of(ref(ins.operands().get(0)), new Arg.IntArg(tupleIndex(ins, attrs))),
              Map.of(),
              sink.meta(ins.type(), trace, ins));
      case "tuple" -> {
        if (!ins.root()) {
          sink.call(
              ins.name(),
              "xla.tuple",
              refs(ins.operands()),
              Map.of(),
              sink.meta(ins.type(), trace, ins));
        }
      }
      case "constant" -> {
        if (!(ins.type() instanceof HloType.Array a)) {
          throw src.error(
              ins.line(),
              "the tuple literal `" + ins.name() + "` is not supported yet",
              HloParser.ADVICE);
        }
        constant(ins, HloLiteral.values(ins.operandText(), a), trace);
      }
      case "all-reduce-done", "all-gather-done", "collective-permute-done" ->
          sink.call(
              ins.name(),
              "xla.copy",
              refs(ins.operands()),
              Map.of(),
              sink.meta(ins.type(), trace, ins));
      case "dynamic-slice" -> dynamicSlice(ins, attrs, trace);
      case "dynamic-update-slice" -> dynamicUpdateSlice(ins, trace);
      case "reduce" -> reduce(ins, attrs, trace);
      case "reduce-window" -> reduceWindow(ins, attrs, trace);
      case "custom-call" -> customCall(ins, attrs, trace);
      case "slice" -> {
        long[][] r = attrs.sliceRanges("slice");
        Map<String, Arg> kw = new LinkedHashMap<>();
        kw.put("start_indices", column(r, 0));
        kw.put("limit_indices", column(r, 1));
        kw.put("strides", column(r, 2));
        sink.call(
            ins.name(), "xla.slice", refs(ins.operands()), kw, sink.meta(ins.type(), trace, ins));
      }
      case "pad" -> {
        long[][] p = attrs.padding("padding");
        Map<String, Arg> kw = new LinkedHashMap<>();
        kw.put("edge_padding_low", column(p, 0));
        kw.put("edge_padding_high", column(p, 1));
        kw.put("interior_padding", column(p, 2));
        sink.call(
            ins.name(), "xla.pad", refs(ins.operands()), kw, sink.meta(ins.type(), trace, ins));
      }
      default -> {
        if (HloCollectives.isCollective(ins.opcode())) {
          collectives.emit(ins, trace);
        } else {
          generic(ins, trace, kwargs(ins));
        }
      }
    }
  }

  private void generic(HloInstruction ins, String trace, Map<String, Arg> kwargs) {
    if (SHAPED_BY_TYPE.contains(ins.opcode()) && ins.type() instanceof HloType.Array a) {
      kwargs.put("shape", ints(a.dims()));
    }
    sink.call(
        ins.name(),
        target(ins.opcode()),
        refs(ins.operands()),
        kwargs,
        sink.meta(ins.type(), trace, ins));
  }

  /**
   * Instructions whose type alone defines their result's shape: it is written as their {@code
   * shape} too.
   */
  private static final Set<String> SHAPED_BY_TYPE =
      Set.of("broadcast", "reshape", "iota", "bitcast");

  static String target(String opcode) {
    return "xla." + opcode.replace('-', '_');
  }

  /** A literal (values null: elided) or a value known from literals and the rank. */
  private void constant(HloInstruction ins, double[] values, String trace) {
    HloType.Array type = (HloType.Array) ins.type();
    Map<String, Arg> kw = new LinkedHashMap<>();
    if (values != null && values.length == 1 && type.rank() == 0) {
      kw.put("value", number(values[0], type.elementType()));
    } else if (values != null && values.length <= MAX_LISTED) {
      List<Arg> items = new ArrayList<>();
      for (double v : values) {
        items.add(number(v, type.elementType()));
      }
      kw.put("values", new Arg.ListArg(items));
    } else if (values != null) {
      kw.put("digest", new Arg.StrArg(digest(ins.operandText().strip())));
    } else {
      kw.put("instruction", new Arg.StrArg(ins.name()));
      kw.put("literal", new Arg.StrArg(ins.operandText().strip()));
    }
    kw.put("shape", ints(type.dims()));
    sink.call(ins.name(), "xla.constant", List.of(), kw, sink.meta(type, trace, ins));
  }

  private void dynamicSlice(HloInstruction ins, HloAttributes attrs, String trace) {
    long[] starts = knownScalars(ins.operands().subList(1, ins.operands().size()));
    HloType.Array in = arrayOf(ins.operands().get(0), ins);
    long[] sizes = attrs.requiredInts("dynamic_slice_sizes");
    if (starts == null || starts.length != in.rank() || sizes.length != in.rank()) {
      generic(ins, trace, kwargs(ins));
      return;
    }
    long[] dims = in.dims();
    for (int i = 0; i < dims.length; i++) {
      if (sizes[i] > dims[i]) {
        throw src.error(
            ins.line(),
            "`" + ins.name() + "` takes " + sizes[i] + " along dim " + i + " of " + dims[i],
            HloParser.ADVICE);
      }
    }
    List<Arg> start = new ArrayList<>();
    List<Arg> limit = new ArrayList<>();
    List<Arg> strides = new ArrayList<>();
    for (int i = 0; i < dims.length; i++) {
      long s = KnownValues.clampStart(starts[i], dims[i], sizes[i]);
      start.add(new Arg.IntArg(s));
      limit.add(new Arg.IntArg(s + sizes[i]));
      strides.add(new Arg.IntArg(1));
    }
    Map<String, Arg> kw = new LinkedHashMap<>();
    kw.put("start_indices", new Arg.ListArg(start));
    kw.put("limit_indices", new Arg.ListArg(limit));
    kw.put("strides", new Arg.ListArg(strides));
    sink.call(
        ins.name(),
        "xla.slice",
        List.of(ref(ins.operands().get(0))),
        kw,
        sink.meta(ins.type(), trace, ins));
  }

  private void dynamicUpdateSlice(HloInstruction ins, String trace) {
    List<String> ops = ins.operands();
    long[] starts = ops.size() > 2 ? knownScalars(ops.subList(2, ops.size())) : null;
    HloType.Array in = arrayOf(ops.get(0), ins);
    HloType.Array update = arrayOf(ops.get(1), ins);
    if (starts == null || starts.length != in.rank()) {
      generic(ins, trace, kwargs(ins));
      return;
    }
    if (update.rank() != in.rank()) {
      throw src.error(
          ins.line(),
          "`" + ins.name() + "` updates with a value of another rank",
          HloParser.ADVICE);
    }
    for (int i = 0; i < in.rank(); i++) {
      if (update.dims()[i] > in.dims()[i]) {
        throw src.error(
            ins.line(),
            "`"
                + ins.name()
                + "` writes "
                + update.dims()[i]
                + " along dim "
                + i
                + " of "
                + in.dims()[i],
            HloParser.ADVICE);
      }
    }
    List<Arg> start = new ArrayList<>();
    for (int i = 0; i < starts.length; i++) {
      start.add(new Arg.IntArg(KnownValues.clampStart(starts[i], in.dims()[i], update.dims()[i])));
    }
    sink.call(
        ins.name(),
        "xla.dynamic_update_slice",
        refs(ops.subList(0, 2)),
        Map.of("start_indices", new Arg.ListArg(start)),
        sink.meta(ins.type(), trace, ins));
  }

  private void reduce(HloInstruction ins, HloAttributes attrs, String trace) {
    Map<String, Arg> kw = new LinkedHashMap<>();
    kw.put("dimensions", ints(attrs.requiredInts("dimensions")));
    String name = attrs.computation("to_apply");
    HloComputation body = name == null ? null : module.computation(name);
    if (body == null) {
      throw src.error(
          ins.line(),
          "`" + ins.name() + "` reduces with `" + name + "`, which the module does not define",
          HloParser.ADVICE);
    }
    String reducer = Computations.reducer(body);
    if (reducer == null) {
      reducer = Computations.pairReducer(body);
    }
    kw.put("reducer", new Arg.StrArg(reducer != null ? reducer : bodies.text(body, ins)));
    if (ins.operands().size() % 2 != 0) {
      throw src.error(
          ins.line(),
          "`"
              + ins.name()
              + "` reduces "
              + ins.operands().size()
              + " operands, not pairs of"
              + " inputs and initial values",
          HloParser.ADVICE);
    }
    int n = ins.operands().size() / 2;
    kw.put("init_values", operandValues(ins.operands().subList(n, ins.operands().size())));
    generic(ins, trace, kw);
  }

  /**
   * A reduce-window of one operand: its window text as written, its reducer named as a reduce's is
   * (or its body's text), and its initial value when known.
   */
  private void reduceWindow(HloInstruction ins, HloAttributes attrs, String trace) {
    Map<String, Arg> kw = kwargs(ins);
    String name = attrs.computation("to_apply");
    HloComputation body = name == null ? null : module.computation(name);
    if (body != null && ins.operands().size() == 2) {
      String reducer = Computations.reducer(body);
      kw.put("reducer", new Arg.StrArg(reducer != null ? reducer : bodies.text(body, ins)));
      kw.put("init_values", operandValues(ins.operands().subList(1, 2)));
    }
    generic(ins, trace, kw);
  }

  private void customCall(HloInstruction ins, HloAttributes attrs, String trace) {
    Map<String, Arg> kw = kwargs(ins);
    String config = attrs.backendConfig();
    if (config != null) {
      kw.put("backend_config", new Arg.StrArg(config));
    }
    kw.put("operand_values", operandValues(ins.operands()));
    generic(ins, trace, kw);
  }

  /** The known scalar values of operands (None where unknown). */
  private Arg operandValues(List<String> operands) {
    List<Arg> out = new ArrayList<>();
    for (String o : operands) {
      KnownValues.Known k = known.of(o);
      out.add(k != null && k.isScalar() ? number(k.scalar(), k.type().elementType()) : Arg.NONE);
    }
    return new Arg.ListArg(out);
  }

  /** The values of scalar operands when all are known, else null. */
  private long[] knownScalars(List<String> operands) {
    long[] out = new long[operands.size()];
    for (int i = 0; i < out.length; i++) {
      KnownValues.Known k = known.of(operands.get(i));
      if (k == null || !k.isScalar()) {
        return null;
      }
      out[i] = (long) k.scalar();
    }
    return out;
  }

  /**
   * The attributes as kwargs: integer lists, integers, booleans, strings; called bodies as text.
   */
  private Map<String, Arg> kwargs(HloInstruction ins) {
    Map<String, Arg> kw = new LinkedHashMap<>();
    ins.attributes()
        .forEach(
            (k, v) -> {
              if (!IGNORED_ATTRIBUTES.contains(k)) {
                kw.put(k, attributeArg(ins, v));
              }
            });
    return kw;
  }

  private Arg attributeArg(HloInstruction ins, String raw) {
    String v = raw.strip();
    HloComputation called = bodies.named(v);
    if (called != null) {
      return new Arg.StrArg(bodies.text(called, ins));
    }
    if (v.startsWith("{%") || v.startsWith("{ %")) {
      return new Arg.StrArg(calledList(ins, v));
    }
    if (v.startsWith("\"")) {
      return new Arg.StrArg(HloAttributes.unquote(v));
    }
    if (v.equals("true") || v.equals("false")) {
      return new Arg.BoolArg(v.equals("true"));
    }
    if (v.matches("-?\\d+")) {
      return new Arg.IntArg(integer(ins, v));
    }
    if (v.matches("\\{\\s*(-?\\d+\\s*(,\\s*-?\\d+\\s*)*)?}")) {
      List<Arg> items = new ArrayList<>();
      for (String p : v.substring(1, v.length() - 1).split(",")) {
        if (!p.isBlank()) {
          items.add(new Arg.IntArg(integer(ins, p.strip())));
        }
      }
      return new Arg.ListArg(items);
    }
    return new Arg.StrArg(v);
  }

  /** A list of called computations ({@code branch_computations={%a, %b}}) as their texts. */
  private String calledList(HloInstruction ins, String v) {
    List<String> out = new ArrayList<>();
    for (String piece : HloAttributes.splitTopLevel(v.substring(1, v.length() - 1))) {
      HloComputation c = bodies.named(piece);
      if (c == null) {
        throw src.error(
            ins.line(),
            "`" + ins.name() + "` names `" + piece.strip() + "`, which the module does not define",
            HloParser.ADVICE);
      }
      out.add(bodies.text(c, ins));
    }
    return String.join(", ", out);
  }

  private long integer(HloInstruction ins, String digits) {
    try {
      return Long.parseLong(digits);
    } catch (NumberFormatException e) {
      throw src.error(
          ins.line(),
          "the number " + digits + " in an attribute of `" + ins.name() + "` is out of range",
          "Attribute numbers are 64-bit integers.");
    }
  }

  /** The {@code index} of a {@code get-tuple-element}, checked against its operand's type. */
  private long tupleIndex(HloInstruction ins, HloAttributes attrs) {
    long index = attrs.integer("index", -1);
    HloInstruction def = ins.operands().size() == 1 ? defs.get(ins.operands().get(0)) : null;
    if (def == null || !(def.type() instanceof HloType.Tuple t)) {
      throw src.error(
          ins.line(),
          "`" + ins.name() + "` takes an element of a value that is not a tuple",
          HloParser.ADVICE);
    }
    if (index < 0 || index >= t.items().size()) {
      throw src.error(
          ins.line(),
          "`"
              + ins.name()
              + "` takes element "
              + index
              + " of a tuple of "
              + t.items().size()
              + " (or has no `index`)",
          HloParser.ADVICE);
    }
    if (!t.items().get((int) index).equals(ins.type())) {
      throw src.error(
          ins.line(),
          "`"
              + ins.name()
              + "` is typed "
              + ins.type()
              + " but element "
              + index
              + " of its operand is "
              + t.items().get((int) index),
          HloParser.ADVICE);
    }
    return index;
  }

  /** An opcode that is no XLA opcode, or one the checker cannot model, is a located error. */
  private void checkOpcode(HloInstruction ins) {
    HloOpcodes.Entry e = HloOpcodes.of(ins.opcode());
    if (e == null) {
      throw src.error(
          ins.line(),
          "`" + ins.opcode() + "` (of `" + ins.name() + "`) is not an XLA opcode",
          "The importer reads the instruction set of XLA's HLO; check the spelling.");
    }
    int arity = HloOpcodes.arity(ins.opcode());
    int least = MIN_OPERANDS.getOrDefault(ins.opcode(), 0);
    int n = ins.operands().size();
    if (arity >= 0 && n != arity || n < least) {
      throw src.error(
          ins.line(),
          "`"
              + ins.name()
              + "` ("
              + ins.opcode()
              + ") has "
              + n
              + " operand"
              + (n == 1 ? "" : "s")
              + ", not "
              + (arity >= 0 ? Integer.toString(arity) : "at least " + least),
          HloParser.ADVICE);
    }
    if (e.status() == HloOpcodes.Status.REFUSED) {
      throw src.error(
          ins.line(),
          "the instruction `" + ins.name() + "` (`" + ins.opcode() + "`) is not supported",
          "Why: " + e.reason() + ".");
    }
  }

  /**
   * The graph outputs of the entry's root: a tuple's elements (nested tuples flattened), or the
   * root.
   */
  private void outputsOf(HloInstruction ins, List<Arg> out) {
    if (ins.opcode().equals("tuple")) {
      for (String o : ins.operands()) {
        HloInstruction def = defs.get(o);
        if (def != null && def.type() instanceof HloType.Tuple) {
          outputsOf(def, out);
        } else {
          out.add(ref(o));
        }
      }
    } else if (ins.type() instanceof HloType.Tuple t) {
      for (int i = 0; i < t.items().size(); i++) {
        String name = sink.fresh(ins.name() + "." + i);
        sink.call(
            name,
            "getitem",
            List.of(ref(ins.name()), new Arg.IntArg(i)),
            Map.of(),
            sink.meta(t.items().get(i), null, ins));
        out.add(ref(name));
      }
    } else {
      out.add(ref(ins.name()));
    }
  }

  private HloType.Array arrayOf(String name, HloInstruction at) {
    HloInstruction def = defs.get(name);
    if (def != null && def.type() instanceof HloType.Array a) {
      return a;
    }
    throw src.error(
        at.line(),
        "the operand `" + name + "` of `" + at.name() + "` is not an array",
        HloParser.ADVICE);
  }

  private static Arg number(double v, String elementType) {
    if (elementType.equals("pred")) {
      return new Arg.BoolArg(v != 0);
    }
    if (!KnownValues.isFloat(elementType)) {
      return new Arg.IntArg((long) v);
    }
    return new Arg.FloatArg(v);
  }

  private static Arg column(long[][] rows, int c) {
    List<Arg> out = new ArrayList<>();
    for (long[] r : rows) {
      out.add(new Arg.IntArg(r[c]));
    }
    return new Arg.ListArg(out);
  }

  private static Arg ints(long[] v) {
    List<Arg> out = new ArrayList<>();
    for (long x : v) {
      out.add(new Arg.IntArg(x));
    }
    return new Arg.ListArg(out);
  }

  private static Arg ref(String name) {
    return new Arg.NodeRef(name);
  }

  private static List<Arg> refs(List<String> names) {
    return names.stream().map(HloNodes::ref).toList();
  }

  private static String digest(String text) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
