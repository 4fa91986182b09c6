package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * A JUnit XML file read back and held to what CI test reporters read (Jenkins' JUnit schema,
 * GitLab's and GitHub's parsers): a {@code testsuites} root of {@code testsuite}s with {@code
 * name}, {@code tests}, {@code failures}, {@code errors} and a numeric {@code time}, counts that
 * match the cases, {@code properties} of {@code property name value}, each {@code testcase} with
 * {@code name}, {@code classname} and {@code time}, and each {@code failure}/{@code error} with
 * {@code message} and {@code type}; no other elements or attributes than those schemas know (plus
 * {@code file} and {@code line} on test cases, which GitLab and GitHub's reporters read).
 */
record JunitXml(Document doc) {
  private static final String TIME = "\\d+(\\.\\d+)?";
  private static final Set<String> SUITES_ATTRS =
      Set.of("name", "tests", "failures", "errors", "time");
  private static final Set<String> SUITE_ATTRS =
      Set.of(
          "name",
          "tests",
          "failures",
          "errors",
          "skipped",
          "time",
          "timestamp",
          "hostname",
          "id",
          "package");
  private static final Set<String> CASE_ATTRS = Set.of("name", "classname", "time", "file", "line");
  private static final Set<String> CASE_CHILDREN =
      Set.of("failure", "error", "skipped", "system-out", "system-err");

  static JunitXml read(Path file) {
    try {
      DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
      f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      return new JunitXml(f.newDocumentBuilder().parse(file.toFile())).valid();
    } catch (Exception e) {
      throw new AssertionError("cannot parse " + file + " as XML: " + e.getMessage(), e);
    }
  }

  /** Asserts the structure every reporter relies on; returns this. */
  JunitXml valid() {
    Element root = doc.getDocumentElement();
    assertEquals("testsuites", root.getTagName());
    attrs(root, SUITES_ATTRS);
    int tests = 0;
    int failures = 0;
    int errors = 0;
    for (Element suite : children(root)) {
      assertEquals("testsuite", suite.getTagName());
      attrs(suite, SUITE_ATTRS);
      for (String a : List.of("name", "tests", "failures", "errors")) {
        assertTrue(suite.hasAttribute(a), "testsuite without " + a);
      }
      assertTrue(suite.getAttribute("time").matches(TIME), suite.getAttribute("time"));
      int t = 0;
      int f = 0;
      int e = 0;
      int s = 0;
      for (Element child : children(suite)) {
        switch (child.getTagName()) {
          case "properties" -> {
            for (Element p : children(child)) {
              assertEquals("property", p.getTagName());
              assertTrue(p.hasAttribute("name") && p.hasAttribute("value"));
            }
          }
          case "testcase" -> {
            t++;
            attrs(child, CASE_ATTRS);
            assertFalse(child.getAttribute("name").isEmpty(), "testcase without a name");
            assertTrue(child.hasAttribute("classname"), "testcase without a classname");
            assertTrue(child.getAttribute("time").matches(TIME), child.getAttribute("time"));
            for (Element c : children(child)) {
              assertTrue(CASE_CHILDREN.contains(c.getTagName()), c.getTagName());
              if (c.getTagName().equals("failure") || c.getTagName().equals("error")) {
                assertFalse(c.getAttribute("message").isEmpty(), "no message on " + c.getTagName());
                assertFalse(c.getAttribute("type").isEmpty(), "no type on " + c.getTagName());
              }
              f += c.getTagName().equals("failure") ? 1 : 0;
              e += c.getTagName().equals("error") ? 1 : 0;
              s += c.getTagName().equals("skipped") ? 1 : 0;
            }
          }
          case "system-out", "system-err" -> {}
          default -> throw new AssertionError("unexpected element " + child.getTagName());
        }
      }
      assertEquals(String.valueOf(t), suite.getAttribute("tests"));
      assertEquals(String.valueOf(f), suite.getAttribute("failures"));
      assertEquals(String.valueOf(e), suite.getAttribute("errors"));
      assertEquals(String.valueOf(s), suite.getAttribute("skipped"));
      tests += t;
      failures += f;
      errors += e;
    }
    assertEquals(String.valueOf(tests), root.getAttribute("tests"));
    assertEquals(String.valueOf(failures), root.getAttribute("failures"));
    assertEquals(String.valueOf(errors), root.getAttribute("errors"));
    return this;
  }

  /** Every test case of every suite, in order. */
  List<Element> cases() {
    List<Element> out = new ArrayList<>();
    NodeList l = doc.getElementsByTagName("testcase");
    for (int i = 0; i < l.getLength(); i++) {
      out.add((Element) l.item(i));
    }
    return out;
  }

  /** The test case of that name. */
  Element testCase(String name) {
    return cases().stream()
        .filter(c -> c.getAttribute("name").equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no test case " + name));
  }

  /** The first child element of that tag, or null. */
  static Element child(Element e, String tag) {
    return children(e).stream().filter(c -> c.getTagName().equals(tag)).findFirst().orElse(null);
  }

  /** The value of a suite property. */
  String property(String name) {
    NodeList l = doc.getElementsByTagName("property");
    for (int i = 0; i < l.getLength(); i++) {
      Element p = (Element) l.item(i);
      if (p.getAttribute("name").equals(name)) {
        return p.getAttribute("value");
      }
    }
    return null;
  }

  private static List<Element> children(Element e) {
    List<Element> out = new ArrayList<>();
    for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element c) {
        out.add(c);
      }
    }
    return out;
  }

  private static void attrs(Element e, Set<String> allowed) {
    for (int i = 0; i < e.getAttributes().getLength(); i++) {
      String a = e.getAttributes().item(i).getNodeName();
      assertTrue(allowed.contains(a), "attribute " + a + " on " + e.getTagName());
    }
  }
}
