package dev.entangle.cli;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A layered drawing of graph nodes as SVG for the HTML page: rows of boxes, top to bottom, with
 * arrows between them. Every text is wrapped to the box's width and drawn in full (the box grows to
 * hold it); nothing is ever cut. Each box also carries its text as a hover title and as data
 * attributes the page's script shows on selection.
 */
final class PageDrawing {
  static final int BOX_W = 230;

  /** Characters of 12 px monospace that fit a line of a box, its padding left out. */
  static final int LINE_CHARS = 28;

  private static final int LINE_H = 16;
  private static final int PAD = 8;
  private static final int GAP_X = 20;
  private static final int ROW_GAP = 50;
  private static final int MARGIN = 20;

  private PageDrawing() {}

  /**
   * One node.
   *
   * @param key what edges name it by (unique in the drawing)
   * @param role CSS classes: {@code input}, {@code operator}, {@code user}, {@code diverging}...
   * @param alert whether it is drawn as a problem
   * @param lines its texts, first in bold: each wrapped, never cut
   * @param name data-name
   * @param target data-target
   * @param type data-type
   * @param source data-source (its recorded stack trace), or null
   */
  record Box(
      String key,
      String role,
      boolean alert,
      List<String> lines,
      String name,
      String target,
      String type,
      String source) {}

  /** An arrow from one box to another, by key. */
  record Edge(String from, String to) {}

  /** Appends the SVG: the rows top to bottom, then a note of how many nodes were not drawn. */
  static void svg(
      StringBuilder b,
      String id,
      String label,
      List<List<Box>> rows,
      List<Edge> edges,
      int hidden) {
    List<List<Box>> drawn = rows.stream().filter(r -> !r.isEmpty()).toList();
    int columns = Math.max(1, drawn.stream().mapToInt(List::size).max().orElse(1));
    int width = columns * (BOX_W + GAP_X) - GAP_X + 2 * MARGIN;
    Map<String, int[]> at = new HashMap<>();
    List<String> boxes = new ArrayList<>();
    int y = MARGIN;
    for (List<Box> row : drawn) {
      int rowH = 0;
      List<List<String>> wrapped = new ArrayList<>();
      for (Box box : row) {
        List<String> ls = new ArrayList<>();
        box.lines().forEach(l -> ls.addAll(wrap(l, LINE_CHARS)));
        wrapped.add(ls);
        rowH = Math.max(rowH, ls.size() * LINE_H + PAD + 6);
      }
      int rowW = row.size() * (BOX_W + GAP_X) - GAP_X;
      for (int i = 0; i < row.size(); i++) {
        int x = (width - rowW) / 2 + i * (BOX_W + GAP_X);
        at.put(row.get(i).key(), new int[] {x, y, rowH});
        boxes.add(box(row.get(i), wrapped.get(i), x, y, rowH));
      }
      y += rowH + ROW_GAP;
    }
    int height = y - ROW_GAP + MARGIN + (hidden > 0 ? 16 : 0);
    b.append("<svg id=\"")
        .append(id)
        .append("\" class=\"drawing\" xmlns=\"http://www.w3.org/2000/svg\" width=\"")
        .append(width)
        .append("\" height=\"")
        .append(height)
        .append("\" viewBox=\"0 0 ")
        .append(width)
        .append(' ')
        .append(height)
        .append("\" role=\"img\" aria-label=\"")
        .append(HtmlReport.esc(label))
        .append("\"><defs><marker id=\"")
        .append(id)
        .append("-arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\"")
        .append(" markerWidth=\"8\" markerHeight=\"8\" orient=\"auto-start-reverse\">")
        .append("<path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"#667\"/></marker></defs>");
    for (Edge e : edges) {
      int[] from = at.get(e.from());
      int[] to = at.get(e.to());
      if (from == null || to == null) {
        continue;
      }
      b.append("<line class=\"edge\" x1=\"")
          .append(from[0] + BOX_W / 2)
          .append("\" y1=\"")
          .append(from[1] + from[2])
          .append("\" x2=\"")
          .append(to[0] + BOX_W / 2)
          .append("\" y2=\"")
          .append(to[1])
          .append("\" marker-end=\"url(#")
          .append(id)
          .append("-arrow)\"/>");
    }
    boxes.forEach(b::append);
    if (hidden > 0) {
      b.append("<text x=\"10\" y=\"")
          .append(height - 8)
          .append("\" class=\"more\">")
          .append(hidden)
          .append(" more not drawn (all are listed beside the drawing)</text>");
    }
    b.append("</svg>\n");
  }

  private static String box(Box box, List<String> lines, int x, int y, int h) {
    StringBuilder b = new StringBuilder();
    b.append("<g class=\"node ")
        .append(box.role())
        .append(box.alert() ? " alert" : "")
        .append("\" tabindex=\"0\" data-name=\"")
        .append(HtmlReport.esc(box.name()))
        .append("\" data-target=\"")
        .append(HtmlReport.esc(box.target()))
        .append("\" data-type=\"")
        .append(HtmlReport.esc(box.type()))
        .append("\" data-source=\"")
        .append(HtmlReport.esc(box.source() == null ? "" : box.source()))
        .append("\"><title>")
        .append(HtmlReport.esc(String.join("\n", box.lines())))
        .append("</title><rect x=\"")
        .append(x)
        .append("\" y=\"")
        .append(y)
        .append("\" width=\"")
        .append(BOX_W)
        .append("\" height=\"")
        .append(h)
        .append("\" rx=\"6\"/>");
    int firstLines = wrap(box.lines().get(0), LINE_CHARS).size();
    for (int i = 0; i < lines.size(); i++) {
      b.append("<text x=\"")
          .append(x + PAD)
          .append("\" y=\"")
          .append(y + PAD + 10 + i * LINE_H)
          .append("\" class=\"")
          .append(i < firstLines ? "name" : "line")
          .append("\">")
          .append(HtmlReport.esc(lines.get(i)))
          .append("</text>");
    }
    b.append("</g>");
    return b.toString();
  }

  /**
   * The text in lines of at most {@code width} characters, broken after a space, comma or opening
   * bracket where one is near the end of a line, else inside a word. Joined, the lines give the
   * text back with only the spaces at the breaks left out.
   */
  static List<String> wrap(String text, int width) {
    List<String> lines = new ArrayList<>();
    String rest = text;
    while (rest.length() > width) {
      int cut = -1;
      for (int i = width; i > width / 2; i--) {
        char c = rest.charAt(i - 1);
        if (c == ' ' || c == ',' || c == '(' || c == '[') {
          cut = i;
          break;
        }
      }
      if (cut < 0) {
        cut = width;
      }
      lines.add(rest.substring(0, cut).stripTrailing());
      rest = rest.substring(cut).stripLeading();
    }
    if (!rest.isEmpty() || lines.isEmpty()) {
      lines.add(rest);
    }
    return lines;
  }
}
