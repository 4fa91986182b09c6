package dev.entangle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The format specification is part of the repository: nothing cites a file outside it, and every
 * citation of a section of docs/formats.md ({@code docs/formats.md, Relation files}, or a link
 * {@code formats.md#relation-files}) names a heading it has.
 */
class DocsTest {
  private static final Path SPEC = Path.of("docs/formats.md");

  /**
   * Folders that are not the repository's files (those .gitignore names): build output, Git's data,
   * Python's caches and the capture front end's virtual environment (gigabytes of torch).
   */
  private static final Set<String> SKIPPED_FOLDERS =
      Set.of("target", ".git", "__pycache__", ".venv");

  /** Git-ignored folders at one path only, relative to the project root. */
  private static final Set<String> SKIPPED_PATHS = Set.of("out", "python/entangle_capture/build");

  /** Files outside the repository that its files once cited (spelled so as not to cite them). */
  private static final List<String> OUTSIDE_FILES = List.of("FORMATS" + ".md", "shared" + "/spec");

  private static final String CITATION = "docs/formats.md" + ", ";
  private static final Pattern ANCHOR = Pattern.compile("formats\\.md#([A-Za-z0-9_-]+)");

  /** A link within docs/formats.md: {@code [Nodes](#nodes)}. */
  private static final Pattern LOCAL_LINK = Pattern.compile("\\]\\(#([A-Za-z0-9_-]+)\\)");

  /**
   * Every file of the repository that is text, with its path relative to the project root. The
   * skipped folders are not entered at all.
   */
  private static List<Path> repositoryFiles() throws IOException {
    Path root = Path.of(".");
    List<Path> out = new ArrayList<>();
    Files.walkFileTree(
        root,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
            Path rel = root.relativize(dir);
            String name = dir.getFileName() == null ? "" : dir.getFileName().toString();
            boolean skipped =
                SKIPPED_FOLDERS.contains(name)
                    || name.endsWith(".egg-info")
                    || SKIPPED_PATHS.contains(rel.toString().replace('\\', '/'));
            return skipped ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
            String name = file.getFileName().toString();
            if (attrs.isRegularFile() && !name.endsWith(".pyc") && !name.endsWith(".class")) {
              out.add(file);
            }
            return FileVisitResult.CONTINUE;
          }
        });
    out.sort(Comparator.comparing(Path::toString));
    return out;
  }

  private static String read(Path p) throws IOException {
    return new String(Files.readAllBytes(p), StandardCharsets.ISO_8859_1);
  }

  /** The headings of the format specification, without their leading {@code #}s. */
  private static List<String> headings() throws IOException {
    List<String> out = new ArrayList<>();
    boolean inFence = false;
    for (String line : Files.readAllLines(SPEC)) {
      if (line.startsWith("```")) {
        inFence = !inFence;
      } else if (!inFence && line.startsWith("#")) {
        out.add(line.replaceFirst("^#+\\s*", "").strip());
      }
    }
    return out;
  }

  /** A heading's anchor as GitHub makes it: lower case, punctuation dropped, blanks as dashes. */
  private static String anchor(String heading) {
    return heading.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9 _-]", "").replace(' ', '-');
  }

  /** Text with line breaks, and the comment markers that continue a comment, as single blanks. */
  private static String joined(String text) {
    return text.replaceAll("\\s*\\R\\s*(?:\\*(?!/)|//|#)?\\s*", " ").replaceAll("[ \\t]+", " ");
  }

  /**
   * Why the citation at the start of {@code rest} (the text after the file name and its comma)
   * names no heading, or null when it names one (or several joined by {@code and}).
   */
  private static String badCitation(String rest, List<String> headings) {
    String text = rest;
    while (true) {
      String longest = null;
      for (String h : headings) {
        if (text.startsWith(h)
            && (text.length() == h.length() || !Character.isLetterOrDigit(text.charAt(h.length())))
            && (longest == null || h.length() > longest.length())) {
          longest = h;
        }
      }
      if (longest == null) {
        return "no heading of docs/formats.md starts \""
            + text.substring(0, Math.min(40, text.length()))
            + "\"";
      }
      text = text.substring(longest.length());
      if (!text.startsWith(" and ")
          || text.length() <= 5
          || !Character.isUpperCase(text.charAt(5))) {
        return null;
      }
      text = text.substring(5);
    }
  }

  @Test
  void theFormatSpecificationIsInTheRepository() throws IOException {
    assertTrue(Files.isRegularFile(SPEC), SPEC + " is missing");
    List<String> headings = headings();
    for (String section :
        List.of(
            "Graph files",
            "Distributed graph files",
            "Relation files",
            "Expression syntax",
            "JSON report",
            "Batch manifests",
            "Case folders",
            "Import inputs",
            "Verdicts",
            "Exit codes")) {
      assertTrue(headings.contains(section), "docs/formats.md has no section " + section);
    }
  }

  @Test
  void noFileCitesAFileOutsideTheRepository() throws IOException {
    List<String> found = new ArrayList<>();
    for (Path p : repositoryFiles()) {
      String text = read(p);
      for (String outside : OUTSIDE_FILES) {
        if (text.contains(outside)) {
          found.add(p + " mentions " + outside);
        }
      }
    }
    assertEquals(List.of(), found);
  }

  @Test
  void everyCitedSectionOfTheFormatSpecificationExists() throws IOException {
    List<String> headings = headings();
    List<String> anchors = headings.stream().map(DocsTest::anchor).toList();
    List<String> bad = new ArrayList<>();
    int citations = 0;
    for (Path p : repositoryFiles()) {
      String text = joined(read(p));
      for (int at = text.indexOf(CITATION); at >= 0; at = text.indexOf(CITATION, at + 1)) {
        citations++;
        String why = badCitation(text.substring(at + CITATION.length()), headings);
        if (why != null) {
          bad.add(p + ": " + why);
        }
      }
      Matcher m = ANCHOR.matcher(text);
      while (m.find()) {
        citations++;
        if (!anchors.contains(m.group(1))) {
          bad.add(p + ": formats.md#" + m.group(1) + " is no heading's anchor");
        }
      }
      if (p.normalize().equals(SPEC)) {
        Matcher local = LOCAL_LINK.matcher(text);
        while (local.find()) {
          if (!anchors.contains(local.group(1))) {
            bad.add(p + ": the link #" + local.group(1) + " is no heading's anchor");
          }
        }
      }
    }
    assertEquals(List.of(), bad);
    assertFalse(citations < 20, "only " + citations + " citations found; is the scan broken?");
  }

  @Test
  void aMisspelledSectionIsCaught() throws IOException {
    List<String> headings = headings();
    assertNull(badCitation("Relation files) and more", headings));
    assertNull(badCitation("Graph files and Distributed graph files; x", headings));
    assertNotNull(badCitation("Relations)", headings));
    assertNotNull(badCitation("Graph files and Relatoin files.", headings));
    assertNotNull(badCitation("Graph filesystem", headings));
  }
}
