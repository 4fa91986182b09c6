package dev.entangle.importer;

import static dev.entangle.importer.Snippets.importText;
import static dev.entangle.importer.Snippets.module;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.util.InputException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every error names the file and line, what is wrong, and what to do. */
class ImportErrorsTest {
  /** The first body line of {@link Snippets#module}. */
  private static final int BODY = 10;

  @TempDir Path dir;

  private String fails(String text) {
    return fails(text, Map.of());
  }

  private String fails(String text, Map<String, Double> constants) {
    return assertThrows(InputException.class, () -> importText(dir, text, constants)).getMessage();
  }

  private void assertMessage(String message, int line, String... parts) {
    String prefix = dir.resolve("g.py") + (line > 0 ? ":" + line + ": " : ": ");
    assertTrue(message.startsWith(prefix), "expected prefix " + prefix + " in: " + message);
    for (String part : parts) {
      assertTrue(message.contains(part), "expected '" + part + "' in: " + message);
    }
    assertTrue(!message.contains("\n"), "one paragraph: " + message);
  }

  @Test
  void anUnannotatedCallThatIsNeverIndexed() {
    String m =
        fails(module("x: \"f32[4]\"", "relu = torch.ops.aten.relu.default(x)", "return (relu,)"));
    assertMessage(
        m,
        BODY,
        "the result `relu` has no type annotation and is never indexed",
        "`relu = torch.ops.aten.relu.default(x)`",
        "relu: \"f32[8, 16]\" = ...");
  }

  @Test
  void aNameThatIsNotDefinedAbove() {
    String m =
        fails(
            module(
                "x: \"f32[4]\"",
                "a: \"f32[4]\" = torch.ops.aten.add.Tensor(x, b)",
                "b: \"f32[4]\" = torch.ops.aten.relu.default(x)",
                "return (a,)"));
    assertMessage(m, BODY, "`b` is not a node defined above this line");
    String out = fails(module("x: \"f32[4]\"", "return (y,)"));
    assertMessage(out, BODY, "`y` is not a node defined above this line");
  }

  @Test
  void aZeroDimConstantWithoutAValue() {
    String m =
        fails(
            module(
                "x: \"f32[4]\"",
                "_tensor_constant0: \"f32[]\" = self._tensor_constant0",
                "return (x,)"));
    assertMessage(m, BODY, "`_tensor_constant0`", "pass --constant _tensor_constant0=VALUE");
  }

  @Test
  void anUnannotatedConstantWithoutATypedUser() {
    String m =
        fails(
            module(
                "x: \"f32[4]\"",
                "_tensor_constant0 = self._tensor_constant0",
                "add: \"f32[4]\" = torch.ops.aten.add.Tensor(x, _tensor_constant0)",
                "return (add,)"),
            Map.of("_tensor_constant0", 1.0));
    assertMessage(
        m,
        BODY,
        "the attribute `_tensor_constant0` has no type annotation",
        "_tensor_constant0: \"f32[]\" = self._tensor_constant0");
  }

  @Test
  void aValueForATensorConstantOrForNoConstant() {
    String m =
        fails(module("x: \"f32[4]\"", "w: \"f32[3]\" = self.w", "return (w,)"), Map.of("w", 1.0));
    assertMessage(m, BODY, "a value is given for `w`, but it is a tensor of shape [3]");
    String unused =
        assertThrows(
                InputException.class,
                () ->
                    importText(
                        dir,
                        module("x: \"f32[4]\"", "return (x,)"),
                        Map.of("_tensor_constant9", 0.0)))
            .getMessage();
    assertTrue(unused.contains("--constant gives a value for _tensor_constant9"), unused);
    assertTrue(unused.contains("check the name"), unused);
  }

  @Test
  void badTypeAnnotations() {
    assertMessage(
        fails(module("x: \"q7[4]\"", "return (x,)")),
        BODY - 1,
        "unknown dtype `q7`",
        "Known dtype abbreviations: f32");
    assertMessage(
        fails(module("x: \"f32\"", "return (x,)")),
        BODY - 1,
        "cannot read the type annotation \"f32\": it has no [sizes]");
    assertMessage(fails(module("x: \"f32[4, ]\"", "return (x,)")), BODY - 1, "empty size");
    assertMessage(
        fails(module("x: \"f32[4]junk!\"", "return (x,)")),
        BODY - 1,
        "unexpected text after the sizes");
    assertMessage(
        fails(module("x: \"f32[(s0]\"", "return (x,)")), BODY - 1, "parentheses do not match");
  }

  @Test
  void syntaxErrorsNameTheLine() {
    assertMessage(
        fails(
            module(
                "x: \"f32[4]\"", "a: \"f32[4]\" = torch.ops.aten.relu.default(x", "return (x,)")),
        BODY,
        "the bracket '(' opened here is never closed");
    assertMessage(
        fails(
            module(
                "x: \"f32[4]\"",
                "a: \"f32[4]\" = torch.ops.aten.relu.default(x) $",
                "return (a,)")),
        BODY,
        "unexpected character '$'");
    assertMessage(
        fails(
            module(
                "x: \"f32[4]\"",
                "a: \"f32[4]\" = torch.ops.test.op.default(x, 'open)",
                "return (a,)")),
        BODY,
        "this string is never closed");
    assertMessage(
        fails(
            module(
                "x: \"f32[4]\"",
                "a: \"f32[4]\" = torch.ops.test.op.default(x,, 1)",
                "return (a,)")),
        BODY,
        "expected an expression but found ','");
    assertMessage(
        fails(module("x: \"f32[4]\"", "torch.ops.aten.relu.default(x)", "return (x,)")),
        BODY,
        "a statement that is not an assignment");
  }

  @Test
  void notGraphCodeOrCutShort() {
    String none = fails("import torch\nx = 1\n");
    assertMessage(none, 2, "unexpected module-level statement before `def forward`");
    String empty = fails("import torch\n\n# nothing\n");
    assertMessage(empty, 0, "no `def forward(self, ...)` found");
    String cut = fails(module("x: \"f32[4]\"", "a: \"f32[4]\" = torch.ops.aten.relu.default(x)"));
    assertMessage(cut, 0, "has no `return` statement");
  }

  @Test
  void codeAfterTheReturn() {
    String nested =
        fails(
            module("x: \"f32[4]\"", "return (x,)", "")
                + "    class submod_0(torch.nn.Module):\n        def forward(self, y):\n            return (y,)\n");
    assertMessage(nested, BODY + 2, "nested submodules", "Import one graph per file");
    String more =
        fails(module("x: \"f32[4]\"", "return (x,)", "y = torch.ops.aten.relu.default(x)"));
    assertMessage(more, BODY + 1, "code follows the `return` of `forward`");
  }

  @Test
  void indexingASingleValue() {
    String m =
        fails(
            module(
                "x: \"f32[4]\"",
                "a: \"f32[4]\" = torch.ops.aten.relu.default(x)",
                "b: \"f32[]\" = a[0]",
                "return (b,)"));
    assertMessage(
        m, BODY + 1, "`a` is indexed, but it is annotated as one value (line " + BODY + ")");
    String getitem = fails(module("x: \"f32[4]\"", "b: \"f32[]\" = x[0]", "return (b,)"));
    assertMessage(getitem, BODY, "`x` is a single value, not the tuple of a multi-output call");
  }

  @Test
  void anUnannotatedGetitem() {
    String m =
        fails(
            module(
                "x: \"f32[4]\"",
                "m = torch.ops.aten.max.dim(x, 0)",
                "getitem = m[0]",
                "return (getitem,)"));
    assertMessage(
        m, BODY + 1, "`getitem` has no type annotation, and the type of `m[0]` cannot be derived");
  }

  @Test
  void inputsWithoutTypes() {
    assertMessage(
        fails(module("x", "return (x,)")), BODY - 1, "the input `x` has no type annotation");
    String text =
        Snippets.PRELUDE
            + "    def forward(self, primals):\n"
            + "        primals_1: \"f32[4]\"; \n"
            + "        primals_1, primals_2, = fx_pytree.tree_flatten_spec([primals], self._in_spec)\n"
            + "        return (primals_1,)\n";
    assertMessage(fails(text), BODY + 1, "the input `primals_2` has no type annotation");
  }

  @Test
  void aNameAssignedTwice() {
    String m =
        fails(
            module(
                "x: \"f32[4]\"",
                "a: \"f32[4]\" = torch.ops.aten.relu.default(x)",
                "a: \"f32[4]\" = torch.ops.aten.relu.default(x)",
                "return (a,)"));
    assertMessage(m, BODY + 1, "`a` is assigned a second time");
  }

  @Test
  void unknownFunctionsAndOperators() {
    assertMessage(
        fails(module("x: \"f32[4]\"", "a: \"f32[4]\" = foo(x)", "return (a,)")),
        BODY,
        "`foo` is not a function graph code calls");
    assertMessage(
        fails(module("x: \"f32[4]\"", "a: \"f32[4]\" = torch.ops.aten(x)", "return (a,)")),
        BODY,
        "cannot read the operator `torch.ops.aten`");
    assertMessage(
        fails(
            module(
                "x: \"f32[4]\"",
                "a: \"f32[4]\" = torch.ops.aten.relu.default(torch.relu(x))",
                "return (a,)")),
        BODY,
        "calls a function");
    assertMessage(
        fails(
            module(
                "x: \"f32[4]\"",
                "a: \"f32[4]\" = torch.ops.test.op.default(x, torch.foo)",
                "return (a,)")),
        BODY,
        "`torch.foo` is not a dtype, layout or memory format");
  }

  @Test
  void aBrokenStackTraceComment() {
    String m = fails(module("x: \"f32[4]\"", "# File: model.py in forward", "return (x,)"));
    assertMessage(m, BODY, "cannot read this stack trace comment");
  }

  @Test
  void integersBeyond64Bits() {
    String m =
        fails(
            module(
                "x: \"f32[4]\"",
                "a: \"f32[4]\" = torch.ops.test.op.default(x, 9223372036854775808)",
                "return (a,)"));
    assertMessage(m, BODY, "the integer 9223372036854775808 does not fit in 64 bits");
  }

  @Test
  void aMissingFile() {
    InputException e =
        assertThrows(
            InputException.class,
            () -> GraphCodeImporter.importGraph(dir.resolve("nope.py"), ImportOptions.defaults()));
    assertTrue(e.getMessage().contains("nope.py: the file does not exist"), e.getMessage());
  }

  @Test
  void aSizeThatIsNeitherANumberNorASymbol() {
    for (String size : new String[] {"8x", "-8", "2*3"}) {
      String m =
          fails(
              module(
                  "x: \"f32[" + size + "]\"",
                  "relu: \"f32[4]\" = torch.ops.aten.relu.default(x)",
                  "return (relu,)"));
      assertTrue(m.contains("the size `" + size + "`"), m);
      assertTrue(m.contains("neither a non-negative integer nor a symbolic"), m);
    }
  }
}
