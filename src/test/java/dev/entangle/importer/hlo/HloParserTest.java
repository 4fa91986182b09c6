package dev.entangle.importer.hlo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.importer.SourceFile;
import dev.entangle.util.InputException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every syntax form of HLO text the parser reads, and damaged input as one-paragraph errors naming
 * the line.
 */
class HloParserTest {
  private static HloModule parse(String text) {
    return HloParser.parse(new SourceFile("m.hlo", text));
  }

  private static String fails(String text) {
    String m = assertThrows(InputException.class, () -> parse(text)).getMessage();
    assertFalse(m.contains("\n"), "one paragraph: " + m);
    return m;
  }

  private static final String ADD =
      "%add.3 (x.1: f32[], y.2: f32[]) -> f32[] {\n"
          + "  %x.1 = f32[] parameter(0)\n  %y.2 = f32[] parameter(1)\n  ROOT %add.3 = f32[] add(f32[] %x.1, f32[] %y.2)\n}\n";

  @Test
  void aModuleWithHeaderAttributesComputationsAndAnEntry() {
    HloModule m =
        parse(
            "HloModule jit_f.7, input_output_alias={ {0}: (1, {}, may-alias) }, entry_computation_layout="
                + "{(f32[4]{0}, /*index=1*/(f32[], s32[2]{0}))->f32[4]{0}}\n\n"
                + ADD
                + "\n"
                + "ENTRY %main.9 (a: f32[4], b: (f32[], s32[2])) -> f32[4] {\n"
                + "  %a = f32[4]{0:T(256)} parameter(0), sharding={replicated}\n"
                + "  %b = (f32[], /*index=1*/s32[2]{0}) parameter(1)\n"
                + "  %s = f32[] get-tuple-element(%b), index=0\n"
                + "  %r = f32[] reduce(f32[4]{0} %a, f32[] %s), dimensions={0}, to_apply=%add.3\n"
                + "  ROOT %out = f32[4]{0} broadcast(%r), dimensions={}\n"
                + "}\n");
    assertEquals("jit_f.7", m.name());
    assertEquals(List.of("add.3", "main.9"), List.copyOf(m.computations().keySet()));
    HloComputation entry = m.entry();
    assertEquals("main.9", entry.name());
    assertEquals("out", entry.root().name());
    assertTrue(entry.root().root());
    HloInstruction b = entry.instructions().get(1);
    assertEquals(
        new HloType.Tuple(
            List.of(
                new HloType.Array("f32", new long[0]), new HloType.Array("s32", new long[] {2}))),
        b.type());
    HloInstruction r = entry.instructions().get(3);
    assertEquals(List.of("a", "s"), r.operands(), "operands printed with their types");
    assertEquals(Map.of("dimensions", "{0}", "to_apply", "%add.3"), r.attributes());
    assertEquals("add", Computations.reducer(m.computation("add.3")));
    assertEquals("{replicated}", entry.instructions().get(0).attribute("sharding"));
    assertEquals("0", entry.instructions().get(0).operandText());
  }

  @Test
  void namesWithoutPercentAndTheLastInstructionAsRoot() {
    HloModule m =
        parse(
            "HloModule m\n\nENTRY main {\n  x = f32[2,3]{1,0} parameter(0)\n"
                + "  y = f32[3,2]{1,0} transpose(x), dimensions={1,0}\n}\n");
    assertEquals("y", m.entry().root().name());
    assertEquals(List.of("x"), m.entry().root().operands());
    assertArrayEquals(new long[] {3, 2}, ((HloType.Array) m.entry().root().type()).dims());
  }

  @Test
  void attributeValuesKeepStringsAndBracketsWhole() {
    HloModule m =
        parse(
            "HloModule m\n\nENTRY %e () -> f32[2] {\n"
                + "  ROOT %c = f32[2]{0} custom-call(), custom_call_target=\"a, b\", backend_config={\"k\": [1, 2]},"
                + " metadata={op_type=\"dot\" op_name=\"jit(f)/dot\" source_file=\"/x/m.py\" source_line=12}\n"
                + "}\n");
    HloInstruction c = m.entry().root();
    assertEquals("\"a, b\"", c.attribute("custom_call_target"));
    assertEquals("{\"k\": [1, 2]}", c.attribute("backend_config"));
    HloAttributes attrs = new HloAttributes(new SourceFile("m.hlo", ""), c);
    assertEquals("a, b", attrs.string("custom_call_target"));
    Map<String, String> md = attrs.metadata();
    assertEquals("jit(f)/dot", md.get("op_name"));
    assertEquals("12", md.get("source_line"));
    assertEquals("File \"/x/m.py\", line 12\n    jit(f)/dot", HloStackTraces.of(md));
  }

  @Test
  void typedAttributes() {
    HloModule m =
        parse(
            "HloModule m\n\nENTRY %e () -> f32[4,4] {\n"
                + "  %x = f32[4,4]{1,0} parameter(0)\n"
                + "  %s = f32[2,2]{1,0} slice(%x), slice={[0:4:2], [1:3]}\n"
                + "  %p = f32[5,6]{1,0} pad(%x, %x), padding=1_0x0_2_0\n"
                + "  %a = f32[4,4]{1,0} all-reduce(%x), replica_groups={{0,2},{1,3}}, to_apply=%add\n"
                + "  ROOT %b = f32[4,4]{1,0} all-reduce(%x), replica_groups=[2,2]<=[2,2]T(1,0), to_apply=%add\n"
                + "}\n");
    SourceFile src = new SourceFile("m.hlo", "");
    List<HloInstruction> ins = m.entry().instructions();
    long[][] ranges = new HloAttributes(src, ins.get(1)).sliceRanges("slice");
    assertArrayEquals(new long[] {0, 4, 2}, ranges[0]);
    assertArrayEquals(new long[] {1, 3, 1}, ranges[1]);
    long[][] pad = new HloAttributes(src, ins.get(2)).padding("padding");
    assertArrayEquals(new long[] {1, 0, 0}, pad[0]);
    assertArrayEquals(new long[] {0, 2, 0}, pad[1]);
    assertEquals(
        List.of(List.of(0, 2), List.of(1, 3)),
        new HloAttributes(src, ins.get(3)).groups("replica_groups"));
    assertEquals(
        List.of(List.of(0, 2), List.of(1, 3)),
        new HloAttributes(src, ins.get(4)).groups("replica_groups"),
        "iota groups: [2,2]<=[2,2]T(1,0) transposes the ids");
  }

  @Test
  void literals() {
    HloType.Array t = new HloType.Array("f32", new long[] {2, 2});
    assertArrayEquals(new double[] {1, 2, 3, 4}, HloLiteral.values("{ {1, 2}, {3, 4} }", t));
    assertArrayEquals(
        new double[] {Double.NEGATIVE_INFINITY},
        HloLiteral.values("-inf", new HloType.Array("f16", new long[0])));
    assertArrayEquals(
        new double[] {1}, HloLiteral.values("true", new HloType.Array("pred", new long[0])));
    assertEquals(null, HloLiteral.values("{...}", t), "elided values are unknown");
    assertEquals(null, HloLiteral.values("{1, 2, 3}", t), "a count that does not match the type");
  }

  @Test
  void aFileThatIsNoModule() {
    String m = fails("import torch\n");
    assertTrue(m.startsWith("m.hlo:1:1: the file does not start with `HloModule`"), m);
    assertTrue(m.contains("XLA HLO text modules"), m);
  }

  @Test
  void aModuleWithoutEntry() {
    String m = fails("HloModule m\n\n" + ADD);
    assertTrue(m.startsWith("m.hlo: the module has no ENTRY computation"), m);
  }

  @Test
  void anOperandNotDefinedAbove() {
    String m =
        fails(
            "HloModule m\n\nENTRY %e () -> f32[] {\n  %a = f32[] negate(%b)\n  %b = f32[] parameter(0)\n}\n");
    assertTrue(m.startsWith("m.hlo:4:21: the operand `%b` is not an instruction defined above"), m);
    assertTrue(m.contains("`%a = f32[] negate(%b)`"), "quotes the line: " + m);
  }

  @Test
  void damagedInstructions() {
    String noEq = fails("HloModule m\n\nENTRY %e () -> f32[] {\n  %a f32[] parameter(0)\n}\n");
    assertTrue(noEq.startsWith("m.hlo:4:6: expected `=` after the instruction name `a`"), noEq);
    String badType =
        fails("HloModule m\n\nENTRY %e () -> f32[] {\n  %a = f32(3) parameter(0)\n}\n");
    assertTrue(badType.startsWith("m.hlo:4:8: expected a type such as `f32[8,16]{1,0}`"), badType);
    String dims = fails("HloModule m\n\nENTRY %e () -> f32[] {\n  %a = f32[<=4] parameter(0)\n}\n");
    assertTrue(dims.startsWith("m.hlo:4:12: dynamic dimension sizes"), dims);
    String open = fails("HloModule m\n\nENTRY %e () -> f32[] {\n  %a = f32[2]{0} parameter(0\n}\n");
    assertTrue(open.startsWith("m.hlo:4:29: expected `)` closing the parameter number"), open);
    String trailing =
        fails("HloModule m\n\nENTRY %e () -> f32[] {\n  %a = f32[] parameter(0) junk\n}\n");
    assertTrue(
        trailing.startsWith("m.hlo:4:27: unexpected text after the instruction `a`"), trailing);
  }

  @Test
  void damagedComputations() {
    String unclosed = fails("HloModule m\n\nENTRY %e () -> f32[] {\n  %a = f32[] parameter(0)\n");
    assertTrue(
        unclosed.startsWith("m.hlo:3:1: the computation `e` is not closed with `}`"), unclosed);
    String twice =
        fails(
            "HloModule m\n\nENTRY %e () -> f32[] {\n  %a = f32[] parameter(0)\n  %a = f32[] negate(%a)\n}\n");
    assertTrue(twice.startsWith("m.hlo:5:3: a second instruction named `a`"), twice);
    String roots =
        fails(
            "HloModule m\n\nENTRY %e () -> f32[] {\n  ROOT %a = f32[] parameter(0)\n"
                + "  ROOT %b = f32[] negate(%a)\n}\n");
    assertTrue(roots.startsWith("m.hlo:5:3: a second ROOT in `e`"), roots);
    String entries =
        fails(
            "HloModule m\n\nENTRY %e () -> f32[] {\n  %a = f32[] parameter(0)\n}\n"
                + "ENTRY %f () -> f32[] {\n  %a = f32[] parameter(0)\n}\n");
    assertTrue(entries.startsWith("m.hlo:6:1: a second ENTRY computation"), entries);
  }

  @Test
  void indexCommentsInLongTuplesAndOperandLists() {
    HloModule m =
        parse(
            "HloModule m, entry_computation_layout={(f32[]{:T(256)}, f32[], f32[], f32[], f32[],"
                + " /*index=5*/f32[])->(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[])}\n\n"
                + "ENTRY %e (a: f32[], b: f32[], c: f32[], d: f32[], e: f32[], /*index=5*/f: f32[])"
                + " -> (f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[]) {\n"
                + "  %a = f32[]{:T(256)} parameter(0)\n  %b = f32[] parameter(1)\n"
                + "  %c = f32[] parameter(2)\n  %d = f32[] parameter(3)\n"
                + "  %e = f32[] parameter(4)\n  %f = f32[] parameter(5)\n"
                + "  %g = f32[8,128]{1,0:T(8,128)(2,1)S(1)} broadcast(f32[]{:T(256)} %a),"
                + " dimensions={}\n"
                + "  ROOT %t = (f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[]) tuple(f32[] %a,"
                + " %b, %c, %d, %e, /*index=5*/f32[] %f), sharding={{replicated}, {replicated},"
                + " {replicated}, {replicated}, {replicated}, /*index=5*/{replicated}}\n"
                + "}\n");
    HloInstruction t = m.entry().root();
    assertEquals(List.of("a", "b", "c", "d", "e", "f"), t.operands());
    assertEquals(6, ((HloType.Tuple) t.type()).items().size());
    assertFalse(t.attribute("sharding").contains("index"), "comments are no part of a value");
    assertArrayEquals(
        new long[] {8, 128}, ((HloType.Array) m.entry().instructions().get(6).type()).dims());
  }

  @Test
  void numbersOutOfRangeAreLocatedErrors() {
    String dim =
        fails(
            "HloModule m\n\nENTRY %e () -> f32[] {\n  %a = f32[99999999999999999999] parameter(0)\n}\n");
    assertTrue(
        dim.startsWith("m.hlo:4:12: the dimension size 99999999999999999999 is larger"), dim);
    String count =
        fails(
            "HloModule m\n\nENTRY %e () -> f32[] {\n"
                + "  %a = f32[4294967296,4294967296] parameter(0)\n}\n");
    assertTrue(
        count.startsWith("m.hlo:4:23: the type `f32[...]` has more than 2^62 elements"), count);
    String param =
        fails("HloModule m\n\nENTRY %e () -> f32[] {\n  %a = f32[] parameter(4294967296)\n}\n");
    assertTrue(param.startsWith("m.hlo:4:24: a parameter number 4294967296 is larger"), param);
    String twice =
        fails(
            "HloModule m\n\nENTRY %e () -> f32[] {\n  %a = f32[] parameter(0)\n"
                + "  %b = f32[] parameter(0)\n}\n");
    assertTrue(twice.startsWith("m.hlo:5:3: a second `parameter(0)` in `e`"), twice);
  }

  @Test
  void deepNestingIsBoundedNotAStackOverflow() {
    String deepType =
        fails(
            "HloModule m\n\nENTRY %e () -> f32[] {\n  %a = "
                + "(".repeat(100_000)
                + "f32[]"
                + ")".repeat(100_000)
                + " parameter(0)\n}\n");
    assertTrue(deepType.startsWith("m.hlo:4:"), deepType);
    assertTrue(deepType.contains("nest more than 256 deep"), deepType);
    String deepValue =
        fails(
            "HloModule m\n\nENTRY %e () -> f32[] {\n  %a = f32[] parameter(0), backend_config="
                + "{".repeat(100_000)
                + "}".repeat(100_000)
                + "\n}\n");
    assertTrue(deepValue.contains("brackets nest more than 256 deep"), deepValue);
  }

  @Test
  void unclosedCommentsStringsAndBrackets() {
    String comment =
        fails("HloModule m\n\nENTRY %e () -> f32[] {\n  %a = f32[] parameter(0) /* open\n}\n");
    assertTrue(comment.startsWith("m.hlo:4:27: a comment `/*` is never closed"), comment);
    String string =
        fails(
            "HloModule m\n\nENTRY %e () -> f32[] {\n  %a = f32[] custom-call(), custom_call_target=\"x\n}\n");
    assertTrue(string.startsWith("m.hlo:4:48: a string is not closed"), string);
    String bracket =
        fails(
            "HloModule m\n\nENTRY %e () -> f32[] {\n  %a = f32[] parameter(0), sharding={devices=[2]0,1\n");
    assertTrue(bracket.startsWith("m.hlo:4:37: the `{` opened here is never closed"), bracket);
    String mismatched =
        fails(
            "HloModule m\n\nENTRY %e () -> f32[] {\n  %a = f32[] parameter(0), sharding={devices=[2)}\n}\n");
    assertTrue(
        mismatched.startsWith("m.hlo:4:46: the `[` opened here is closed by `)`"), mismatched);
  }
}
