package dev.entangle.importer;

import static dev.entangle.importer.Snippets.importText;
import static dev.entangle.importer.Snippets.module;
import static dev.entangle.importer.Snippets.node;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.graph.Arg;
import dev.entangle.graph.Graph;
import dev.entangle.graph.Node;
import dev.entangle.graph.TensorType;
import dev.entangle.util.InputException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AutoFunctionalizedTest {
  private static final TensorType T = TensorType.of("bfloat16", 4, 8);
  private static final TensorType W = TensorType.of("bfloat16", 8);
  private static final String PARAMS = "x: \"bf16[4, 8]\", r: \"bf16[4, 8]\", w: \"bf16[8]\"";

  @TempDir Path dir;

  private static Arg.ListArg names(String... names) {
    return new Arg.ListArg(Arrays.stream(names).map(n -> (Arg) new Arg.StrArg(n)).toList());
  }

  @Test
  void v1KeepsTheCallAndRecordsWhatItMutates() {
    Graph g =
        importText(
            dir,
            module(
                PARAMS,
                "empty_like: \"bf16[4, 8]\" = torch.ops.aten.empty_like.default(x, pin_memory = False)",
                "auto_functionalized = torch.ops.higher_order.auto_functionalized("
                    + "torch.ops._C.rms_norm.default, result = empty_like, input = x, weight = w,"
                    + " epsilon = 1e-06);  empty_like = None",
                "getitem_1: \"bf16[4, 8]\" = auto_functionalized[1];  auto_functionalized = None",
                "return (getitem_1,)"));
    Node af = node(g, "auto_functionalized");
    assertEquals("higher_order.auto_functionalized", af.target());
    assertEquals(List.of(new Arg.StrArg("_C.rms_norm.default")), af.args());
    assertEquals(
        List.of("result", "input", "weight", "epsilon", "_mutated"),
        List.copyOf(af.kwargs().keySet()));
    assertEquals(new Arg.NodeRef("empty_like"), af.kwarg("result"));
    assertEquals(new Arg.FloatArg(1e-06), af.kwarg("epsilon"));
    assertEquals(names("result"), af.kwarg("_mutated"));
    assertTrue(af.meta().tuple());
    assertEquals(Arrays.asList(null, T), af.meta().types());
    Node gi = node(g, "getitem_1");
    assertEquals("getitem", gi.target());
    assertEquals(List.of(new Arg.NodeRef("auto_functionalized"), new Arg.IntArg(1)), gi.args());
    assertEquals(T, gi.type());
  }

  @Test
  void itemsNobodyIndexesTakeTheTypeOfTheArgumentTheyReplace() {
    Graph g =
        importText(
            dir,
            module(
                PARAMS,
                "af = torch.ops.higher_order.auto_functionalized(torch.ops._C.fused_add_rms_norm.default,"
                    + " input = x, residual = r, weight = w, epsilon = 1e-06)",
                "getitem_29: \"bf16[4, 8]\" = af[1]",
                "return (getitem_29,)"));
    Node af = node(g, "af");
    assertEquals(names("input", "residual"), af.kwarg("_mutated"));
    assertEquals(Arrays.asList(null, T, T), af.meta().types());
  }

  @Test
  void v2WithWholeBasesIsImportedInTheV1Form() {
    Graph g =
        importText(
            dir,
            module(
                PARAMS,
                "af = torch.ops.higher_order.auto_functionalized_v2(torch.ops._C.fused_add_rms_norm.default,"
                    + " weight = w, epsilon = 1e-06, _input_base_index = 0, _residual_base_index = 1,"
                    + " _all_bases = [x, r])",
                "getitem_1: \"bf16[4, 8]\" = af[1]",
                "getitem_2: \"bf16[4, 8]\" = af[2]",
                "return (getitem_1, getitem_2)"));
    Node af = node(g, "af");
    assertEquals("higher_order.auto_functionalized", af.target());
    assertEquals(
        List.of("input", "residual", "weight", "epsilon", "_mutated"),
        List.copyOf(af.kwargs().keySet()));
    assertEquals(new Arg.NodeRef("x"), af.kwarg("input"));
    assertEquals(new Arg.NodeRef("r"), af.kwarg("residual"));
    assertEquals(names("input", "residual"), af.kwarg("_mutated"));
    assertEquals(Arrays.asList(null, T, T), af.meta().types());
  }

  @Test
  void v2MutatedArgumentPassedAsNoneHasNoItem() {
    Graph g =
        importText(
            dir,
            module(
                PARAMS + ", pos: \"i64[4]\", cache: \"bf16[16, 8]\"",
                "af = torch.ops.higher_order.auto_functionalized_v2(torch.ops._C.rotary_embedding.default,"
                    + " positions = pos, head_size = 8, cos_sin_cache = cache, is_neox = True,"
                    + " _query_base_index = 0, _key_base_index = None, _all_bases = [x])",
                "getitem_1: \"bf16[4, 8]\" = af[1]",
                "return (getitem_1,)"));
    Node af = node(g, "af");
    assertEquals("higher_order.auto_functionalized", af.target());
    assertEquals(Arg.NONE, af.kwarg("key"));
    assertEquals(new Arg.NodeRef("x"), af.kwarg("query"));
    assertEquals(names("query"), af.kwarg("_mutated"));
    assertEquals(2, af.meta().types().size());
  }

  @Test
  void v2MutatingAViewKeepsItsPrintedForm() {
    Graph g =
        importText(
            dir,
            module(
                "q: \"bf16[4, 8]\", buf: \"bf16[4, 8]\"",
                "af = torch.ops.higher_order.auto_functionalized_v2("
                    + "torch.ops.vllm.unified_attention_with_output.default, query = q, key = q, value = q,"
                    + " layer_name = 'l0', _output_base_index = 0, _output_size = (4, 2, 4),"
                    + " _output_stride = (8, 4, 1), _output_storage_offset = 0, _all_bases = [buf])",
                "getitem_1: \"bf16[4, 8]\" = af[1]",
                "return (getitem_1,)"));
    Node af = node(g, "af");
    assertEquals("higher_order.auto_functionalized_v2", af.target());
    assertEquals(names("output"), af.kwarg("_mutated"));
    assertEquals(new Arg.ListArg(List.of(new Arg.NodeRef("buf"))), af.kwarg("_all_bases"));
    assertEquals(
        new Arg.ListArg(List.of(new Arg.IntArg(4), new Arg.IntArg(2), new Arg.IntArg(4))),
        af.kwarg("_output_size"));
    assertEquals(Arrays.asList(null, T), af.meta().types());
  }

  @Test
  void inplaceTaggingUnderV2BecomesATaggedAlias() {
    Graph g =
        importText(
            dir,
            module(
                "p: \"f16[6, 2]\"",
                "clone: \"f16[6, 2]\" = torch.ops.aten.clone.default(p)",
                "auto_functionalized_v2 = torch.ops.higher_order.auto_functionalized_v2("
                    + "torch.ops.tg.inplace_log_tensor.default, s = 'embedding.weight', _t_base_index = 0,"
                    + " _all_bases = [clone]);  clone = None",
                "getitem_1: \"f16[6, 2]\" = auto_functionalized_v2[1];  auto_functionalized_v2 = None",
                "return (getitem_1,)"));
    Node af = node(g, "auto_functionalized_v2");
    assertEquals("aten.alias.default", af.target());
    assertEquals(List.of(new Arg.NodeRef("clone")), af.args());
    assertEquals("embedding.weight", af.meta().tag());
    assertEquals(TensorType.of("float16", 6, 2), af.type());
    Node gi = node(g, "getitem_1");
    assertEquals("aten.alias.default", gi.target());
    assertEquals(List.of(new Arg.NodeRef("auto_functionalized_v2")), gi.args());
    assertEquals(af, g.resolve("embedding.weight"));
  }

  @Test
  void inplaceTaggingUnderV1BecomesATaggedAlias() {
    Graph g =
        importText(
            dir,
            module(
                "p: \"f16[6, 2]\"",
                "af = torch.ops.higher_order.auto_functionalized(torch.ops.tg.inplace_log_tensor.default,"
                    + " t = p, s = 'w')",
                "getitem: \"f16[6, 2]\" = af[1]",
                "return (getitem,)"));
    assertEquals("w", node(g, "af").meta().tag());
    assertEquals(List.of(new Arg.NodeRef("p")), node(g, "af").args());
  }

  @Test
  void undeclaredOperatorSaysHowToDeclareIt() {
    InputException e =
        assertThrows(
            InputException.class,
            () ->
                importText(
                    dir,
                    module(
                        PARAMS,
                        "af = torch.ops.higher_order.auto_functionalized(torch.ops._C.my_norm.default, out = x, input = r)",
                        "getitem: \"bf16[4, 8]\" = af[1]",
                        "return (getitem,)")));
    String m = e.getMessage();
    assertTrue(m.startsWith(dir.resolve("g.py") + ":10: "), m);
    assertTrue(m.contains("`_C.my_norm.default`"), m);
    assertTrue(m.contains("schema is unknown"), m);
    assertTrue(m.contains("Tensor!"), m);
    assertTrue(m.contains("extra schema file"), m);
  }

  @Test
  void extraSchemaFilesDeclareAndOverrideOperators() {
    Path schema =
        Snippets.write(
            dir,
            "ops.schema",
            "# my operators\n\n_C::my_norm(Tensor! out, Tensor input) -> ()\n"
                + "_C::silu_and_mul(Tensor! result, Tensor input) -> ()\n");
    Path code =
        Snippets.write(
            dir,
            "g.py",
            module(
                PARAMS,
                "af = torch.ops.higher_order.auto_functionalized(torch.ops._C.my_norm.default, out = x, input = r)",
                "af_1 = torch.ops.higher_order.auto_functionalized(torch.ops._C.silu_and_mul.default, result = x, input = r)",
                "getitem: \"bf16[4, 8]\" = af[1]",
                "getitem_1: \"bf16[4, 8]\" = af_1[1]",
                "return (getitem, getitem_1)"));
    Graph g =
        GraphCodeImporter.importGraph(code, new ImportOptions(Map.of(), Map.of(), List.of(schema)));
    assertEquals(names("out"), node(g, "af").kwarg("_mutated"));
    assertEquals(names("result"), node(g, "af_1").kwarg("_mutated"));
  }

  @Test
  void aKwargOutsideTheSchemaIsAnError() {
    InputException e =
        assertThrows(
            InputException.class,
            () ->
                importText(
                    dir,
                    module(
                        PARAMS,
                        "af = torch.ops.higher_order.auto_functionalized(torch.ops._C.silu_and_mul.default, result = x, input = r)",
                        "getitem: \"bf16[4, 8]\" = af[1]",
                        "return (getitem,)")));
    assertTrue(
        e.getMessage().contains("`result` is not an argument of the declared schema"),
        e.getMessage());
    assertTrue(e.getMessage().contains("custom_ops.schema:"), e.getMessage());
  }

  @Test
  void anItemAnnotatedUnlikeItsArgumentPointsAtTheSchema() {
    InputException e =
        assertThrows(
            InputException.class,
            () ->
                importText(
                    dir,
                    module(
                        PARAMS,
                        "af = torch.ops.higher_order.auto_functionalized(torch.ops._C.fused_add_rms_norm.default,"
                            + " input = x, residual = w, weight = r, epsilon = 1e-06)",
                        "getitem: \"bf16[4, 8]\" = af[2]",
                        "return (getitem,)")));
    assertTrue(
        e.getMessage()
            .contains("`af[2]` is annotated bfloat16[4, 8], but it is the new value of `residual`"),
        e.getMessage());
  }

  @Test
  void indexingPastTheItemsOrTheNoneOfAVoidOperatorIsAnError() {
    InputException past =
        assertThrows(
            InputException.class,
            () ->
                importText(
                    dir,
                    module(
                        PARAMS,
                        "af = torch.ops.higher_order.auto_functionalized(torch.ops._C.rms_norm.default,"
                            + " result = x, input = r, weight = w, epsilon = 1e-06)",
                        "getitem: \"bf16[4, 8]\" = af[2]",
                        "return (getitem,)")));
    assertTrue(
        past.getMessage().contains("`af[2]` is out of range: af has 2 items"), past.getMessage());
    InputException none =
        assertThrows(
            InputException.class,
            () ->
                importText(
                    dir,
                    module(
                        PARAMS,
                        "af = torch.ops.higher_order.auto_functionalized(torch.ops._C.rms_norm.default,"
                            + " result = x, input = r, weight = w, epsilon = 1e-06)",
                        "getitem: \"bf16[4, 8]\" = af[0]",
                        "return (getitem,)")));
    assertTrue(
        none.getMessage().contains("`af[0]` is None: `_C.rms_norm.default` returns nothing"),
        none.getMessage());
  }

  @Test
  void aMissingMutatedArgumentIsAnError() {
    InputException e =
        assertThrows(
            InputException.class,
            () ->
                importText(
                    dir,
                    module(
                        PARAMS,
                        "af = torch.ops.higher_order.auto_functionalized(torch.ops._C.rms_norm.default,"
                            + " input = r, weight = w, epsilon = 1e-06)",
                        "return (x,)")));
    assertTrue(e.getMessage().contains("does not pass `result`"), e.getMessage());
  }
}
