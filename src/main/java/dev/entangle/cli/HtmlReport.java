package dev.entangle.cli;

import dev.entangle.refine.CheckResult;
import dev.entangle.refine.Verdict;
import dev.entangle.util.AtomicFiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The {@code --html} report: one self-contained page (inline CSS, SVG and script; nothing fetched).
 * It shows the verdict; for a failure, a drawing of the failing operator's neighbourhood in G_s
 * (its inputs with their relation to G_d, the operator, its users, each with its source line)
 * beside the G_d tensors explored for it, the reason, the numbers and the lemma skeleton; for a
 * refinement, the output relation as a table.
 */
final class HtmlReport {
  private static final int MAX_PER_ROW = 8;

  /** Lists longer than this are folded (a {@code <details>} closed at first). */
  static final int FOLD_OVER = 12;

  private HtmlReport() {}

  static void write(CaseLabel label, Report r, Neighbourhood n, GdNeighbourhood g, Path file) {
    AtomicFiles.writeString(file, page(label, r, n, g));
  }

  /** The page of a check its time limit stopped before it could report. */
  static void writeStopped(StoppedReports stopped, Path file) {
    AtomicFiles.writeString(file, stoppedPage(stopped));
  }

  static String stoppedPage(StoppedReports stopped) {
    Report r = stopped.report();
    String page =
        page(stopped.label(), r, null, null)
            .replace(
                TextReport.checkedLine(r),
                "stopped after " + Decimals.fixed(stopped.seconds(), 2) + " s")
            .replaceFirst("(?s)<section id=\"statistics\">.*?</section>\n", "");
    String section =
        "<section id=\"stopped\"><h2>Stopped while "
            + esc(stopped.phase())
            + "</h2><p id=\"reason\" class=\"reason\">"
            + esc(stopped.reason())
            + "</p></section>\n";
    return page.replace("<main>\n", "<main>\n" + section);
  }

  static String page(CaseLabel label, Report r, Neighbourhood n, GdNeighbourhood g) {
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
      failure(b, r, n, g);
    }
    if (!r.outputRelation().isEmpty()) {
      b.append("<section id=\"output-relation\"><h2>")
          .append(
              r.verdict() == Verdict.REFINES
                  ? "Certificate: each G_s output as a clean expression of G_d's tensors"
                  : "Output relation found so far")
          .append("</h2>\n");
      entries(b, "output-relation-table", r.outputRelation());
      b.append("</section>\n");
    }
    statistics(b, r);
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

  private static void failure(StringBuilder b, Report r, Neighbourhood n, GdNeighbourhood g) {
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
        .append("</figure>\n");
    if (g != null) {
      b.append("<figure id=\"gd-neighbourhood\"><figcaption>")
          .append("Where G_d diverges: the operations at the distributed code's nearest lines")
          .append(" (highlighted), what they read and what reads them")
          .append("</figcaption>\n");
      gdDrawing(b, g);
      b.append("<div id=\"gd-details\" class=\"details\">Select a node to see its source.</div>")
          .append("</figure>\n");
    }
    b.append("<aside id=\"explored\"><h3>Its inputs, as related to G_d</h3>");
    b.append("<table id=\"inputs-table\">");
    b.append("<tr><th>input</th><th>G_d expressions</th></tr>");
    for (Report.Input i : f.inputs()) {
      b.append("<tr><td><code>")
          .append(esc(i.name()))
          .append("</code></td><td>")
          .append(i.gd().isEmpty() ? "<em>" + esc(i.gdText()) + "</em>" : codes(i.gd()))
          .append("</td></tr>");
    }
    b.append("</table>");
    fold(
        b,
        "explored-list",
        "G_d tensors explored for it (" + f.explored().size() + ")",
        f.explored().size() > FOLD_OVER);
    b.append("<ul>");
    for (String e : f.explored()) {
      b.append("<li><code>").append(esc(e)).append("</code></li>");
    }
    b.append("</ul></details></aside>\n</div>\n");
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
    List<PageDrawing.Box> top = new ArrayList<>();
    List<PageDrawing.Edge> edges = new ArrayList<>();
    String op = "op:" + n.operator().name();
    for (int i = 0; i < ins.size(); i++) {
      Neighbourhood.Item it = ins.get(i);
      List<String> rel = relationOf(f, it.name());
      List<String> lines = new ArrayList<>(List.of(it.name(), it.target()));
      if (rel == null) {
        lines.add(it.type());
      } else if (rel.isEmpty()) {
        lines.add("(no relation to G_d)");
      } else {
        lines.addAll(rel);
      }
      String key = "in" + i + ":" + it.name();
      top.add(gsBox(key, "input", rel != null && rel.isEmpty(), lines, it));
      edges.add(new PageDrawing.Edge(key, op));
    }
    List<PageDrawing.Box> middle =
        List.of(
            gsBox(
                op,
                "operator",
                true,
                List.of(
                    n.operator().name(),
                    n.operator().target(),
                    f.source() != null ? shortWhere(f.source()) : where(n.operator())),
                n.operator()));
    List<PageDrawing.Box> bottom = new ArrayList<>();
    int users = outs.size() - (n.returned() ? 1 : 0);
    for (int i = 0; i < outs.size(); i++) {
      Neighbourhood.Item it = outs.get(i);
      String key = "out" + i + ":" + it.name();
      bottom.add(
          gsBox(
              key,
              i < users ? "user" : "user returned",
              false,
              List.of(it.name(), it.target(), where(it)),
              it));
      edges.add(new PageDrawing.Edge(op, key));
    }
    int hidden =
        n.inputs().size() - ins.size() + n.users().size() + (n.returned() ? 1 : 0) - outs.size();
    PageDrawing.svg(
        b,
        "drawing",
        "neighbourhood of " + n.operator().name() + " in G_s",
        List.of(top, middle, bottom),
        edges,
        hidden);
  }

  private static PageDrawing.Box gsBox(
      String key, String role, boolean alert, List<String> lines, Neighbourhood.Item it) {
    return new PageDrawing.Box(
        key, role, alert, lines, it.name(), it.target(), it.type(), it.stackTrace());
  }

  /** G_d where it diverges: the located operations highlighted, what they read, their users. */
  private static void gdDrawing(StringBuilder b, GdNeighbourhood g) {
    List<PageDrawing.Box> top = new ArrayList<>();
    g.inputs().forEach(x -> top.add(gdBox("input", false, x)));
    List<PageDrawing.Box> middle = new ArrayList<>();
    g.diverging().forEach(x -> middle.add(gdBox("diverging", true, x)));
    List<PageDrawing.Box> bottom = new ArrayList<>();
    g.users().forEach(x -> bottom.add(gdBox("user", false, x)));
    PageDrawing.svg(
        b, "gd-drawing", "where G_d diverges", List.of(top, middle, bottom), g.edges(), g.hidden());
  }

  private static PageDrawing.Box gdBox(String role, boolean alert, GdNeighbourhood.Node x) {
    List<String> lines = new ArrayList<>(List.of(x.name(), x.target(), x.type()));
    if (x.where() != null) {
      lines.add(x.where());
    }
    return new PageDrawing.Box(
        x.name(), role, alert, lines, x.name(), x.target(), x.type(), x.stackTrace());
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
    return fr == null ? it.type() : shortWhere(fr);
  }

  /** {@code FILE:LINE}, the file without its folders. */
  private static String shortWhere(SourceFrames.Frame fr) {
    String path = fr.path();
    int slash = path.lastIndexOf('/');
    return (slash >= 0 ? path.substring(slash + 1) : path) + ":" + fr.line();
  }

  /** Opens a {@code <details>} with its summary: open at first unless {@code folded}. */
  private static void fold(StringBuilder b, String id, String summary, boolean folded) {
    b.append("<details id=\"")
        .append(id)
        .append("\"")
        .append(folded ? "" : " open")
        .append("><summary>")
        .append(esc(summary))
        .append("</summary>");
  }

  /** Sizes, time and how often each lemma fired, most used first. */
  private static void statistics(StringBuilder b, Report r) {
    CheckResult.Stats s = r.stats();
    if (s == null) {
      return;
    }
    b.append("<section id=\"statistics\"><h2>Statistics</h2><table id=\"stats-table\">")
        .append("<tr><th>G_s operators</th><td>")
        .append(s.gsOperators())
        .append("</td></tr><tr><th>G_d operators</th><td>")
        .append(s.gdOperators())
        .append("</td></tr><tr><th>time</th><td>")
        .append(Decimals.fixed(s.seconds(), 2))
        .append(" s</td></tr><tr><th>lemma applications</th><td>")
        .append(s.lemmaApplications().values().stream().mapToLong(Integer::longValue).sum())
        .append(" (")
        .append(s.lemmaApplications().size())
        .append(" lemmas)</td></tr></table>\n");
    if (!s.lemmaApplications().isEmpty()) {
      List<Map.Entry<String, Integer>> fired = new ArrayList<>(s.lemmaApplications().entrySet());
      fired.sort(
          Map.Entry.<String, Integer>comparingByValue()
              .reversed()
              .thenComparing(Map.Entry.comparingByKey()));
      fold(
          b,
          "lemma-list",
          "Lemmas applied (" + fired.size() + "), most used first",
          fired.size() > FOLD_OVER);
      b.append("<table id=\"lemma-table\"><tr><th>lemma</th><th>applications</th></tr>");
      for (Map.Entry<String, Integer> e : fired) {
        b.append("<tr><td><code>")
            .append(esc(e.getKey()))
            .append("</code></td><td>")
            .append(e.getValue())
            .append("</td></tr>");
      }
      b.append("</table></details>\n");
    }
    b.append("</section>\n");
  }

  private static void entries(StringBuilder b, String id, List<Report.Entry> entries) {
    boolean folded = entries.size() > FOLD_OVER;
    if (folded) {
      fold(b, id + "-fold", entries.size() + " entries", true);
    }
    b.append("<table id=\"").append(id).append("\"><tr><th>G_s</th><th>G_d</th></tr>");
    for (Report.Entry e : entries) {
      b.append("<tr><td><code>")
          .append(esc(e.gs()))
          .append("</code></td><td><code>")
          .append(esc(e.gd()))
          .append("</code></td></tr>");
    }
    b.append("</table>\n");
    if (folded) {
      b.append("</details>\n");
    }
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
      case UNSUPPORTED -> "The check needs an operator entangle does not support yet";
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
      figure{margin:0;flex:1 1 420px;min-width:0;background:#fff;border:1px solid #ddd;padding:8px;
      overflow:auto}svg.drawing{max-width:100%;height:auto}
      aside{flex:1 1 280px;background:#fff;border:1px solid #ddd;padding:8px 12px;max-width:520px}
      .node rect{fill:#fff;stroke:#667;stroke-width:1.2}.node.operator rect{fill:#fde8e6;stroke:#b3261e;
      stroke-width:2}.node.alert.input rect{stroke:#b3261e;stroke-dasharray:4 3}
      .node.diverging rect{fill:#fde8e6;stroke:#b3261e;stroke-width:2}
      .node text{font:12px ui-monospace,monospace;fill:#1d1d24}.node text.name{font-weight:700}
      .node text.line{fill:#2b5d8a}.node.selected rect{stroke:#2b5d8a;stroke-width:3}
      details{margin:6px 0}summary{cursor:pointer;font-weight:600}
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
        function selectable(drawing, panel) {
          var details = document.getElementById(panel);
          var nodes = document.querySelectorAll('#' + drawing + ' .node');
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
          return show;
        }
        var showGs = selectable('drawing', 'details');
        var op = document.querySelector('#drawing .node.operator');
        if (op) { showGs(op); }
        var showGd = selectable('gd-drawing', 'gd-details');
        var first = document.querySelector('#gd-drawing .node.diverging');
        if (first) { showGd(first); }
        // Every text of a box must lie inside its box: count those that do not.
        var cut = [];
        document.querySelectorAll('svg.drawing .node').forEach(function (n) {
          var r = n.querySelector('rect').getBBox();
          n.querySelectorAll('text').forEach(function (t) {
            var b = t.getBBox();
            if (b.x < r.x || b.y < r.y || b.x + b.width > r.x + r.width
                || b.y + b.height > r.y + r.height) {
              cut.push(t.textContent);
            }
          });
        });
        document.documentElement.setAttribute('data-cut', String(cut.length));
        document.documentElement.setAttribute('data-cut-texts', cut.join(' | '));
        document.documentElement.setAttribute('data-ready', 'yes');
      })();
      """;
}
