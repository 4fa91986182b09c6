package dev.entangle.cli;

import dev.entangle.refine.Verdict;
import dev.entangle.util.AtomicFiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The {@code --html} report: one self-contained page (inline CSS, SVG and script; nothing fetched).
 * It shows the verdict; for a failure, a drawing of the failing operator's neighbourhood in G_s
 * (its inputs with their relation to G_d, the operator, its users, each with its source line)
 * beside the G_d tensors explored for it, the reason, the numbers and the lemma skeleton; for a
 * refinement, the output relation as a table.
 */
final class HtmlReport {
  private static final int BOX_W = 230;
  private static final int BOX_H = 70;
  private static final int GAP_X = 20;
  private static final int ROW_GAP = 60;
  private static final int MAX_PER_ROW = 8;

  private HtmlReport() {}

  static void write(CaseLabel label, Report r, Neighbourhood n, Path file) {
    AtomicFiles.writeString(file, page(label, r, n));
  }

  static String page(CaseLabel label, Report r, Neighbourhood n) {
    StringBuilder b = new StringBuilder();
    b.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    b.append("<title>entangle: ")
        .append(esc(label.name()))
        .append(" ")
        .append(r.verdict().json())
        .append("</title>\n<style>")
        .append(CSS)
        .append("</style>\n</head>\n<body>\n");
    b.append("<header><span id=\"verdict\" class=\"verdict ")
        .append(verdictClass(r.verdict()))
        .append("\">")
        .append(r.verdict().json())
        .append("</span> <h1>")
        .append(esc(label.name()))
        .append("</h1>\n<p class=\"files\">G_s <code>")
        .append(esc(label.gs()))
        .append("</code> &middot; G_d <code>")
        .append(esc(label.gd()))
        .append("</code> &middot; relation <code>")
        .append(esc(label.relation()))
        .append("</code></p>\n<p class=\"stats\">")
        .append(TextReport.checkedLine(r))
        .append("</p></header>\n<main>\n");
    if (r.failure() != null) {
      failure(b, r, n);
    }
    if (!r.outputRelation().isEmpty()) {
      b.append("<section id=\"output-relation\"><h2>")
          .append(
              r.verdict() == Verdict.REFINES
                  ? "Output relation (G_s output = clean expression over G_d outputs)"
                  : "Output relation found so far")
          .append("</h2>\n");
      entries(b, "output-relation-table", r.outputRelation());
      b.append("</section>\n");
    }
    if (!r.assumed().isEmpty()) {
      b.append("<section id=\"assumed\"><h2>Steps taken on numbers alone</h2>\n");
      entries(b, "assumed-table", r.assumed());
      b.append("</section>\n");
    }
    if (!r.notChecked().isEmpty()) {
      b.append("<section id=\"not-checked\"><h2>Not checked</h2><p>No defined value (dropout")
          .append(" masks, uninitialized buffers): ")
          .append(esc(String.join(", ", r.notChecked())))
          .append("</p></section>\n");
    }
    b.append("<div id=\"script-errors\" hidden></div>\n</main>\n<script>")
        .append(SCRIPT)
        .append("</script>\n</body>\n</html>\n");
    return b.toString();
  }

  private static void failure(StringBuilder b, Report r, Neighbourhood n) {
    Report.FailureText f = r.failure();
    b.append("<section id=\"failure\"><h2>")
        .append(esc(heading(r.verdict())))
        .append("</h2>\n<p class=\"operator\"><code>")
        .append(esc(f.operator()))
        .append("</code> (<code>")
        .append(esc(f.target()))
        .append("</code>)</p>\n");
    List<SourceFrames.Frame> frames = SourceFrames.of(f.stackTrace());
    if (!frames.isEmpty()) {
      b.append("<ol id=\"source\" class=\"frames\">");
      for (SourceFrames.Frame fr : frames) {
        b.append("<li><code>").append(esc(fr.where())).append("</code>");
        if (fr.function() != null) {
          b.append(" in <code>").append(esc(fr.function())).append("</code>");
        }
        if (fr.code() != null) {
          b.append("<pre>").append(esc(fr.code())).append("</pre>");
        }
        b.append("</li>");
      }
      b.append("</ol>\n");
    }
    gdLocations(b, f);
    b.append("<p id=\"reason\" class=\"reason\">").append(esc(f.reason())).append("</p>\n");
    if (f.expected() != null) {
      b.append("<p>expected: <code>").append(esc(f.expected())).append("</code></p>\n");
    }
    b.append("<div class=\"columns\">\n<figure id=\"neighbourhood\"><figcaption>")
        .append("The operator in G_s: its inputs (with their relation to G_d) and its users")
        .append("</figcaption>\n");
    if (n != null) {
      drawing(b, n, f);
    } else {
      b.append("<p>(the operator is not a node of G_s; nothing to draw)</p>");
    }
    b.append("<div id=\"details\" class=\"details\">Select a node to see its source.</div>")
        .append("</figure>\n<aside id=\"explored\"><h3>G_d tensors explored for it (")
        .append(f.explored().size())
        .append(")</h3><ul>");
    for (String e : f.explored()) {
      b.append("<li><code>").append(esc(e)).append("</code></li>");
    }
    b.append("</ul><h3>Its inputs, as related to G_d</h3><table id=\"inputs-table\">");
    b.append("<tr><th>input</th><th>G_d expressions</th></tr>");
    for (Report.Input i : f.inputs()) {
      b.append("<tr><td><code>")
          .append(esc(i.name()))
          .append("</code></td><td>")
          .append(i.gd().isEmpty() ? "<em>" + esc(i.gdText()) + "</em>" : codes(i.gd()))
          .append("</td></tr>");
    }
    b.append("</table></aside>\n</div>\n");
    numbers(b, f.numbers());
    b.append("</section>\n");
  }

  private static void numbers(StringBuilder b, Report.NumbersText n) {
    if (n == null) {
      return;
    }
    b.append("<section id=\"numbers\"><h3>Numbers</h3>");
    if (n.summary() != null) {
      b.append("<p>").append(esc(n.summary())).append("</p>");
    }
    if (n.witness() != null && n.witness().closest() != null) {
      Report.WitnessText w = n.witness();
      b.append("<table id=\"witness\"><tr><th>closest clean expression</th><td><code>")
          .append(esc(w.closest()))
          .append("</code></td></tr><tr><th>index</th><td>")
          .append(esc(Arrays.toString(w.index())))
          .append("</td></tr><tr><th>G_s</th><td>")
          .append(w.gs())
          .append("</td></tr><tr><th>G_d</th><td>")
          .append(w.gd())
          .append("</td></tr><tr><th>elements differing</th><td>")
          .append(w.differing())
          .append("</td></tr></table>");
    }
    if (n.candidate() != null) {
      b.append("<p id=\"candidate\">candidate: <code>")
          .append(esc(n.candidate().expr()))
          .append("</code> (held on ")
          .append(n.candidate().draws())
          .append(" draws, seed ")
          .append(n.candidate().seed())
          .append(")</p>");
    }
    if (n.lemmaSkeleton() != null) {
      b.append("<h4>A lemma to complete</h4><pre id=\"lemma-skeleton\">")
          .append(esc(n.lemmaSkeleton()))
          .append("</pre>");
    }
    b.append("</section>\n");
  }

  /** The neighbourhood as an SVG: inputs above, the operator, its users below. */
  private static void drawing(StringBuilder b, Neighbourhood n, Report.FailureText f) {
    List<Neighbourhood.Item> ins = n.inputs().subList(0, Math.min(MAX_PER_ROW, n.inputs().size()));
    List<Neighbourhood.Item> outs =
        new ArrayList<>(n.users().subList(0, Math.min(MAX_PER_ROW, n.users().size())));
    if (n.returned()) {
      outs.add(new Neighbourhood.Item("(returned)", "G_s output", n.operator().type(), null));
    }
    int columns = Math.max(1, Math.max(ins.size(), outs.size()));
    int width = columns * (BOX_W + GAP_X) + GAP_X;
    int rows = outs.isEmpty() ? 2 : 3;
    int height = rows * BOX_H + (rows - 1) * ROW_GAP + 40;
    b.append("<svg id=\"drawing\" xmlns=\"http://www.w3.org/2000/svg\" width=\"")
        .append(width)
        .append("\" height=\"")
        .append(height)
        .append("\" viewBox=\"0 0 ")
        .append(width)
        .append(' ')
        .append(height)
        .append("\" role=\"img\" aria-label=\"neighbourhood of ")
        .append(esc(n.operator().name()))
        .append("\">")
        .append("<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\"")
        .append(" markerWidth=\"8\" markerHeight=\"8\" orient=\"auto-start-reverse\">")
        .append("<path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"#667\"/></marker></defs>");
    int opX = (width - BOX_W) / 2;
    int opY = 20 + BOX_H + ROW_GAP;
    int inY = 20;
    int outY = opY + BOX_H + ROW_GAP;
    for (int i = 0; i < ins.size(); i++) {
      int x = rowX(width, ins.size(), i);
      edge(b, x + BOX_W / 2, inY + BOX_H, opX + BOX_W / 2, opY);
    }
    for (int i = 0; i < outs.size(); i++) {
      int x = rowX(width, outs.size(), i);
      edge(b, opX + BOX_W / 2, opY + BOX_H, x + BOX_W / 2, outY);
    }
    for (int i = 0; i < ins.size(); i++) {
      Neighbourhood.Item it = ins.get(i);
      List<String> rel = relationOf(f, it.name());
      String third =
          rel == null
              ? it.type()
              : rel.isEmpty()
                  ? "(no relation to G_d)"
                  : rel.get(0) + (rel.size() > 1 ? "  (+" + (rel.size() - 1) + ")" : "");
      box(b, "input", it, rowX(width, ins.size(), i), inY, third, rel != null && rel.isEmpty());
    }
    box(b, "operator", n.operator(), opX, opY, where(n.operator()), true);
    int users = outs.size() - (n.returned() ? 1 : 0);
    for (int i = 0; i < outs.size(); i++) {
      Neighbourhood.Item it = outs.get(i);
      String role = i < users ? "user" : "user returned";
      box(b, role, it, rowX(width, outs.size(), i), outY, where(it), false);
    }
    int hidden =
        n.inputs().size() - ins.size() + n.users().size() + (n.returned() ? 1 : 0) - outs.size();
    if (hidden > 0) {
      b.append("<text x=\"10\" y=\"")
          .append(height - 8)
          .append("\" class=\"more\">")
          .append(hidden)
          .append(" more not drawn</text>");
    }
    b.append("</svg>\n");
  }

  private static void box(
      StringBuilder b,
      String role,
      Neighbourhood.Item it,
      int x,
      int y,
      String third,
      boolean alert) {
    b.append("<g class=\"node ")
        .append(role)
        .append(alert ? " alert" : "")
        .append("\" tabindex=\"0\" data-name=\"")
        .append(esc(it.name()))
        .append("\" data-target=\"")
        .append(esc(it.target()))
        .append("\" data-type=\"")
        .append(esc(it.type()))
        .append("\" data-source=\"")
        .append(esc(it.stackTrace() == null ? "" : it.stackTrace()))
        .append("\"><title>")
        .append(esc(it.name() + " (" + it.target() + ") " + it.type()))
        .append("</title><rect x=\"")
        .append(x)
        .append("\" y=\"")
        .append(y)
        .append("\" width=\"")
        .append(BOX_W)
        .append("\" height=\"")
        .append(BOX_H)
        .append("\" rx=\"6\"/>");
    text(b, x + 8, y + 20, "name", it.name());
    text(b, x + 8, y + 40, "target", it.target());
    text(b, x + 8, y + 60, "extra", third);
    b.append("</g>");
  }

  private static void text(StringBuilder b, int x, int y, String cls, String s) {
    String t = s.length() > 31 ? s.substring(0, 30) + "\u2026" : s;
    b.append("<text x=\"")
        .append(x)
        .append("\" y=\"")
        .append(y)
        .append("\" class=\"")
        .append(cls)
        .append("\">")
        .append(esc(t))
        .append("</text>");
  }

  private static void edge(StringBuilder b, int x1, int y1, int x2, int y2) {
    b.append("<line class=\"edge\" x1=\"")
        .append(x1)
        .append("\" y1=\"")
        .append(y1)
        .append("\" x2=\"")
        .append(x2)
        .append("\" y2=\"")
        .append(y2)
        .append("\" marker-end=\"url(#arrow)\"/>");
  }

  private static int rowX(int width, int count, int i) {
    int row = count * BOX_W + (count - 1) * GAP_X;
    return (width - row) / 2 + i * (BOX_W + GAP_X);
  }

  /** The lines of the distributed code where G_d diverges, nearest first. */
  private static void gdLocations(StringBuilder b, Report.FailureText f) {
    if (f.gdLocations().isEmpty()) {
      return;
    }
    b.append(
        "<h3>In the distributed code, nearest first</h3><ol id=\"gd-locations\" class=\"frames\">");
    for (GdLocations.Location l : f.gdLocations()) {
      b.append("<li><code>").append(esc(l.where())).append("</code>");
      if (l.frame().function() != null) {
        b.append(" in <code>").append(esc(l.frame().function())).append("</code>");
      }
      b.append(": <code>")
          .append(esc(String.join(", ", l.tensors())))
          .append("</code> (<code>")
          .append(esc(l.target()))
          .append("</code>)");
      if (l.frame().code() != null) {
        b.append("<pre>").append(esc(l.frame().code())).append("</pre>");
      }
      b.append("</li>");
    }
    b.append("</ol>\n");
  }

  /** The G_d expressions an input was related to, or null when the report does not list it. */
  private static List<String> relationOf(Report.FailureText f, String name) {
    for (Report.Input i : f.inputs()) {
      if (i.name().equals(name)) {
        return i.gd();
      }
    }
    return null;
  }

  private static String where(Neighbourhood.Item it) {
    SourceFrames.Frame fr = SourceFrames.primary(SourceFrames.of(it.stackTrace()));
    if (fr == null) {
      return it.type();
    }
    String path = fr.path();
    int slash = path.lastIndexOf('/');
    return (slash >= 0 ? path.substring(slash + 1) : path) + ":" + fr.line();
  }

  private static void entries(StringBuilder b, String id, List<Report.Entry> entries) {
    b.append("<table id=\"").append(id).append("\"><tr><th>G_s</th><th>G_d</th></tr>");
    for (Report.Entry e : entries) {
      b.append("<tr><td><code>")
          .append(esc(e.gs()))
          .append("</code></td><td><code>")
          .append(esc(e.gd()))
          .append("</code></td></tr>");
    }
    b.append("</table>\n");
  }

  private static String codes(List<String> exprs) {
    StringBuilder b = new StringBuilder();
    for (String e : exprs) {
      b.append("<code>").append(esc(e)).append("</code><br>");
    }
    return b.toString();
  }

  private static String heading(Verdict v) {
    return switch (v) {
      case EXPECTATION_VIOLATED -> "An expectation on the output relation does not hold";
      case INCONCLUSIVE -> "A limit was reached while checking this G_s operator";
      case UNSUPPORTED -> "The check needs a G_s operator entangle does not support yet";
      case UNPROVED -> "No lemma proves this G_s operator, but on random inputs it maps";
      default -> "The first G_s operator whose outputs could not be mapped to G_d";
    };
  }

  private static String verdictClass(Verdict v) {
    return switch (v) {
      case REFINES -> "ok";
      case UNPROVED, INCONCLUSIVE, UNSUPPORTED -> "warn";
      default -> "bad";
    };
  }

  static String esc(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (char c : s.toCharArray()) {
      switch (c) {
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '&' -> b.append("&amp;");
        case '"' -> b.append("&quot;");
        case '\'' -> b.append("&#39;");
        default -> b.append(c);
      }
    }
    return b.toString();
  }

  private static final String CSS =
      """
      body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d1d24;background:#fafafc}
      header{padding:16px 24px;background:#fff;border-bottom:1px solid #ddd}
      h1{display:inline;font-size:20px;margin-left:8px}
      main{padding:8px 24px 32px}
      .verdict{font-weight:700;padding:3px 10px;border-radius:12px;color:#fff}
      .verdict.ok{background:#1f7a3a}.verdict.bad{background:#b3261e}.verdict.warn{background:#a66300}
      .files,.stats{color:#555;margin:6px 0 0}
      code{font:12px ui-monospace,monospace;background:#f0f0f4;padding:1px 3px;border-radius:3px}
      pre{font:12px ui-monospace,monospace;background:#f0f0f4;padding:6px 8px;overflow:auto}
      table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid #ddd;padding:4px 8px;
      text-align:left;vertical-align:top}
      .columns{display:flex;gap:24px;align-items:flex-start;flex-wrap:wrap}
      figure{margin:0;flex:0 1 auto;background:#fff;border:1px solid #ddd;padding:8px;overflow:auto}
      aside{flex:1 1 280px;background:#fff;border:1px solid #ddd;padding:8px 12px;max-width:520px}
      .node rect{fill:#fff;stroke:#667;stroke-width:1.2}.node.operator rect{fill:#fde8e6;stroke:#b3261e;
      stroke-width:2}.node.alert.input rect{stroke:#b3261e;stroke-dasharray:4 3}
      .node text{font:12px ui-monospace,monospace;fill:#1d1d24}.node text.name{font-weight:700}
      .node text.extra{fill:#2b5d8a}.node.selected rect{stroke:#2b5d8a;stroke-width:3}
      .edge{stroke:#667;stroke-width:1.2}.more{font-size:12px;fill:#555}
      .details{margin-top:8px;white-space:pre-wrap;font:12px ui-monospace,monospace;color:#333}
      .reason{max-width:1000px}
      """;

  private static final String SCRIPT =
      """
      (function () {
        var errors = document.getElementById('script-errors');
        window.addEventListener('error', function (e) {
          errors.hidden = false;
          errors.textContent += 'script error: ' + e.message + '\\n';
        });
        var details = document.getElementById('details');
        var nodes = document.querySelectorAll('#drawing .node');
        function show(node) {
          nodes.forEach(function (n) { n.classList.remove('selected'); });
          node.classList.add('selected');
          var d = node.dataset;
          details.textContent = d.name + ' (' + d.target + ') ' + d.type + '\\n'
              + (d.source ? d.source : '(no source recorded)');
        }
        nodes.forEach(function (n) {
          n.addEventListener('click', function () { show(n); });
          n.addEventListener('keydown', function (e) { if (e.key === 'Enter') { show(n); } });
        });
        var op = document.querySelector('#drawing .node.operator');
        if (op) { show(op); }
        document.documentElement.setAttribute('data-ready', 'yes');
      })();
      """;
}
