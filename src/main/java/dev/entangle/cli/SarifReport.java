package dev.entangle.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.entangle.refine.Verdict;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code --sarif} report: a SARIF 2.1.0 log with one run of entangle. Each failure is a result
 * located at the line of the distributed code where G_d diverges ({@link GdLocations}; the
 * sequential model's line of the failing operator, the other G_d lines and the other frames are
 * related locations), so code scanning annotates that Python line; {@code not-refined} and {@code
 * expectation-violated} are errors, {@code unproved}, {@code inconclusive} and {@code unsupported}
 * warnings. A refinement has no result. A batch case that could not run is a tool execution
 * notification.
 */
final class SarifReport {
  static final String SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json";
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  /** The rules, in the order of their {@code ruleIndex}. */
  private static final List<Rule> RULES =
      List.of(
          new Rule(
              "not-refined",
              "NotRefined",
              "error",
              "G_d does not compute this G_s operator's result",
              "No clean expression (concatenation, slice, transpose, reshape, sum across ranks) of"
                  + " the distributed implementation's tensors equals the result of this operator of"
                  + " the sequential model: the distributed model computes something else here (a"
                  + " missing collective, a bias added on every rank, a wrong slice or scale)."),
          new Rule(
              "expectation-violated",
              "ExpectationViolated",
              "error",
              "An expected output relation does not hold",
              "The output relation exists, but a pair the relation file expects (its \"expect\""
                  + " list) could not be proved."),
          new Rule(
              "unproved",
              "Unproved",
              "warning",
              "No lemma proves this operator; numbers say it maps",
              "No lemma proves that G_d computes this operator's result, but on random inputs it"
                  + " equals a clean expression of G_d tensors: a gap in the lemmas, not, on this"
                  + " evidence, a bug in the model. The report gives a lemma to complete."),
          new Rule(
              "inconclusive",
              "Inconclusive",
              "warning",
              "A limit was reached before a verdict",
              "The time or e-graph limit was reached while checking this operator; raise"
                  + " --timeout or --node-limit."),
          new Rule(
              "unsupported",
              "Unsupported",
              "warning",
              "An operator entangle does not support yet",
              "The check stopped at an operator the checker can neither lower nor evaluate (it is"
                  + " kept opaque), so neither a proof nor the numbers can say whether the"
                  + " distributed model computes it. Give its law as a lemma (--lemmas) or ask for"
                  + " the operator to be supported."));

  private SarifReport() {}

  private record Rule(String id, String name, String level, String brief, String full) {}

  /** A checked case and its report. */
  record Checked(CaseLabel label, Report report) {}

  /** A case that could not be checked, and why. */
  record NotRun(String name, String reason) {}

  /** The log of checked cases (and of cases that did not run), one run of entangle. */
  static ObjectNode toJson(List<Checked> checked, List<NotRun> notRun) {
    ObjectNode root = JSON.objectNode();
    root.put("$schema", SCHEMA);
    root.put("version", "2.1.0");
    ObjectNode run = root.putArray("runs").addObject();
    ObjectNode driver = run.putObject("tool").putObject("driver");
    driver.put("name", "entangle");
    driver.put("version", new Version().getVersion()[0].replaceFirst("^entangle ", ""));
    ArrayNode rules = driver.putArray("rules");
    for (Rule r : RULES) {
      ObjectNode o = rules.addObject();
      o.put("id", r.id());
      o.put("name", r.name());
      o.putObject("shortDescription").put("text", r.brief());
      o.putObject("fullDescription").put("text", r.full());
      o.putObject("help").put("text", r.full());
      o.putObject("defaultConfiguration").put("level", r.level());
    }
    ObjectNode invocation = run.putArray("invocations").addObject();
    invocation.put("executionSuccessful", notRun.isEmpty());
    if (!notRun.isEmpty()) {
      ArrayNode notes = invocation.putArray("toolExecutionNotifications");
      for (NotRun n : notRun) {
        ObjectNode o = notes.addObject();
        o.put("level", "error");
        o.putObject("message").put("text", n.name() + ": did not run: " + n.reason());
      }
    }
    ArrayNode results = run.putArray("results");
    for (Checked c : checked) {
      if (c.report().failure() != null && c.report().verdict() != Verdict.REFINES) {
        results.add(result(c.label(), c.report()));
      }
    }
    return root;
  }

  static void write(List<Checked> checked, List<NotRun> notRun, Path file) {
    OutputFiles.writeReport(toJson(checked, notRun), file);
  }

  private static ObjectNode result(CaseLabel label, Report r) {
    Report.FailureText f = r.failure();
    int index = ruleIndex(r.verdict());
    Rule rule = RULES.get(index);
    ObjectNode o = JSON.objectNode();
    o.put("ruleId", rule.id());
    o.put("ruleIndex", index);
    o.put("level", rule.level());
    o.putObject("message").put("text", label.name() + ": " + JunitReport.summary(r));
    List<SourceFrames.Frame> frames = SourceFrames.of(f.stackTrace());
    SourceFrames.Frame gsLine = f.source();
    SourceFrames.Frame primary = f.annotated();
    ObjectNode location = o.putArray("locations").addObject();
    if (primary != null) {
      location.set("physicalLocation", physical(primary));
    } else {
      ObjectNode pl = location.putObject("physicalLocation");
      artifact(pl.putObject("artifactLocation"), label.gs());
    }
    ObjectNode logical = location.putArray("logicalLocations").addObject();
    logical.put("name", f.operator());
    logical.put("fullyQualifiedName", label.name() + "/" + f.operator());
    logical.put("kind", "function");
    List<ObjectNode> related = new ArrayList<>();
    if (gsLine != null && gsLine != primary) {
      related.add(
          related(
              gsLine,
              "the sequential model's operator "
                  + f.operator()
                  + " ("
                  + f.target()
                  + "), which G_d does not compute"));
    }
    for (int i = 1; i < f.gdLocations().size(); i++) {
      GdLocations.Location l = f.gdLocations().get(i);
      related.add(related(l.frame(), "G_d also diverges here: " + String.join(", ", l.tensors())));
    }
    for (SourceFrames.Frame fr : frames) {
      if (fr != gsLine && fr != primary) {
        related.add(
            related(fr, "called from " + (fr.function() == null ? fr.where() : fr.function())));
      }
    }
    if (!related.isEmpty()) {
      ArrayNode rl = o.putArray("relatedLocations");
      for (int id = 0; id < related.size(); id++) {
        ObjectNode r1 = related.get(id);
        r1.put("id", id);
        rl.add(r1);
      }
    }
    o.putObject("partialFingerprints")
        .put("entangleOperator/v1", label.name() + "/" + f.operator() + "/" + rule.id());
    ObjectNode p = o.putObject("properties");
    p.put("case", label.name());
    p.put("verdict", r.verdict().json());
    p.put("operator", f.operator());
    p.put("target", f.target());
    p.put("gs", label.gs());
    p.put("gd", label.gd());
    p.put("relation", label.relation());
    ArrayNode inputs = p.putArray("inputs");
    for (Report.Input i : f.inputs()) {
      ObjectNode io = inputs.addObject();
      io.put("name", i.name());
      ArrayNode gd = io.putArray("gd");
      i.gd().forEach(gd::add);
      if (i.constant()) {
        io.put("constant", true);
      }
    }
    return o;
  }

  private static ObjectNode related(SourceFrames.Frame f, String message) {
    ObjectNode rl = JSON.objectNode();
    rl.set("physicalLocation", physical(f));
    rl.putObject("message").put("text", message);
    return rl;
  }

  private static int ruleIndex(Verdict v) {
    return switch (v) {
      case NOT_REFINED -> 0;
      case EXPECTATION_VIOLATED -> 1;
      case UNPROVED -> 2;
      case INCONCLUSIVE, REFINES -> 3;
      case UNSUPPORTED -> 4;
    };
  }

  private static ObjectNode physical(SourceFrames.Frame f) {
    ObjectNode pl = JSON.objectNode();
    artifact(pl.putObject("artifactLocation"), f.path());
    ObjectNode region = pl.putObject("region");
    region.put("startLine", Math.max(1, f.line()));
    if (f.code() != null) {
      region.putObject("snippet").put("text", f.code());
    }
    return pl;
  }

  /**
   * A file as SARIF names it: a relative path stays relative to the source root ({@code
   * %SRCROOT%}), an absolute one becomes a {@code file:} URI.
   */
  private static void artifact(ObjectNode al, String path) {
    if (path.startsWith("/")) {
      al.put("uri", "file://" + encode(path));
    } else {
      al.put("uri", encode(path.startsWith("./") ? path.substring(2) : path));
      al.put("uriBaseId", "%SRCROOT%");
    }
  }

  /** Percent-encodes what a URI path cannot hold as it is. */
  static String encode(String path) {
    StringBuilder b = new StringBuilder();
    for (byte x : path.getBytes(StandardCharsets.UTF_8)) {
      int c = x & 0xff;
      if ((c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z')
          || (c >= '0' && c <= '9')
          || "-._~/".indexOf(c) >= 0) {
        b.append((char) c);
      } else {
        b.append('%').append(String.format("%02X", c));
      }
    }
    return b.toString();
  }
}
