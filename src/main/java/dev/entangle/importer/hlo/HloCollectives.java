package dev.entangle.importer.hlo;

import dev.entangle.graph.Arg;
import dev.entangle.graph.Meta;
import dev.entangle.importer.SourceFile;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * HLO's collectives on one rank as torch's functional collectives (docs/formats.md, Collectives),
 * each followed by its {@code wait_tensor}; the value users read keeps the instruction's name, the
 * call is {@code NAME.start}. The ids in {@code replica_groups} and {@code source_target_pairs} are
 * taken as ranks (an SPMD program run once per rank); each group is a process group named by its
 * ranks ({@code 0,1}). Where HLO differs from torch:
 *
 * <ul>
 *   <li>{@code all-gather} and {@code all-to-all} along a dim d other than 0 move d to the front
 *       and back ({@code NAME.t}, {@code NAME.wait}); moving dims commutes with gathering and
 *       exchanging along them;
 *   <li>{@code reduce-scatter} along a dim d other than 0 is the all-reduce of which each rank
 *       keeps its block of dim d ({@code NAME.wait}, then the slice {@code NAME});
 *   <li>{@code collective-permute} is, for each pair (s, t) the rank is in, a {@code broadcast}
 *       from s in the group {s, t}; a rank no pair sends to gets zeros, as XLA defines.
 * </ul>
 *
 * The reducer ({@code to_apply}) must be recognised as add, max or min.
 */
final class HloCollectives {
  private static final String NS = "_c10d_functional.";
  private static final String WAIT = NS + "wait_tensor.default";

  private final SourceFile src;
  private final HloModule module;
  private final GraphSink sink;
  private final int rank;
  private final int worldSize;
  private final Map<String, List<Integer>> processGroups;

  /**
   * @param processGroups receives every group the collectives use, by name (shared by all ranks)
   */
  HloCollectives(
      SourceFile src,
      HloModule module,
      GraphSink sink,
      int rank,
      int worldSize,
      Map<String, List<Integer>> processGroups) {
    this.src = src;
    this.module = module;
    this.sink = sink;
    this.rank = rank;
    this.worldSize = worldSize;
    this.processGroups = processGroups;
  }

  static boolean isCollective(String opcode) {
    return switch (opcode) {
      case "all-reduce",
          "all-reduce-start",
          "all-gather",
          "all-gather-start",
          "reduce-scatter",
          "all-to-all",
          "collective-permute",
          "collective-permute-start" ->
          true;
      default -> false;
    };
  }

  /**
   * Emits the nodes of one collective instruction. An asynchronous start ({@code all-gather-start},
   * {@code collective-permute-start}: a tuple of the operand, the result and, for the latter,
   * context) is the collective itself, its value the result; the matching {@code -done} copies it.
   */
  void emit(HloInstruction ins, String trace) {
    HloType type = ins.type();
    if (ins.opcode().endsWith("-start")
        && type instanceof HloType.Tuple t
        && t.items().size() >= 2) {
      type = t.items().get(1);
    }
    if (ins.operands().size() != 1 || !(type instanceof HloType.Array out)) {
      throw unsupported(ins, "of several operands (or with a tuple result)");
    }
    HloAttributes attrs = new HloAttributes(src, ins);
    String x = ins.operands().get(0);
    switch (ins.opcode().replace("-start", "")) {
      case "all-reduce" -> {
        String group = group(ins, attrs);
        String op = reduceOp(ins, attrs);
        String start = sink.fresh(ins.name() + ".start");
        sink.call(
            start,
            NS + "all_reduce.default",
            List.of(ref(x), str(op), str(group)),
            Map.of(),
            sink.meta(out, trace, ins));
        sink.call(ins.name(), WAIT, List.of(ref(start)), Map.of(), sink.meta(out, trace, ins));
      }
      case "all-gather" -> {
        String group = group(ins, attrs);
        int size = processGroups.get(group).size();
        alongDim(
            ins,
            attrs,
            x,
            out,
            trace,
            in -> {
              long[] dims = in.dims();
              dims[0] *= size;
              return new Call(
                  NS + "all_gather_into_tensor.default",
                  List.of(new Arg.IntArg(size), str(group)),
                  dims);
            });
      }
      case "reduce-scatter" -> {
        String group = group(ins, attrs);
        String op = reduceOp(ins, attrs);
        int size = processGroups.get(group).size();
        long[] along = attrs.requiredInts("dimensions");
        if (along.length == 1 && along[0] > 0) {
          scatterAfterReduce(ins, (int) along[0], x, out, op, group, trace);
          return;
        }
        alongDim(
            ins,
            attrs,
            x,
            out,
            trace,
            in -> {
              long[] dims = in.dims();
              dims[0] /= size;
              return new Call(
                  NS + "reduce_scatter_tensor.default",
                  List.of(str(op), new Arg.IntArg(size), str(group)),
                  dims);
            });
      }
      case "all-to-all" -> {
        if (!attrs.has("dimensions")) {
          throw unsupported(ins, "in its tuple form (without `dimensions`)");
        }
        String group = group(ins, attrs);
        Arg equal = new Arg.ListArg(List.of());
        alongDim(
            ins,
            attrs,
            x,
            out,
            trace,
            in ->
                new Call(
                    NS + "all_to_all_single.default",
                    List.of(equal, equal, str(group)),
                    in.dims()));
      }
      default -> permute(ins, attrs, x, out, trace);
    }
  }

  private record Call(String target, List<Arg> restArgs, long[] dims) {}

  private interface CallOf {
    Call of(HloType.Array input);
  }

  /**
   * A dim-0 collective applied along {@code dimensions={d}}: the dim moved to the front and back.
   */
  private void alongDim(
      HloInstruction ins,
      HloAttributes attrs,
      String x,
      HloType.Array out,
      String trace,
      CallOf call) {
    long[] dims = attrs.requiredInts("dimensions");
    HloType.Array in = operandType(ins, x, out);
    if (dims.length != 1 || dims[0] < 0 || dims[0] >= in.rank()) {
      throw src.error(
          ins.line(),
          "`" + ins.name() + "` needs one dimension of its operand in `dimensions`",
          HloParser.ADVICE);
    }
    int d = (int) dims[0];
    String input = x;
    HloType.Array moved = in;
    if (d != 0) {
      moved = swapped(in, d);
      input = sink.fresh(ins.name() + ".t");
      sink.call(
          input,
          "xla.transpose",
          List.of(ref(x)),
          Map.of("dimensions", swap(in.rank(), d)),
          sink.meta(moved, trace, ins));
    }
    Call c = call.of(moved);
    List<Arg> args = new ArrayList<>();
    args.add(ref(input));
    args.addAll(c.restArgs());
    HloType.Array result = new HloType.Array(out.elementType(), c.dims());
    if (!(d == 0 ? result : swapped(result, d)).equals(out)) {
      throw src.error(
          ins.line(),
          "`"
              + ins.name()
              + "` has type "
              + out
              + ", but its operand "
              + in
              + " over "
              + "the group gives "
              + (d == 0 ? result : swapped(result, d)),
          "Check replica_groups and dimensions.");
    }
    String start = sink.fresh(ins.name() + ".start");
    sink.call(start, c.target(), args, Map.of(), sink.meta(result, trace, ins));
    if (d == 0) {
      sink.call(ins.name(), WAIT, List.of(ref(start)), Map.of(), sink.meta(out, trace, ins));
      return;
    }
    String wait = sink.fresh(ins.name() + ".wait");
    sink.call(wait, WAIT, List.of(ref(start)), Map.of(), sink.meta(result, trace, ins));
    sink.call(
        ins.name(),
        "xla.transpose",
        List.of(ref(wait)),
        Map.of("dimensions", swap(in.rank(), d)),
        sink.meta(out, trace, ins));
  }

  /**
   * reduce-scatter along a dim d other than 0: the all-reduce, of which this rank keeps its block
   * of dim d (the k-th member the k-th block), as reduce-scatter defines.
   */
  private void scatterAfterReduce(
      HloInstruction ins,
      int d,
      String x,
      HloType.Array out,
      String op,
      String group,
      String trace) {
    long[] in = operandType(ins, x, out).dims();
    List<Integer> members = processGroups.get(group);
    if (d >= in.length || in[d] % members.size() != 0 || out.dims()[d] * members.size() != in[d]) {
      throw src.error(
          ins.line(),
          "`"
              + ins.name()
              + "` has type "
              + out
              + ", which is not its operand's block of"
              + " dim "
              + d
              + " over "
              + members.size()
              + " ranks",
          "Check replica_groups and dimensions.");
    }
    HloType.Array whole = new HloType.Array(out.elementType(), in);
    String start = sink.fresh(ins.name() + ".start");
    sink.call(
        start,
        NS + "all_reduce.default",
        List.of(ref(x), str(op), str(group)),
        Map.of(),
        sink.meta(whole, trace, ins));
    String wait = sink.fresh(ins.name() + ".wait");
    sink.call(wait, WAIT, List.of(ref(start)), Map.of(), sink.meta(whole, trace, ins));
    long block = out.dims()[d];
    long from = block * members.indexOf(rank);
    List<Arg> starts = new ArrayList<>();
    List<Arg> limits = new ArrayList<>();
    List<Arg> strides = new ArrayList<>();
    for (int i = 0; i < in.length; i++) {
      starts.add(new Arg.IntArg(i == d ? from : 0));
      limits.add(new Arg.IntArg(i == d ? from + block : in[i]));
      strides.add(new Arg.IntArg(1));
    }
    Map<String, Arg> kw = new LinkedHashMap<>();
    kw.put("start_indices", new Arg.ListArg(starts));
    kw.put("limit_indices", new Arg.ListArg(limits));
    kw.put("strides", new Arg.ListArg(strides));
    sink.call(ins.name(), "xla.slice", List.of(ref(wait)), kw, sink.meta(out, trace, ins));
  }

  /** collective-permute: broadcasts from each source to its target within the pair's group. */
  private void permute(
      HloInstruction ins, HloAttributes attrs, String x, HloType.Array out, String trace) {
    List<List<Integer>> pairs = attrs.groups("source_target_pairs");
    if (pairs == null) {
      throw src.error(
          ins.line(), "`" + ins.name() + "` has no `source_target_pairs`", HloParser.ADVICE);
    }
    String received = null;
    int sends = 0;
    for (List<Integer> p : pairs) {
      if (p.size() != 2) {
        throw src.error(
            ins.line(),
            "`" + ins.name() + "` has a source-target pair of " + p.size() + " ids",
            HloParser.ADVICE);
      }
      int s = p.get(0);
      int t = p.get(1);
      checkRank(ins, s);
      checkRank(ins, t);
      if (s != rank && t != rank) {
        continue;
      }
      if (s == t) {
        received = x;
        continue;
      }
      List<Integer> members = List.of(Math.min(s, t), Math.max(s, t));
      String group = register(members);
      Meta meta = sink.meta(out, trace, ins);
      String name = t == rank ? ins.name() : sink.fresh(ins.name() + ".send" + (++sends));
      String start = sink.fresh(name + ".start");
      sink.call(
          start,
          NS + "broadcast.default",
          List.of(ref(x), new Arg.IntArg(s), str(group)),
          Map.of(),
          meta);
      sink.call(
          t == rank ? name : sink.fresh(name + ".wait"), WAIT, List.of(ref(start)), Map.of(), meta);
      if (t == rank) {
        received = name;
      }
    }
    if (received == null) {
      sink.call(
          ins.name(),
          "aten.zeros_like.default",
          List.of(ref(x)),
          Map.of(),
          sink.meta(out, trace, ins));
    } else if (!received.equals(ins.name())) {
      sink.call(
          ins.name(), "xla.copy", List.of(ref(received)), Map.of(), sink.meta(out, trace, ins));
    }
  }

  /**
   * The group of this rank in {@code replica_groups} ({@code {}} or absent: all ranks), registered.
   */
  private String group(HloInstruction ins, HloAttributes attrs) {
    List<List<Integer>> groups = attrs.groups("replica_groups");
    if (groups == null || groups.isEmpty()) {
      List<Integer> all = new ArrayList<>();
      for (int r = 0; r < worldSize; r++) {
        all.add(r);
      }
      return register(all);
    }
    List<Integer> mine = null;
    for (List<Integer> g : groups) {
      for (int id : g) {
        checkRank(ins, id);
      }
      if (g.contains(rank)) {
        if (mine != null) {
          throw src.error(
              ins.line(),
              "`" + ins.name() + "` lists rank " + rank + " in two replica groups",
              "Each rank belongs to one group.");
        }
        mine = g;
      }
    }
    if (mine == null) {
      throw src.error(
          ins.line(),
          "`" + ins.name() + "` lists no replica group holding rank " + rank,
          "Every rank that runs the program takes part in its collectives; check --ranks.");
    }
    return register(mine);
  }

  private String register(List<Integer> members) {
    StringJoiner name = new StringJoiner(",");
    members.forEach(m -> name.add(Integer.toString(m)));
    processGroups.putIfAbsent(name.toString(), List.copyOf(members));
    return name.toString();
  }

  private void checkRank(HloInstruction ins, int id) {
    if (id < 0 || id >= worldSize) {
      throw src.error(
          ins.line(),
          "`"
              + ins.name()
              + "` names rank "
              + id
              + ", but the program is imported as "
              + worldSize
              + " rank"
              + (worldSize == 1 ? "" : "s"),
          "Import an SPMD program with --ranks N, N the number of ranks it runs on.");
    }
  }

  private String reduceOp(HloInstruction ins, HloAttributes attrs) {
    String name = attrs.computation("to_apply");
    HloComputation c = name == null ? null : module.computation(name);
    String r = c == null ? null : Computations.reducer(c);
    if (r == null || !(r.equals("add") || r.equals("max") || r.equals("min"))) {
      throw unsupported(
          ins,
          "with a reducer other than add, maximum or minimum"
              + (name == null ? "" : " (`" + name + "`)"));
    }
    return r.equals("add") ? "sum" : r;
  }

  /**
   * The operand's type: its node's dims, the element type of the collective's result (they agree).
   */
  private HloType.Array operandType(HloInstruction ins, String name, HloType.Array out) {
    var n = sink.node(name);
    if (n == null || n.type() == null) {
      throw unsupported(ins, "of a tuple");
    }
    return new HloType.Array(out.elementType(), n.type().sizes());
  }

  private static HloType.Array swapped(HloType.Array a, int d) {
    long[] dims = a.dims();
    long t = dims[0];
    dims[0] = dims[d];
    dims[d] = t;
    return new HloType.Array(a.elementType(), dims);
  }

  private static Arg swap(int rank, int d) {
    List<Arg> p = new ArrayList<>();
    for (int i = 0; i < rank; i++) {
      p.add(new Arg.IntArg(i == 0 ? d : i == d ? 0 : i));
    }
    return new Arg.ListArg(p);
  }

  private RuntimeException unsupported(HloInstruction ins, String what) {
    return src.error(
        ins.line(),
        "`" + ins.name() + "`: " + ins.opcode() + " " + what + " is not supported yet",
        "The checker reads all-reduce, all-gather, reduce-scatter and all-to-all of one array, and"
            + " collective-permute.");
  }

  private static Arg ref(String name) {
    return new Arg.NodeRef(name);
  }

  private static Arg str(String s) {
    return new Arg.StrArg(s);
  }
}
