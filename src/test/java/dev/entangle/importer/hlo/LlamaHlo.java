package dev.entangle.importer.hlo;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * Generates the HLO text of a Llama decoder as transformers-neuronx compiles it (the structure of
 * the real dumps under {@code ../shared/realworld-hlo}, instruction for instruction), for any
 * tensor-parallel degree and number of layers, with its relation file: the generality check of the
 * HLO path. tp = 1 is the sequential program G_s; tp > 1 is the SPMD program every rank runs with
 * its own shards, all-reducing the attention and MLP outputs.
 *
 * @param hidden hidden size H
 * @param heads query heads
 * @param kvHeads key/value heads (grouped-query attention: heads a multiple of kvHeads)
 * @param headDim head size D (even: rotary halves)
 * @param mlp MLP size
 * @param vocab vocabulary size
 * @param batch batch size
 * @param seq active tokens (and positions)
 * @param layers decoder layers
 */
public record LlamaHlo(
    int hidden,
    int heads,
    int kvHeads,
    int headDim,
    int mlp,
    int vocab,
    int batch,
    int seq,
    int layers) {
  /** The shared dumps' model: Llama-3 1B-like, batch 4, 64 positions. */
  public static LlamaHlo llama3(int layers) {
    return new LlamaHlo(2048, 32, 8, 64, 8192, 128256, 4, 64, layers);
  }

  /** What to get wrong in the program, for bug variants. */
  public enum Bug {
    NONE,
    /** the key block of the fused qkv product sliced from the query range (offset 0) */
    K_SLICE,
    /** the attention output projection not all-reduced */
    NO_ALL_REDUCE
  }

  /** The program at tensor-parallel degree tp (1: G_s). */
  public String program(int tp, Bug bug) {
    return new Writer(tp, bug).module();
  }

  /**
   * The input relation of G_s's parameters to tp ranks' (shards, replicas, the fused qkv blocks).
   */
  public String relation(int tp) {
    List<String> rels = new ArrayList<>();
    for (String p : globalReplicated()) {
      rels.add("{\"gs\": \"" + p + "\", \"replicate\": true}");
    }
    for (int l = 0; l < layers; l++) {
      int base = 6 + 9 * l;
      rels.add(shard(param(base), 2));
      rels.add(shard(param(base + 1), 2));
      rels.add("{\"gs\": \"" + param(base + 2) + "\", \"replicate\": true}");
      rels.add(
          "{\"gs\": \"" + param(base + 3) + "\", \"gd\": \"" + qkv(param(base + 3), tp) + "\"}");
      rels.add(shard(param(base + 4), 1));
      rels.add("{\"gs\": \"" + param(base + 5) + "\", \"replicate\": true}");
      rels.add(shard(param(base + 6), 1));
      rels.add(shard(param(base + 7), 1));
      rels.add(shard(param(base + 8), 1));
    }
    int last = 6 + 9 * layers;
    rels.add("{\"gs\": \"" + param(last) + "\", \"replicate\": true}");
    rels.add(shard(param(last + 1), 1));
    return "{\"format\": \"entangle-relation/1\", \"relations\": [\n  "
        + String.join(",\n  ", rels)
        + "\n]}\n";
  }

  private List<String> globalReplicated() {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      out.add(param(i));
    }
    return out;
  }

  /** The name of parameter i, as the dumps name them: {@code p9.10}. */
  static String param(int i) {
    return "p" + i + "." + (i + 1);
  }

  private static String shard(String name, int dim) {
    return "{\"gs\": \"" + name + "\", \"shard\": " + dim + "}";
  }

  /** The fused qkv weight: each of the q, k and v column blocks split across the ranks. */
  private String qkv(String name, int tp) {
    int q = heads / tp * headDim;
    int k = kvHeads / tp * headDim;
    int[][] blocks = {{0, q}, {q, q + k}, {q + k, q + 2 * k}};
    StringJoiner outer = new StringJoiner(", ", "concat(", ", dim=1)");
    for (int[] b : blocks) {
      StringJoiner inner = new StringJoiner(", ", "concat(", ", dim=1)");
      for (int r = 0; r < tp; r++) {
        inner.add("slice(r" + r + "." + name + ", dim=1, start=" + b[0] + ", end=" + b[1] + ")");
      }
      outer.add(
          tp == 1
              ? inner.toString().replace("concat(", "").replace(", dim=1)", "")
              : inner.toString());
    }
    return outer.toString();
  }

  /** Writes one program: instructions numbered in order, named OPCODE.N as XLA names them. */
  private final class Writer {
    private final int tp;
    private final Bug bug;
    private final StringBuilder body = new StringBuilder();
    private final List<String> params = new ArrayList<>();
    private final List<String> outputs = new ArrayList<>();
    private final List<String> outputTypes = new ArrayList<>();
    private int next = 1000;
    private final int nh;
    private final int kv;
    private final int f;
    private final int v;
    private final int qw;
    private final int kw;
    private final int sb;
    private final int half;

    Writer(int tp, Bug bug) {
      this.tp = tp;
      this.bug = bug;
      if (heads % tp != 0
          || kvHeads % tp != 0
          || mlp % tp != 0
          || vocab % tp != 0
          || heads % kvHeads != 0) {
        throw new IllegalArgumentException("the model does not split over " + tp + " ranks");
      }
      nh = heads / tp;
      kv = kvHeads / tp;
      f = mlp / tp;
      v = vocab / tp;
      qw = nh * headDim;
      kw = kv * headDim;
      sb = seq * batch;
      half = headDim / 2;
    }

    String module() {
      parameter(4, "s32[1]{0}");
      parameter(5, "s32[1]{0}");
      String iota = ins("iota", "s32[" + seq + "]{0}", "iota()", "iota_dimension=0");
      String b30 =
          ins(
              "broadcast",
              "s32[" + seq + "," + seq + "]{1,0}",
              op("broadcast", iota),
              "dimensions={1}");
      String p1 = parameter(1, "s32[" + seq + "]{0}");
      String b31 =
          ins(
              "broadcast",
              "s32[" + seq + "," + seq + "]{1,0}",
              op("broadcast", p1),
              "dimensions={0}");
      String c32 =
          ins(
              "compare",
              "pred[" + seq + "," + seq + "]{1,0}",
              op("compare", b30, b31),
              "direction=LE");
      String b36 = ins("broadcast", pred3(), op("broadcast", c32), "dimensions={1,2}");
      String b33 =
          ins(
              "broadcast",
              "s32[" + batch + "," + seq + "]{1,0}",
              op("broadcast", iota),
              "dimensions={1}");
      String p2 = parameter(2, "s32[" + batch + "]{0}");
      String b34 =
          ins(
              "broadcast",
              "s32[" + batch + "," + seq + "]{1,0}",
              op("broadcast", p2),
              "dimensions={0}");
      String c35 =
          ins(
              "compare",
              "pred[" + batch + "," + seq + "]{1,0}",
              op("compare", b33, b34),
              "direction=GE");
      String b37 = ins("broadcast", pred3(), op("broadcast", c35), "dimensions={0,2}");
      String and = ins("and", pred3(), op("and", b36, b37));
      String mask = ins("reshape", pred3(), op("reshape", and));
      String maskHeads =
          ins(
              "broadcast",
              "pred[" + batch + "," + nh + "," + seq + "," + seq + "]{3,2,1,0}",
              op("broadcast", mask),
              "dimensions={0,2,3}");
      String c20 = ins("convert", "f32[" + seq + "]{0}", op("convert", p1));
      String r21 = ins("reshape", "f32[" + seq + ",1]{1,0}", op("reshape", c20));
      String c22 = ins("constant", "f32[" + half + "]{0}", "constant({...})");
      String r23 = ins("reshape", "f32[1," + half + "]{1,0}", op("reshape", c22));
      String angles =
          ins(
              "dot",
              "f32[" + seq + "," + half + "]{1,0}",
              op("dot", r21, r23),
              "lhs_contracting_dims={1}, rhs_contracting_dims={0}");
      String cos =
          ins(
              "convert",
              "f16[" + seq + "," + half + "]{1,0}",
              op(
                  "convert",
                  ins("cosine", "f32[" + seq + "," + half + "]{1,0}", op("cosine", angles))));
      String sin =
          ins(
              "convert",
              "f16[" + seq + "," + half + "]{1,0}",
              op("convert", ins("sine", "f32[" + seq + "," + half + "]{1,0}", op("sine", angles))));
      String h = parameter(0, hsb());
      for (int l = 0; l < layers; l++) {
        h = layer(l, h, maskHeads, cos, sin);
      }
      String last = finalNorm(h);
      StringBuilder sb2 = new StringBuilder();
      sb2.append("HloModule llama_tp").append(tp).append("_l").append(layers).append("\n\n");
      sb2.append(reducer("max", "maximum")).append(reducer("add", "add"));
      sb2.append("ENTRY %main (")
          .append(String.join(", ", params))
          .append(") -> (")
          .append(indexed(outputTypes))
          .append(") {\n");
      sb2.append(body);
      List<String> all = new ArrayList<>();
      all.add(last);
      all.addAll(outputs);
      sb2.append("  ROOT %tuple.")
          .append(next++)
          .append(" = (")
          .append(indexed(outputTypes))
          .append(") tuple(")
          .append(indexed(all.stream().map(x -> "%" + x).toList()))
          .append(")\n}\n");
      return sb2.toString();
    }

    /** Items joined as XLA's printer joins long lists: {@code /*index=K*}{@code /} every fifth. */
    private static String indexed(List<String> items) {
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < items.size(); i++) {
        if (i > 0) {
          sb.append(", ");
          if (i % 5 == 0) {
            sb.append("/*index=").append(i).append("*/");
          }
        }
        sb.append(items.get(i));
      }
      return sb.toString();
    }

    private String layer(int l, String h0, String maskHeads, String cos, String sin) {
      int base = 6 + 9 * l;
      transfer(parameter(base, cache()));
      transfer(parameter(base + 1, cache()));
      String normed = rmsNorm(h0, base + 2, hsb());
      String x = ins("reshape", "f16[" + hidden + "," + sb + "]{1,0}", op("reshape", normed));
      String wqkv = transfer(parameter(base + 3, "f16[" + hidden + "," + (qw + 2 * kw) + "]{1,0}"));
      String qkv =
          ins(
              "dot",
              "f16[" + sb + "," + (qw + 2 * kw) + "]{1,0}",
              op("dot", x, wqkv),
              "lhs_contracting_dims={0}, rhs_contracting_dims={0}");
      String q =
          rope(
              ins("reshape", heads4(nh, headDim), op("reshape", columns(qkv, 0, qw))),
              nh,
              cos,
              sin);
      String scaled =
          ins(
              "divide",
              heads4(nh, headDim),
              op(
                  "divide",
                  q,
                  ins(
                      "broadcast",
                      heads4(nh, headDim),
                      op(
                          "broadcast",
                          ins("constant", "f16[]", "constant(" + (int) Math.sqrt(headDim) + ")")),
                      "dimensions={}")));
      int kStart = bug == Bug.K_SLICE ? 0 : qw;
      String k =
          rope(
              ins("reshape", heads4(kv, headDim), op("reshape", columns(qkv, kStart, kStart + kw))),
              kv,
              cos,
              sin);
      outputs.add(k);
      outputTypes.add(heads4(kv, headDim).replace("{3,2,1,0}", "{3,2,1,0}"));
      String kHeads = repeatHeads(ins("reshape", heads4(kv, headDim), op("reshape", k)));
      String scores =
          ins(
              "dot",
              scores(),
              op("dot", scaled, kHeads),
              "lhs_batch_dims={1,2}, lhs_contracting_dims={3}, rhs_batch_dims={1,2}, rhs_contracting_dims={3}");
      String masked =
          ins(
              "select",
              scores(),
              op(
                  "select",
                  maskHeads,
                  scores,
                  ins(
                      "broadcast",
                      scores(),
                      op("broadcast", ins("constant", "f16[]", "constant(-30000)")),
                      "dimensions={}")));
      String max =
          ins(
              "reduce",
              rows(),
              op("reduce", masked, ins("constant", "f16[]", "constant(-inf)")),
              "dimensions={3}, to_apply=%max");
      String shifted =
          ins(
              "subtract",
              scores(),
              op(
                  "subtract",
                  masked,
                  ins(
                      "broadcast",
                      scores(),
                      op("broadcast", ins("reshape", rows(), op("reshape", max))),
                      "dimensions={0,1,2}")));
      String exp = ins("exponential", scores(), op("exponential", shifted));
      String sum =
          ins(
              "reduce",
              rows(),
              op("reduce", exp, ins("constant", "f16[]", "constant(0)")),
              "dimensions={3}, to_apply=%add");
      String probs =
          ins(
              "divide",
              scores(),
              op(
                  "divide",
                  exp,
                  ins(
                      "broadcast",
                      scores(),
                      op("broadcast", ins("reshape", rows(), op("reshape", sum))),
                      "dimensions={0,1,2}")));
      String vals =
          ins("reshape", heads4(kv, headDim), op("reshape", columns(qkv, qw + kw, qw + 2 * kw)));
      outputs.add(vals);
      outputTypes.add(heads4(kv, headDim));
      String vHeads = repeatHeads(ins("reshape", heads4(kv, headDim), op("reshape", vals)));
      String ctx =
          ins(
              "dot",
              scores(),
              op("dot", probs, vHeads),
              "lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={1,2}, rhs_contracting_dims={0}");
      String ctxT =
          ins("transpose", heads4(nh, headDim), op("transpose", ctx), "dimensions={2,0,1,3}");
      String ctx2 = ins("reshape", "f16[" + sb + "," + qw + "]{1,0}", op("reshape", ctxT));
      String wo = transfer(parameter(base + 4, "f16[" + hidden + "," + qw + "]{1,0}"));
      String attn = rowParallel(ctx2, wo, bug == Bug.NO_ALL_REDUCE);
      String h1 = ins("add", hsb(), op("add", attn, h0));
      String normed2 = rmsNorm(h1, base + 5, hsb());
      String x2 = ins("reshape", "f16[" + hidden + "," + sb + "]{1,0}", op("reshape", normed2));
      String wg = transfer(parameter(base + 6, "f16[" + hidden + "," + f + "]{1,0}"));
      String gate =
          ins(
              "dot",
              "f16[" + sb + "," + f + "]{1,0}",
              op("dot", x2, wg),
              "lhs_contracting_dims={0}, rhs_contracting_dims={0}");
      String silu =
          ins(
              "multiply",
              "f16[" + sb + "," + f + "]{1,0}",
              op(
                  "multiply",
                  gate,
                  ins("logistic", "f16[" + sb + "," + f + "]{1,0}", op("logistic", gate))));
      String wu = transfer(parameter(base + 7, "f16[" + hidden + "," + f + "]{1,0}"));
      String up =
          ins(
              "dot",
              "f16[" + sb + "," + f + "]{1,0}",
              op("dot", x2, wu),
              "lhs_contracting_dims={0}, rhs_contracting_dims={0}");
      String act = ins("multiply", "f16[" + sb + "," + f + "]{1,0}", op("multiply", silu, up));
      String wd = transfer(parameter(base + 8, "f16[" + hidden + "," + f + "]{1,0}"));
      String mlpOut = rowParallel(act, wd, false);
      return ins("add", hsb(), op("add", mlpOut, h1));
    }

    /** x @ w^T over the sharded inner dim, back to [H, S, B], all-reduced over the ranks. */
    private String rowParallel(String x, String w, boolean skipAllReduce) {
      String d =
          ins(
              "dot",
              "f16[" + sb + "," + hidden + "]{1,0}",
              op("dot", x, w),
              "lhs_contracting_dims={1}, rhs_contracting_dims={1}");
      String t =
          ins(
              "transpose",
              "f16[" + hidden + "," + sb + "]{1,0}",
              op("transpose", d),
              "dimensions={1,0}");
      String r = ins("reshape", hsb(), op("reshape", t));
      if (tp == 1 || skipAllReduce) {
        return r;
      }
      StringJoiner group = new StringJoiner(",", "{{", "}}");
      for (int i = 0; i < tp; i++) {
        group.add(Integer.toString(i));
      }
      return ins(
          "all-reduce", hsb(), op("all-reduce", r), "replica_groups=" + group + ", to_apply=%add");
    }

    private String finalNorm(String h0) {
      int base = 6 + 9 * layers;
      String t =
          ins(
              "transpose",
              "f16[" + seq + "," + hidden + "," + batch + "]{2,1,0}",
              op("transpose", h0),
              "dimensions={1,0,2}");
      String p3 = parameter(3, "s32[1]{0}");
      String g =
          ins(
              "gather",
              "f16[1," + hidden + "," + batch + "]{2,1,0}",
              op("gather", t, p3),
              "offset_dims={1,2}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,"
                  + hidden
                  + ","
                  + batch
                  + "}");
      String h = "f16[" + hidden + ",1," + batch + "]{2,1,0}";
      String t2 = ins("transpose", h, op("transpose", g), "dimensions={1,0,2}");
      String normed = rmsNorm(t2, base, h);
      String x = ins("reshape", "f16[" + hidden + "," + batch + "]{1,0}", op("reshape", normed));
      String lm = transfer(parameter(base + 1, "f16[" + hidden + "," + v + "]{1,0}"));
      String logits =
          ins(
              "dot",
              "f16[" + v + "," + batch + "]{1,0}",
              op("dot", lm, x),
              "lhs_contracting_dims={0}, rhs_contracting_dims={0}");
      outputTypes.add(0, "f16[" + v + ",1," + batch + "]{2,1,0}");
      return ins("reshape", "f16[" + v + ",1," + batch + "]{2,1,0}", op("reshape", logits));
    }

    private String rmsNorm(String x, int weightParam, String type) {
      String f32 = type.replace("f16", "f32");
      String c = ins("convert", f32, op("convert", x));
      String w = transfer(parameter(weightParam, "f32[" + hidden + "]{0}"));
      String eps = ins("constant", "f32[]", "constant(1e-05)");
      return ins(
          "custom-call",
          type,
          op("custom-call", c, w, eps),
          "custom_call_target=\"AwsNeuronRmsNorm\", api_version=API_VERSION_UNSPECIFIED, backend_config=\"0\"");
    }

    /** Rotary embedding of x [S, B, n, D] by rotating halves with the cos/sin tables. */
    private String rope(String x, int n, String cos, String sin) {
      String t = heads4(n, half);
      String c =
          ins(
              "broadcast",
              t,
              op(
                  "broadcast",
                  ins("reshape", "f16[" + seq + "," + half + "]{1,0}", op("reshape", cos))),
              "dimensions={0,3}");
      String s =
          ins(
              "broadcast",
              t,
              op(
                  "broadcast",
                  ins("reshape", "f16[" + seq + "," + half + "]{1,0}", op("reshape", sin))),
              "dimensions={0,3}");
      String lo =
          ins(
              "slice",
              t,
              op("slice", x),
              "slice={[0:" + seq + "], [0:" + batch + "], [0:" + n + "], [0:" + half + "]}");
      String hi =
          ins(
              "slice",
              t,
              op("slice", x),
              "slice={[0:"
                  + seq
                  + "], [0:"
                  + batch
                  + "], [0:"
                  + n
                  + "], ["
                  + half
                  + ":"
                  + headDim
                  + "]}");
      String a =
          ins(
              "subtract",
              t,
              op(
                  "subtract",
                  ins("multiply", t, op("multiply", c, lo)),
                  ins("multiply", t, op("multiply", s, hi))));
      String b =
          ins(
              "add",
              t,
              op(
                  "add",
                  ins("multiply", t, op("multiply", c, hi)),
                  ins("multiply", t, op("multiply", s, lo))));
      return ins("concatenate", heads4(n, headDim), op("concatenate", a, b), "dimensions={3}");
    }

    /** Each key/value head repeated for the query heads of its group. */
    private String repeatHeads(String x) {
      int rep = heads / kvHeads;
      String b =
          ins(
              "broadcast",
              "f16[" + seq + "," + batch + "," + kv + "," + rep + "," + headDim + "]{4,3,2,1,0}",
              op("broadcast", x),
              "dimensions={0,1,2,4}");
      return ins("reshape", heads4(nh, headDim), op("reshape", b));
    }

    private String columns(String x, int from, int to) {
      return ins(
          "slice",
          "f16[" + sb + "," + (to - from) + "]{1,0}",
          op("slice", x),
          "slice={[0:" + sb + "], [" + from + ":" + to + "]}");
    }

    private String transfer(String p) {
      String type = typeOf(p);
      return ins(
          "custom-call",
          type,
          op("custom-call", p),
          "custom_call_target=\"AwsNeuronTransferWithStaticRing\", api_version=API_VERSION_UNSPECIFIED");
    }

    private String parameter(int i, String type) {
      String name = param(i);
      body.append("  %")
          .append(name)
          .append(" = ")
          .append(type)
          .append(" parameter(")
          .append(i)
          .append(")\n");
      params.add(name + ": " + type.replaceAll("\\{[0-9,]*}$", ""));
      types.put(name, type);
      return name;
    }

    private final Map<String, String> types = new HashMap<>();

    private String typeOf(String name) {
      return types.get(name);
    }

    private String ins(String opcode, String type, String call) {
      return ins(opcode, type, call, null);
    }

    private String ins(String opcode, String type, String call, String attrs) {
      String name = opcode + "." + next++;
      body.append("  %").append(name).append(" = ").append(type).append(' ').append(call);
      if (attrs != null) {
        body.append(", ").append(attrs);
      }
      body.append(", metadata={op_type=\"llama\" source_file=\"llama.py\" source_line=")
          .append(next)
          .append("}\n");
      types.put(name, type);
      return name;
    }

    private String op(String opcode, String... operands) {
      return opcode
          + "("
          + String.join(", ", Arrays.stream(operands).map(o -> "%" + o).toList())
          + ")";
    }

    private String reducer(String name, String opcode) {
      return "%"
          + name
          + " (a: f16[], b: f16[]) -> f16[] {\n  %a = f16[] parameter(0)\n  %b = f16[] parameter(1)\n"
          + "  ROOT %r = f16[] "
          + opcode
          + "(%a, %b)\n}\n\n";
    }

    private String hsb() {
      return "f16[" + hidden + "," + seq + "," + batch + "]{2,1,0}";
    }

    private String pred3() {
      return "pred[" + batch + "," + seq + "," + seq + "]{2,1,0}";
    }

    private String cache() {
      return "f16[" + seq + "," + batch + "," + kv + "," + headDim + "]{3,2,1,0}";
    }

    private String heads4(int n, int d) {
      return "f16[" + seq + "," + batch + "," + n + "," + d + "]{3,2,1,0}";
    }

    private String scores() {
      return "f16[" + batch + "," + nh + "," + seq + "," + seq + "]{3,2,1,0}";
    }

    private String rows() {
      return "f16[" + batch + "," + nh + "," + seq + "]{2,1,0}";
    }
  }
}
