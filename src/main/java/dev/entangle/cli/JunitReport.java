package dev.entangle.cli;

import dev.entangle.refine.Verdict;
import dev.entangle.util.AtomicFiles;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamWriter;

/**
 * The {@code --junit} report: JUnit XML as Jenkins, GitLab and GitHub's test reporters read it
 * ({@code testsuites/testsuite/testcase} with {@code failure}, {@code error} or {@code skipped},
 * {@code properties}, {@code time}, and {@code file}/{@code line} of the model source). A check is
 * one suite with a test case per output and one for the failing operator; a batch is one suite with
 * a test case per case.
 */
final class JunitReport {
  private JunitReport() {}

  /** A test suite. */
  record Suite(String name, double seconds, Map<String, String> properties, List<TestCase> cases) {}

  /**
   * A test case.
   *
   * @param source the model source line it points at, or null
   * @param output the text shown with it ({@code system-out}), or null
   */
  record TestCase(
      String classname,
      String name,
      double seconds,
      SourceFrames.Frame source,
      Outcome outcome,
      String output) {}

  /** How a test case ended. */
  sealed interface Outcome {
    record Passed() implements Outcome {}

    /** An assertion that did not hold: the model is wrong, or an expectation is not met. */
    record Failed(String type, String message, String text) implements Outcome {}

    /** The check could not decide (a limit, a gap in the lemmas) or could not run. */
    record Errored(String type, String message, String text) implements Outcome {}

    record Skipped(String message) implements Outcome {}
  }

  /** The suite of one {@code entangle check}. */
  static Suite forCheck(CaseLabel label, Report r) {
    String classname = "entangle." + label.name();
    List<TestCase> cases = new ArrayList<>();
    for (Report.Entry e : r.outputRelation()) {
      cases.add(
          new TestCase(
              classname,
              "output " + e.gs(),
              0,
              null,
              new Outcome.Passed(),
              e.gs() + " = " + e.gd()));
    }
    for (String n : r.notChecked()) {
      cases.add(
          new TestCase(
              classname,
              "output " + n,
              0,
              null,
              new Outcome.Skipped(
                  "not checked: it has no defined value (a dropout mask or an uninitialized buffer)"),
              null));
    }
    if (r.failure() != null) {
      Report.FailureText f = r.failure();
      SourceFrames.Frame at = f.annotated();
      String text = text(r);
      String message = summary(r);
      Outcome o =
          failed(r.verdict())
              ? new Outcome.Failed(r.verdict().json(), message, text)
              : new Outcome.Errored(r.verdict().json(), message, text);
      cases.add(
          new TestCase(
              classname,
              "operator " + f.operator() + " (" + f.target() + ")",
              r.stats().seconds(),
              at,
              o,
              null));
    }
    if (cases.isEmpty()) {
      cases.add(
          new TestCase(classname, "refinement", r.stats().seconds(), null, outcome(r), text(r)));
    }
    return new Suite(
        "entangle check " + label.name(), r.stats().seconds(), properties(label, r), cases);
  }

  /**
   * The test case of one batch case.
   *
   * @param report the case's report, or null when it did not run
   * @param error why it did not run, or null
   * @param mismatch why it does not meet its expectation, or null
   */
  static TestCase forBatchCase(
      String classname,
      String name,
      String expected,
      Report report,
      String error,
      String mismatch,
      double seconds) {
    if (report == null) {
      return new TestCase(
          classname,
          name,
          seconds,
          null,
          new Outcome.Errored("input-error", "did not run: " + error, error),
          null);
    }
    SourceFrames.Frame at = report.failure() == null ? null : report.failure().annotated();
    String text = "expected: " + expected + "\n" + text(report);
    Outcome o =
        mismatch == null
            ? new Outcome.Passed()
            : new Outcome.Failed(
                "expectation-not-met",
                mismatch + (report.failure() == null ? "" : "; " + summary(report)),
                text);
    return new TestCase(classname, name, seconds, at, o, mismatch == null ? text : null);
  }

  /** Writes suites to a file (a {@code testsuites} root). */
  static void write(List<Suite> suites, Path file) {
    AtomicFiles.write(
        file,
        out -> {
          try {
            XMLStreamWriter w = XMLOutputFactory.newInstance().createXMLStreamWriter(out, "UTF-8");
            w.writeStartDocument("UTF-8", "1.0");
            w.writeCharacters("\n");
            writeSuites(w, suites);
            w.writeEndDocument();
            w.close();
          } catch (XMLStreamException e) {
            throw new IllegalStateException("JUnit XML could not be written", e);
          }
        });
  }

  static void write(Suite suite, Path file) {
    write(List.of(suite), file);
  }

  private static void writeSuites(XMLStreamWriter w, List<Suite> suites) throws XMLStreamException {
    int[] totals = new int[4];
    double seconds = 0;
    for (Suite s : suites) {
      int[] c = counts(s);
      for (int i = 0; i < 4; i++) {
        totals[i] += c[i];
      }
      seconds += s.seconds();
    }
    w.writeStartElement("testsuites");
    w.writeAttribute("name", suites.isEmpty() ? "entangle" : suites.get(0).name());
    w.writeAttribute("tests", String.valueOf(totals[0]));
    w.writeAttribute("failures", String.valueOf(totals[1]));
    w.writeAttribute("errors", String.valueOf(totals[2]));
    w.writeAttribute("time", time(seconds));
    String timestamp =
        LocalDateTime.now()
            .truncatedTo(ChronoUnit.SECONDS)
            .format(DateTimeFormatter.ISO_LOCAL_DATE_TIME);
    for (int i = 0; i < suites.size(); i++) {
      Suite s = suites.get(i);
      w.writeCharacters("\n  ");
      w.writeStartElement("testsuite");
      w.writeAttribute("name", clean(s.name()));
      counts(w, counts(s), s.seconds());
      w.writeAttribute("id", String.valueOf(i));
      w.writeAttribute("package", "entangle");
      w.writeAttribute("timestamp", timestamp);
      w.writeAttribute("hostname", hostname());
      w.writeCharacters("\n    ");
      w.writeStartElement("properties");
      for (Map.Entry<String, String> p : s.properties().entrySet()) {
        w.writeCharacters("\n      ");
        w.writeEmptyElement("property");
        w.writeAttribute("name", clean(p.getKey()));
        w.writeAttribute("value", clean(p.getValue()));
      }
      w.writeCharacters("\n    ");
      w.writeEndElement();
      for (TestCase c : s.cases()) {
        writeCase(w, c);
      }
      w.writeCharacters("\n    ");
      w.writeEmptyElement("system-out");
      w.writeCharacters("\n    ");
      w.writeEmptyElement("system-err");
      w.writeCharacters("\n  ");
      w.writeEndElement();
    }
    w.writeCharacters("\n");
    w.writeEndElement();
    w.writeCharacters("\n");
  }

  private static void writeCase(XMLStreamWriter w, TestCase c) throws XMLStreamException {
    w.writeCharacters("\n    ");
    w.writeStartElement("testcase");
    w.writeAttribute("name", clean(c.name()));
    w.writeAttribute("classname", clean(c.classname()));
    w.writeAttribute("time", time(c.seconds()));
    if (c.source() != null) {
      w.writeAttribute("file", clean(c.source().path()));
      w.writeAttribute("line", String.valueOf(c.source().line()));
    }
    Outcome o = c.outcome();
    if (o instanceof Outcome.Failed f) {
      element(w, "failure", f.type(), f.message(), f.text());
    } else if (o instanceof Outcome.Errored e) {
      element(w, "error", e.type(), e.message(), e.text());
    } else if (o instanceof Outcome.Skipped s) {
      w.writeCharacters("\n      ");
      w.writeEmptyElement("skipped");
      w.writeAttribute("message", clean(s.message()));
    }
    if (c.output() != null) {
      w.writeCharacters("\n      ");
      w.writeStartElement("system-out");
      w.writeCharacters(clean(c.output()));
      w.writeEndElement();
    }
    w.writeCharacters("\n    ");
    w.writeEndElement();
  }

  private static void element(
      XMLStreamWriter w, String name, String type, String message, String text)
      throws XMLStreamException {
    w.writeCharacters("\n      ");
    w.writeStartElement(name);
    w.writeAttribute("message", clean(message));
    w.writeAttribute("type", clean(type));
    w.writeCharacters(clean(text));
    w.writeEndElement();
  }

  private static void counts(XMLStreamWriter w, int[] c, double seconds) throws XMLStreamException {
    w.writeAttribute("tests", String.valueOf(c[0]));
    w.writeAttribute("failures", String.valueOf(c[1]));
    w.writeAttribute("errors", String.valueOf(c[2]));
    w.writeAttribute("skipped", String.valueOf(c[3]));
    w.writeAttribute("time", time(seconds));
  }

  /** tests, failures, errors, skipped. */
  private static int[] counts(Suite s) {
    int[] c = new int[4];
    for (TestCase t : s.cases()) {
      c[0]++;
      if (t.outcome() instanceof Outcome.Failed) {
        c[1]++;
      } else if (t.outcome() instanceof Outcome.Errored) {
        c[2]++;
      } else if (t.outcome() instanceof Outcome.Skipped) {
        c[3]++;
      }
    }
    return c;
  }

  private static Map<String, String> properties(CaseLabel label, Report r) {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("verdict", r.verdict().json());
    p.put("gs", label.gs());
    p.put("gd", label.gd());
    p.put("relation", label.relation());
    p.put("gs_operators", String.valueOf(r.stats().gsOperators()));
    p.put("gd_operators", String.valueOf(r.stats().gdOperators()));
    p.put("entangle", new Version().getVersion()[0]);
    return p;
  }

  private static Outcome outcome(Report r) {
    if (r.verdict() == Verdict.REFINES) {
      return new Outcome.Passed();
    }
    return failed(r.verdict())
        ? new Outcome.Failed(r.verdict().json(), r.verdict().json(), text(r))
        : new Outcome.Errored(r.verdict().json(), r.verdict().json(), text(r));
  }

  /** Whether a verdict says the model is wrong (a failure), rather than undecided (an error). */
  private static boolean failed(Verdict v) {
    return v == Verdict.NOT_REFINED || v == Verdict.EXPECTATION_VIOLATED;
  }

  /** One line: the verdict, where, and why. */
  static String summary(Report r) {
    Report.FailureText f = r.failure();
    if (f == null) {
      return r.verdict().json();
    }
    SourceFrames.Frame at = f.source();
    SourceFrames.Frame gd = f.gdSource();
    return r.verdict().json()
        + " at "
        + f.operator()
        + " ("
        + f.target()
        + ")"
        + (at == null ? "" : ", " + at.where())
        + (gd == null ? "" : "; G_d at " + gd.where())
        + ": "
        + f.reason();
  }

  /** The text report, as {@code entangle check} prints it. */
  static String text(Report r) {
    StringWriter s = new StringWriter();
    TextReport.print(r, new PrintWriter(s));
    return s.toString();
  }

  private static String time(double seconds) {
    return Decimals.fixed(seconds, 3);
  }

  private static String hostname() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return "localhost";
    }
  }

  /** Drops the characters XML 1.0 cannot hold (control characters but tab, newline, return). */
  static String clean(String s) {
    if (s == null) {
      return "";
    }
    StringBuilder b = new StringBuilder(s.length());
    s.codePoints()
        .filter(
            c ->
                c == 0x9
                    || c == 0xA
                    || c == 0xD
                    || (c >= 0x20 && c <= 0xD7FF)
                    || (c >= 0xE000 && c <= 0xFFFD)
                    || c >= 0x10000)
        .forEach(b::appendCodePoint);
    return b.toString();
  }
}
