package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The drawing's boxes wrap their texts and never cut them. */
class PageDrawingTest {

  @Test
  void wrappedLinesFitAndGiveTheWholeTextBack() {
    String rel = "concat(sumn(r0.mm, r1.mm, r2.mm, r3.mm), transpose(r0.fc2_weight, 0, 1), dim=1)";
    List<String> lines = PageDrawing.wrap(rel, 28);
    assertTrue(lines.size() > 2, lines.toString());
    lines.forEach(l -> assertTrue(l.length() <= 28, l));
    assertEquals(rel.replace(" ", ""), String.join("", lines).replace(" ", ""));
    assertEquals("concat(sumn(r0.mm, r1.mm,", lines.get(0));
  }

  @Test
  void aWordLongerThanALineIsSplitNotCut() {
    String name = "a".repeat(70);
    List<String> lines = PageDrawing.wrap(name, 28);
    assertEquals(List.of("a".repeat(28), "a".repeat(28), "a".repeat(14)), lines);
    assertEquals(List.of(""), PageDrawing.wrap("", 28));
  }

  @Test
  void aBoxDrawsEveryLineInFullAndItsTextAsTheHoverTitle() {
    String rel = "transpose(concat(r0.fc2_weight, r1.fc2_weight, dim=1), 0, 1)";
    PageDrawing.Box box =
        new PageDrawing.Box(
            "t_1", "input", false, List.of("t_1", "aten.t.default", rel), "t_1", "t", "f", null);
    StringBuilder b = new StringBuilder();
    PageDrawing.svg(b, "d", "test", List.of(List.of(box)), List.of(), 0);
    String svg = b.toString();
    assertFalse(svg.contains("\u2026"));
    assertTrue(svg.contains("<title>t_1\naten.t.default\n" + rel + "</title>"), svg);
    String drawn = svg.replaceAll("(?s).*?<text[^>]*>([^<]*)</text>", "$1").replaceAll("<.*", "");
    assertTrue(drawn.replace(" ", "").contains(rel.replace(" ", "")), drawn);
  }
}
