package dev.entangle.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.util.InputException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class SchemaParserTest {

  @Test
  void readsArgumentsMutationsAndReturns() {
    OpSchema s =
        SchemaParser.parse(
            "_C::rotary_embedding(Tensor positions, Tensor! query, Tensor!? key, int head_size,"
                + " Tensor cos_sin_cache, bool is_neox) -> ()",
            "f:1");
    assertEquals("_C.rotary_embedding.default", s.target());
    assertEquals(
        List.of("positions", "query", "key", "head_size", "cos_sin_cache", "is_neox"),
        s.params().stream().map(OpSchema.Param::name).toList());
    assertEquals(
        List.of("query", "key"), s.mutatedParams().stream().map(OpSchema.Param::name).toList());
    assertEquals(0, s.returnCount());
  }

  @Test
  void readsAliasAnnotationsDefaultsOverloadsAndListReturns() {
    OpSchema s =
        SchemaParser.parse(
            "my::op.out(Tensor(a!) x, Tensor(b!)[] ys, *, int[] dims=[0, 1], str mode=\"a,b\","
                + " Tensor? scale=None) -> (Tensor, Tensor)",
            "f:2");
    assertEquals("my.op.out", s.target());
    assertEquals(
        List.of("x", "ys", "dims", "mode", "scale"),
        s.params().stream().map(OpSchema.Param::name).toList());
    assertTrue(s.param("x").mutated());
    assertTrue(s.param("ys").mutated());
    assertTrue(s.param("ys").tensorList());
    assertFalse(s.param("scale").mutated());
    assertEquals(2, s.returnCount());
    assertEquals(1, SchemaParser.parse("a::b(Tensor x) -> Tensor", "f:3").returnCount());
  }

  @Test
  void schemaFilesSkipCommentsAndNameTheLineOfAnError() {
    assertEquals(
        1, SchemaParser.parseFile("# c\n\n  a::b(Tensor! x) -> ()\n", "ops.schema").size());
    InputException e =
        assertThrows(
            InputException.class,
            () ->
                SchemaParser.parseFile(
                    "a::b(Tensor! x) -> ()\nrms_norm(Tensor! x) -> ()\n", "ops.schema"));
    assertTrue(
        e.getMessage().startsWith("ops.schema:2: cannot read the operator schema"), e.getMessage());
    assertTrue(e.getMessage().contains("NAMESPACE::NAME"), e.getMessage());
    assertThrows(InputException.class, () -> SchemaParser.parse("a::b(Tensor! x)", "f:1"));
    assertThrows(InputException.class, () -> SchemaParser.parse("a::b(Tensor! x -> ()", "f:1"));
    assertThrows(InputException.class, () -> SchemaParser.parse("a::b(x) -> ()", "f:1"));
  }

  @Test
  void builtInSchemasDeclareTheVllmAndTaggingOperators() {
    SchemaRegistry r = SchemaRegistry.load(List.of());
    for (String op :
        List.of(
            "_C.rms_norm.default",
            "_C.fused_add_rms_norm.default",
            "_C.rotary_embedding.default",
            "_C.silu_and_mul.default",
            "vllm.unified_attention_with_output.default",
            "tg.inplace_log_tensor.default")) {
      assertNotNull(r.find(op), op);
    }
    assertEquals(List.of("result"), names(r.find("_C.rms_norm.default")));
    assertEquals(List.of("input", "residual"), names(r.find("_C.fused_add_rms_norm.default")));
    assertEquals(List.of("output"), names(r.find("vllm.unified_attention_with_output.default")));
    assertEquals(List.of("out"), names(r.find("_C.silu_and_mul.default")));
  }

  @Test
  void aMissingExtraSchemaFileIsAnInputError() {
    InputException e =
        assertThrows(
            InputException.class,
            () -> SchemaRegistry.load(List.of(Path.of("no-such-dir/ops.schema"))));
    assertTrue(
        e.getMessage().contains("ops.schema: the schema file does not exist"), e.getMessage());
  }

  private static List<String> names(OpSchema s) {
    return s.mutatedParams().stream().map(OpSchema.Param::name).toList();
  }
}
