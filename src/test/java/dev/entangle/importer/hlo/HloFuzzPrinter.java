package dev.entangle.importer.hlo;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.StringJoiner;

/**
 * A seeded generator of SPMD HLO modules (four ranks) printed twice: plainly (names with {@code %},
 * no layouts, no comments, no metadata) and as XLA's printer decorates them: layouts with tiling,
 * operands with their types, {@code /*index=N*}{@code /} comments every five items of long operand
 * lists and tuple types, {@code metadata}, {@code sharding} in its printed forms, {@code
 * frontend_attributes}, {@code backend_config}, replica groups in iota form, names without {@code
 * %}, a header with {@code entry_computation_layout}. Both print the same program, so they must
 * import to the same graphs.
 */
final class HloFuzzPrinter {
  /** The plain and the decorated text of one program. */
  record Printed(String plain, String decorated) {}

  private record Type(String element, int... dims) {}

  /**
   * One attribute: its plain and decorated values (the same value printed two ways).
   *
   * @param key the attribute's name
   * @param plain its plain text
   * @param decorated its decorated text
   */
  private record Attr(String key, String plain, String decorated) {
    static Attr of(String key, String value) {
      return new Attr(key, value, value);
    }
  }

  private record Ins(
      String name, Type type, String opcode, List<String> operands, List<Attr> attrs) {}

  private static final Type X = new Type("f32", 4, 8);
  private static final Type SCALAR = new Type("f32");
  private static final Type INDEX = new Type("u32");

  private final Random random;
  private final List<Ins> entry = new ArrayList<>();
  private final List<String> xs = new ArrayList<>();
  private int next;

  private HloFuzzPrinter(long seed) {
    this.random = new Random(seed);
  }

  /** The program of a seed, printed both ways. */
  static Printed program(long seed) {
    return new HloFuzzPrinter(seed).print();
  }

  private Printed print() {
    int params = 2 + random.nextInt(6);
    for (int i = 0; i < params; i++) {
      add(X, "parameter", List.of(), List.of(), "p" + i);
    }
    add(SCALAR, "constant", List.of(), List.of(), "zero");
    add(INDEX, "partition-id", List.of(), List.of(), "pid");
    int steps = 6 + random.nextInt(14);
    for (int i = 0; i < steps; i++) {
      step();
    }
    List<String> outs = new ArrayList<>(xs.subList(Math.max(0, xs.size() - 12), xs.size()));
    List<Type> types = outs.stream().map(o -> X).toList();
    Ins root = new Ins("root", null, "tuple", outs, List.of());
    StringBuilder plain = new StringBuilder();
    StringBuilder deco = new StringBuilder();
    plain.append("HloModule fuzz\n\n");
    deco.append("HloModule fuzz, is_scheduled=false, entry_computation_layout={(");
    StringJoiner layout = new StringJoiner(", ");
    for (int i = 0; i < params; i++) {
      layout.add((i > 0 && i % 5 == 0 ? "/*index=" + i + "*/" : "") + type(X, true));
    }
    deco.append(layout).append(")->").append(tupleType(types, true)).append("}\n\n");
    String add =
        "%add (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n"
            + "  %b = f32[] parameter(1)\n  ROOT %s = f32[] add(%a, %b)\n}\n\n";
    String fused =
        "%fused (f0: f32[4,8], f1: f32[4,8]) -> f32[4,8] {\n  %f0 = f32[4,8] parameter(0)\n"
            + "  %f1 = f32[4,8] parameter(1)\n  %m = f32[4,8] multiply(%f0, %f1)\n"
            + "  ROOT %t = f32[4,8] tanh(%m)\n}\n\n";
    String branches =
        "%neg_branch (n0: f32[4,8]) -> f32[4,8] {\n  %n0 = f32[4,8] parameter(0)\n"
            + "  ROOT %n1 = f32[4,8] negate(%n0)\n}\n\n"
            + "%exp_branch (e0: f32[4,8]) -> f32[4,8] {\n  %e0 = f32[4,8] parameter(0)\n"
            + "  ROOT %e1 = f32[4,8] exponential(%e0)\n}\n\n";
    plain.append(add).append(fused).append(branches);
    deco.append(branches.replace("f32[4,8]", "f32[4,8]{1,0:T(8,128)}"));
    deco.append(add.replace("-> f32[] {", "-> f32[] {  // the reducer"))
        .append(fused.replace("f32[4,8]", "f32[4,8]{1,0}"))
        .append("// the program\n");
    plain.append("ENTRY %main {\n");
    StringJoiner signature = new StringJoiner(", ", "ENTRY %main (", ") -> ");
    for (int i = 0; i < params; i++) {
      signature.add((i > 0 && i % 5 == 0 ? "/*index=" + i + "*/" : "") + "p" + i + ": f32[4,8]");
    }
    deco.append(signature).append(tupleType(types, false)).append(" {\n");
    for (Ins i : entry) {
      plain.append("  ").append(line(i, false, false)).append('\n');
      deco.append("  ").append(line(i, true, false)).append('\n');
    }
    plain.append("  ").append(line(root, false, true, types)).append("\n}\n");
    deco.append("  ").append(line(root, true, true, types)).append("\n}\n");
    return new Printed(plain.toString(), deco.toString());
  }

  private void step() {
    String a = pick();
    String b = pick();
    switch (random.nextInt(18)) {
      case 0 -> add(X, oneOf("add", "multiply", "subtract", "maximum"), List.of(a, b), List.of());
      case 1 -> add(X, oneOf("negate", "exponential", "tanh", "abs"), List.of(a), List.of());
      case 2 -> {
        String c =
            add(
                new Type("pred", 4, 8),
                "compare",
                List.of(a, b),
                List.of(Attr.of("direction", "LT")));
        add(X, "select", List.of(c, a, b), List.of());
      }
      case 3 -> {
        String t =
            add(
                new Type("f32", 8, 4),
                "transpose",
                List.of(a),
                List.of(Attr.of("dimensions", "{1,0}")));
        String d =
            add(
                new Type("f32", 4, 4),
                "dot",
                List.of(a, t),
                List.of(
                    Attr.of("lhs_contracting_dims", "{1}"),
                    Attr.of("rhs_contracting_dims", "{0}")));
        String r = add(new Type("f32", 16), "reshape", List.of(d), List.of());
        String c =
            add(
                new Type("f32", 32),
                "concatenate",
                List.of(r, r),
                List.of(Attr.of("dimensions", "{0}")));
        add(X, "reshape", List.of(c), List.of());
      }
      case 4 -> {
        String s =
            add(
                SCALAR,
                "reduce",
                List.of(a, "zero"),
                List.of(Attr.of("dimensions", "{0,1}"), to("add")));
        add(X, "broadcast", List.of(s), List.of(Attr.of("dimensions", "{}")));
      }
      case 5 -> {
        String[] groups = oneOfGroups();
        add(
            X,
            "all-reduce",
            List.of(a),
            List.of(
                Attr.of("channel_id", Integer.toString(1 + random.nextInt(9))),
                new Attr("replica_groups", groups[0], groups[1]),
                Attr.of("use_global_device_ids", "true"),
                to("add")));
      }
      case 6 -> {
        String g =
            add(
                new Type("f32", 16, 8),
                "all-gather",
                List.of(a),
                List.of(
                    new Attr("replica_groups", "{{0,1,2,3}}", "[1,4]<=[4]"),
                    Attr.of("dimensions", "{0}")));
        add(X, "slice", List.of(g), List.of(Attr.of("slice", "{[4:8], [0:8]}")));
      }
      case 7 -> {
        String four = add(INDEX, "constant", List.of(), List.of(), null, "4");
        // offsets on each rank: partition-id * 4
        String off = add(INDEX, "multiply", List.of("pid", four), List.of());
        String z = add(INDEX, "constant", List.of(), List.of(), null, "0");
        String wide =
            add(
                new Type("f32", 16, 8),
                "concatenate",
                List.of(a, b, a, b),
                List.of(Attr.of("dimensions", "{0}")));
        add(
            X,
            "dynamic-slice",
            List.of(wide, off, z),
            List.of(Attr.of("dynamic_slice_sizes", "{4,8}")));
      }
      case 8 ->
          add(
              X,
              "fusion",
              List.of(a, b),
              List.of(Attr.of("kind", "kLoop"), new Attr("calls", "%fused", "fused")));
      case 9 -> {
        String t = add(new Type("tuple"), "tuple", List.of(a, b), List.of());
        add(
            X,
            "get-tuple-element",
            List.of(t),
            List.of(Attr.of("index", Integer.toString(random.nextInt(2)))));
      }
      case 10 -> {
        String i =
            add(new Type("s32", 4, 8), "iota", List.of(), List.of(Attr.of("iota_dimension", "1")));
        add(X, "convert", List.of(i), List.of());
      }
      case 11 -> {
        String bits = add(new Type("s32", 4, 8), "bitcast-convert", List.of(a), List.of());
        add(X, "bitcast-convert", List.of(bits), List.of());
      }
      case 12 ->
          add(
              new Type("f32", 4, 4),
              "reduce-window",
              List.of(a, "zero"),
              List.of(Attr.of("window", "{size=1x2 stride=1x2}"), to("add")));
      case 13 -> {
        List<String> parts = new ArrayList<>();
        int n = 6 + random.nextInt(6);
        for (int k = 0; k < n; k++) {
          parts.add(pick());
        }
        String wide =
            add(
                new Type("f32", 4 * n, 8),
                "concatenate",
                parts,
                List.of(Attr.of("dimensions", "{0}")));
        int start = 4 * random.nextInt(n);
        add(
            X,
            "slice",
            List.of(wide),
            List.of(Attr.of("slice", "{[" + start + ":" + (start + 4) + "], [0:8]}")));
      }
      case 15 -> {
        String t = add(new Type("tuple"), "tuple", List.of(a, b), List.of());
        String o = add(new Type("tuple"), "opt-barrier", List.of(t), List.of());
        add(X, "get-tuple-element", List.of(o), List.of(Attr.of("index", "0")));
      }
      case 16 ->
          add(
              X,
              "conditional",
              List.of("pid", a, b, a),
              List.of(
                  new Attr(
                      "branch_computations",
                      "{%neg_branch, %exp_branch, %neg_branch}",
                      "{neg_branch, /*index=1*/%exp_branch, neg_branch}")));
      case 14 ->
          add(
              X,
              "custom-call",
              List.of(a),
              List.of(
                  Attr.of("custom_call_target", "\"MyKernel\""),
                  Attr.of("backend_config", "{\"scale\": [1, 2]}")));
      default ->
          add(
              X,
              "reduce-scatter",
              List.of(
                  add(
                      new Type("f32", 16, 8),
                      "concatenate",
                      List.of(a, b, b, a),
                      List.of(Attr.of("dimensions", "{0}")))),
              List.of(
                  new Attr("replica_groups", "{{0,1,2,3}}", "[1,4]<=[4]"),
                  Attr.of("dimensions", "{0}"),
                  to("add")));
    }
  }

  private Attr to(String computation) {
    return new Attr(
        "to_apply", "%" + computation, random.nextBoolean() ? computation : "%" + computation);
  }

  /** Groups of the four ranks, plain and in iota form. */
  private String[] oneOfGroups() {
    return switch (random.nextInt(3)) {
      case 0 -> new String[] {"{{0,1,2,3}}", "[1,4]<=[4]"};
      case 1 -> new String[] {"{{0,1},{2,3}}", "[2,2]<=[4]"};
      default -> new String[] {"{{0,2},{1,3}}", "[2,2]<=[2,2]T(1,0)"};
    };
  }

  private String pick() {
    return xs.get(random.nextInt(xs.size()));
  }

  private String oneOf(String... options) {
    return options[random.nextInt(options.length)];
  }

  private String add(Type type, String opcode, List<String> operands, List<Attr> attrs) {
    return add(type, opcode, operands, attrs, null);
  }

  private String add(
      Type type, String opcode, List<String> operands, List<Attr> attrs, String name) {
    return add(type, opcode, operands, attrs, name, null);
  }

  private String add(
      Type type,
      String opcode,
      List<String> operands,
      List<Attr> attrs,
      String name,
      String literal) {
    String n = name != null ? name : opcode.replace("-", "_") + "." + (next++);
    List<Attr> all = new ArrayList<>(attrs);
    if (literal != null) {
      all.add(0, new Attr("#literal", literal, literal));
    }
    entry.add(new Ins(n, type, opcode, operands, all));
    if (type.equals(X)) {
      xs.add(n);
    }
    return n;
  }

  private Ins named(String name) {
    for (Ins i : entry) {
      if (i.name().equals(name)) {
        return i;
      }
    }
    throw new IllegalStateException(name);
  }

  private String line(Ins i, boolean deco, boolean root) {
    return line(i, deco, root, null);
  }

  private String line(Ins i, boolean deco, boolean root, List<Type> rootTypes) {
    StringBuilder sb = new StringBuilder();
    if (root) {
      sb.append("ROOT ");
    }
    sb.append(deco && random.nextInt(3) == 0 ? "" : "%").append(i.name()).append(" = ");
    sb.append(rootTypes != null ? tupleType(rootTypes, deco) : printedType(i, deco));
    sb.append(' ').append(i.opcode()).append('(');
    if (i.opcode().equals("parameter")) {
      sb.append(i.name().substring(1));
    } else if (i.opcode().equals("constant")) {
      sb.append(
          i.attrs().isEmpty() || !i.attrs().get(0).key().equals("#literal")
              ? "0"
              : i.attrs().get(0).plain());
    } else {
      StringJoiner ops = new StringJoiner(", ");
      for (int k = 0; k < i.operands().size(); k++) {
        String o = i.operands().get(k);
        String item = "%" + o;
        if (deco) {
          item = (random.nextBoolean() ? printedType(named(o), true) + " " : "") + item;
          if (k > 0 && k % 5 == 0) {
            item = "/*index=" + k + "*/" + item;
          }
        }
        ops.add(item);
      }
      sb.append(ops);
    }
    sb.append(')');
    for (Attr a : i.attrs()) {
      if (!a.key().startsWith("#")) {
        sb.append(", ").append(a.key()).append('=').append(deco ? a.decorated() : a.plain());
      }
    }
    if (deco) {
      decorate(sb, i, rootTypes);
    }
    return sb.toString();
  }

  /** Attributes that change nothing: metadata, sharding, frontend attributes, comments. */
  private void decorate(StringBuilder sb, Ins i, List<Type> rootTypes) {
    if (random.nextBoolean()) {
      sb.append(", metadata={op_type=\"")
          .append(i.opcode())
          .append("\" op_name=\"jit(step)/")
          .append(i.name())
          .append("\" source_file=\"/src/model.py\" source_line=")
          .append(1 + random.nextInt(400))
          .append('}');
    }
    if (random.nextInt(3) == 0) {
      sb.append(", sharding=");
      if (rootTypes != null) {
        StringJoiner items = new StringJoiner(", ", "{", "}");
        for (int k = 0; k < rootTypes.size(); k++) {
          items.add((k > 0 && k % 5 == 0 ? "/*index=" + k + "*/" : "") + "{replicated}");
        }
        sb.append(items);
      } else {
        sb.append(
            oneOf(
                "{replicated}",
                "{devices=[4,1]0,1,2,3}",
                "{devices=[2,1,2]<=[4] last_tile_dim_replicate}",
                "{devices=[2,2]<=[2,2]T(1,0) metadata={op_name=\"s\"}}",
                "{maximal device=0}",
                "{manual}"));
      }
    }
    if (random.nextInt(4) == 0) {
      sb.append(", frontend_attributes={_xla_stream_annotation=\"1\", _scheduling_group_id=\"0\"}");
    }
    if (random.nextInt(5) == 0 && !i.opcode().equals("custom-call")) {
      sb.append(", /* a comment */ backend_config={\"operation_queue_id\":\"0\"}");
    }
  }

  private String printedType(Ins at, boolean deco) {
    if (at.opcode().equals("opt-barrier")) {
      return printedType(named(at.operands().get(0)), deco);
    }
    if (at.type().element().equals("tuple")) {
      List<Type> items = new ArrayList<>();
      for (String o : at.operands()) {
        items.add(named(o).type());
      }
      return tupleType(items, deco);
    }
    return type(at.type(), deco);
  }

  private String tupleType(List<Type> items, boolean deco) {
    StringJoiner sj = new StringJoiner(", ", "(", ")");
    for (int k = 0; k < items.size(); k++) {
      sj.add((deco && k > 0 && k % 5 == 0 ? "/*index=" + k + "*/" : "") + type(items.get(k), deco));
    }
    return sj.toString();
  }

  private String type(Type t, boolean deco) {
    StringJoiner dims = new StringJoiner(",", "[", "]");
    for (int d : t.dims()) {
      dims.add(Integer.toString(d));
    }
    String out = t.element() + dims;
    if (!deco) {
      return out;
    }
    int rank = t.dims().length;
    StringJoiner order = new StringJoiner(",");
    for (int k = rank - 1; k >= 0; k--) {
      order.add(Integer.toString(k));
    }
    return out
        + switch (random.nextInt(4)) {
          case 0 -> "";
          case 1 -> "{" + order + "}";
          case 2 -> "{" + order + ":T(8,128)}";
          default -> "{" + order + ":T(2,128)(2,1)S(1)}";
        };
  }
}
