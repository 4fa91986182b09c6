package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No value-relevant attribute is dropped by the lowering: in every refining example, each attribute
 * below of the first G_d node that has it is changed on every rank (G_s untouched), and the check
 * must no longer say {@code refines}. The attributes: every finite float argument of a call
 * (scalars of arithmetic, fill values, eps of normalizations, padding values, dropout rates),
 * infinite fill values, integer scalars of arithmetic, the dims of softmax and log-softmax, gelu's
 * {@code approximate}, loss reductions and {@code ignore_index}, the reduce op of collectives, a
 * convolution's dilation, and {@code scale_grad_by_freq} of the embedding gradient.
 */
class AttributeMutationTest {
  @TempDir Path dir;

  /** One change of one attribute: what it applies to and how it edits a node. */
  private record Mutation(
      String name, java.util.function.Predicate<JsonNode> applies, Consumer<ObjectNode> edit) {}

  private static final Set<String> ARITHMETIC =
      Set.of("aten.add", "aten.sub", "aten.rsub", "aten.mul", "aten.div", "aten.pow");

  private static String base(JsonNode n) {
    String t = n.path("target").asText();
    int first = t.indexOf('.');
    int last = t.lastIndexOf('.');
    return first >= 0 && last > first ? t.substring(0, last) : t;
  }

  private static final List<Mutation> MUTATIONS =
      List.of(
          new Mutation(
              "a float argument",
              n -> firstFloat(n) != null,
              n -> {
                Slot s = firstFloat(n);
                s.set(DoubleNode.valueOf(s.get().asDouble() * 1.5 + 0.25));
              }),
          new Mutation(
              "an infinite fill value",
              n -> firstInfinity(n) != null,
              n -> firstInfinity(n).set(DoubleNode.valueOf(-1.0))),
          new Mutation(
              "an integer scalar of arithmetic",
              n ->
                  ARITHMETIC.contains(base(n))
                      && n.path("args").size() > 1
                      && n.path("args").get(1).isIntegralNumber(),
              n -> {
                ArrayNode a = (ArrayNode) n.get("args");
                a.set(1, a.get(1).asLong() + 1);
              }),
          new Mutation(
              "the softmax dim",
              n ->
                  Set.of("aten._softmax", "aten._log_softmax", "aten.softmax", "aten.log_softmax")
                          .contains(base(n))
                      && n.at("/meta/shape").size() >= 2,
              n -> {
                ArrayNode a = (ArrayNode) n.get("args");
                int rank = n.at("/meta/shape").size();
                long d = a.get(1).asLong();
                long dim = d < 0 ? d + rank : d;
                a.set(1, dim == 0 ? 1 : 0);
              }),
          new Mutation(
              "gelu's approximate",
              n -> base(n).equals("aten.gelu"),
              n -> {
                JsonNode a = n.path("kwargs").path("approximate");
                ((ObjectNode) n.get("kwargs"))
                    .put("approximate", a.asText("none").equals("tanh") ? "none" : "tanh");
              }),
          new Mutation(
              "a loss reduction",
              n -> base(n).equals("aten.mse_loss") && n.path("args").size() > 2,
              n -> {
                ArrayNode a = (ArrayNode) n.get("args");
                a.set(2, a.get(2).asLong() == 1 ? 2 : 1);
              }),
          new Mutation(
              "nll_loss's ignore_index",
              n -> base(n).equals("aten.nll_loss_forward"),
              n -> ((ArrayNode) n.get("args")).set(4, 0)),
          new Mutation(
              "the reduce op of a collective",
              n ->
                  Set.of("_c10d_functional.all_reduce", "_c10d_functional.reduce_scatter_tensor")
                      .contains(base(n)),
              n -> {
                ArrayNode a = (ArrayNode) n.get("args");
                a.set(1, a.get(1).asText().equals("sum") ? "avg" : "sum");
              }),
          new Mutation(
              "a convolution's dilation, with the padding that keeps its shape",
              n -> Set.of("aten.convolution", "aten.convolution_backward").contains(base(n)),
              n -> {
                // (input, weight, bias, stride, padding, dilation, ...), the backward with the
                // output gradient first: a 3x3 kernel dilated by 2 spans 5, so padding 2 keeps
                // the size
                ArrayNode a = (ArrayNode) n.get("args");
                int at = base(n).equals("aten.convolution") ? 4 : 5;
                a.set(at, a.arrayNode().add(2).add(2));
                a.set(at + 1, a.arrayNode().add(2).add(2));
              }),
          new Mutation(
              "scale_grad_by_freq of the embedding gradient",
              n -> base(n).equals("aten.embedding_dense_backward"),
              n -> ((ArrayNode) n.get("args")).set(4, !n.get("args").get(4).asBoolean())));

  /** A place in a node's arguments. */
  private record Slot(ArrayNode list, int index, ObjectNode map, String key) {
    JsonNode get() {
      return list != null ? list.get(index) : map.get(key);
    }

    void set(JsonNode v) {
      if (list != null) {
        list.set(index, v);
      } else {
        map.set(key, v);
      }
    }
  }

  private static Slot firstFloat(JsonNode n) {
    return find(n, v -> v.isFloatingPointNumber());
  }

  private static Slot firstInfinity(JsonNode n) {
    return find(n, v -> v.isObject() && v.has("float") && v.get("float").asText().endsWith("inf"));
  }

  private static Slot find(JsonNode n, java.util.function.Predicate<JsonNode> p) {
    if (!n.path("op").asText().equals("call_function")) {
      return null;
    }
    ArrayNode args = (ArrayNode) n.get("args");
    for (int i = 0; args != null && i < args.size(); i++) {
      if (p.test(args.get(i))) {
        return new Slot(args, i, null, null);
      }
    }
    JsonNode kw = n.get("kwargs");
    if (kw instanceof ObjectNode m) {
      for (var it = m.fieldNames(); it.hasNext(); ) {
        String k = it.next();
        if (p.test(m.get(k))) {
          return new Slot(null, -1, m, k);
        }
      }
    }
    return null;
  }

  /**
   * Changes that do not reach G_s's outputs, so the check rightly still refines (their lowered G_d
   * must still differ): the all-reduce of fig1-matmul, whose result G_s's output does not use; the
   * all-reduce of replicated-average-tp3, whose average of a value replicated on three ranks, made
   * a sum, still gives the output as a third of it (the output relation changes); the padding of
   * padded-gather-tp3, cut off again; and {@code masked_fill_1} of the vocabulary-parallel
   * embedding gradient, whose result only {@code is_same_size} reads; the loss-scaled
   * accumulation's loss (its square and its scale), which the ranks' autograd reads only for the
   * shape of its seed.
   */
  private static final Set<String> UNREACHED =
      Set.of(
          "fig1-matmul/all_reduce",
          "replicated-average-tp3/all_reduce",
          "padded-gather-tp3/constant_pad_nd",
          "vocab-embedding-grad-tp2/masked_fill_1",
          "vocab-embedding-grad-tp4/masked_fill_1",
          "loss-scaled-grad-accum-dp2/mul",
          "loss-scaled-grad-accum-dp2/pow_1",
          "loss-scaled-grad-accum-dp4/mul",
          "loss-scaled-grad-accum-dp4/pow_1");

  private final java.util.Map<String, CliRun> originals = new java.util.HashMap<>();

  private CliRun original(ExampleCase ex) {
    return originals.computeIfAbsent(ex.name(), k -> ex.check("--dump-core"));
  }

  @Test
  void changingAValueRelevantAttributeInGdNeverLeavesRefines() {
    List<String> tried = new ArrayList<>();
    Set<String> kinds = new TreeSet<>();
    List<String> wrong = new ArrayList<>();
    for (ExampleCase ex : ExampleCase.refining()) {
      JsonNode gd = JsonEdits.read(ex.gd());
      List<ObjectNode> ranks = JsonEdits.ranks(gd);
      for (Mutation m : MUTATIONS) {
        String name = null;
        for (JsonNode n : JsonEdits.nodes(ranks.get(0))) {
          if (n.path("op").asText().equals("call_function") && m.applies().test(n)) {
            name = n.get("name").asText();
            break;
          }
        }
        if (name == null) {
          continue;
        }
        String node = name;
        Path mutated =
            JsonEdits.copy(
                ex.gd(),
                dir.resolve(ex.name() + "-" + tried.size() + ".json"),
                g -> {
                  for (ObjectNode r : JsonEdits.ranks(g)) {
                    for (JsonNode n : JsonEdits.nodes(r)) {
                      if (n.path("name").asText().equals(node) && m.applies().test(n)) {
                        m.edit().accept((ObjectNode) n);
                      }
                    }
                  }
                });
        String what = ex.name() + ": " + m.name() + " of " + node;
        tried.add(what);
        kinds.add(m.name());
        CliRun dump = CliRun.check(ex.gs(), mutated, ex.ri(), "--dump-core");
        if (dump.out().equals(original(ex).out())) {
          wrong.add(what + ": the lowered G_d is the same (the attribute is dropped)");
          continue;
        }
        CliRun r = CliRun.check(ex.gs(), mutated, ex.ri(), "--timeout", "60");
        boolean refines = r.exitCode() == 0 || r.verdictLine().equals("refines");
        if (refines != UNREACHED.contains(ex.name() + "/" + node)) {
          wrong.add(
              what + (refines ? " still refines" : " no longer refines") + "\n" + r.transcript());
        }
      }
    }
    assertTrue(
        wrong.isEmpty(), () -> "still refines after the change:\n" + String.join("\n", wrong));
    assertTrue(tried.size() >= 40, () -> "too few changes tried: " + tried);
    assertTrue(kinds.size() >= 6, () -> "too few kinds of attribute tried: " + kinds);
    assertNotEquals(0, tried.size());
  }
}
