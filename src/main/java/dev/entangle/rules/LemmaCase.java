package dev.entangle.rules;

import dev.entangle.util.InputException;
import dev.entangle.util.InputFiles;
import dev.entangle.util.IoReasons;
import dev.entangle.util.Names;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * One case of a lemma-case file: two terms that the named lemma must prove equal ({@code =>}) or
 * that the whole library must not prove equal ({@code !=>}), optionally given that two other terms
 * are equal.
 *
 * <p>A case file ({@code *.cases}) holds one case per line, {@code NAME: LEFT => RIGHT} or {@code
 * NAME: LEFT !=> RIGHT}, optionally followed by {@code given A = B}, in the term syntax of {@link
 * TermReader}; a line starting with white space continues the case above; {@code #} starts a
 * comment line.
 */
public record LemmaCase(
    String file,
    int line,
    String lemma,
    boolean positive,
    String left,
    String right,
    String[] given) {

  LemmaCase(String file, int line, String lemma, boolean positive, String left, String right) {
    this(file, line, lemma, positive, left, right, null);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LemmaCase c
        && c.file.equals(file)
        && c.line == line
        && c.lemma.equals(lemma)
        && c.positive == positive
        && c.left.equals(left)
        && c.right.equals(right)
        && Arrays.equals(c.given, given);
  }

  @Override
  public int hashCode() {
    return Objects.hash(file, line, lemma, positive, left, right, Arrays.hashCode(given));
  }

  /** Where the case is written, as {@code file:line}. */
  public String where() {
    return file + ":" + line;
  }

  @Override
  public String toString() {
    return lemma
        + ": "
        + left
        + (positive ? " => " : " !=> ")
        + right
        + (given == null ? "" : " given " + given[0] + " = " + given[1]);
  }

  /** Every case of every {@code *.cases} file in {@code dir}, files in name order. */
  public static List<LemmaCase> load(Path dir) {
    List<LemmaCase> out = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".cases")).sorted().toList()) {
        out.addAll(parse(f.getFileName().toString(), Files.readString(f, StandardCharsets.UTF_8)));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /**
   * Every case of the {@code *.cases} files in a user's lemma folder, each file named by its path;
   * a file that cannot be read, a malformed line or a term that does not read is an {@link
   * InputException} naming the file and line.
   */
  public static List<LemmaCase> readChecked(Path dir) {
    List<Path> files;
    try (Stream<Path> listed = Files.list(dir)) {
      files = listed.filter(p -> p.toString().endsWith(".cases")).sorted().toList();
    } catch (IOException e) {
      throw new InputException(
          Names.shorten(dir.toString())
              + ": cannot list the lemma folder ("
              + IoReasons.of(e)
              + "); check that it is a readable folder.");
    }
    List<LemmaCase> out = new ArrayList<>();
    for (Path f : files) {
      List<LemmaCase> cases;
      try {
        cases = parse(f.toString(), InputFiles.readText(f, "lemma case file"));
      } catch (IllegalArgumentException e) {
        throw new InputException(e.getMessage() + "; " + FORM);
      }
      for (LemmaCase c : cases) {
        c.requireTerms();
      }
      out.addAll(cases);
    }
    return out;
  }

  private static final String FORM =
      "write one case a line, as NAME: LEFT => RIGHT or NAME: LEFT !=> RIGHT, terms as in the"
          + " README's 'Writing a lemma'.";

  /** Fails with an {@link InputException} at this case's line unless every term of it reads. */
  void requireTerms() {
    TermReader t = new TermReader();
    try {
      t.add(left);
      t.add(right);
      if (given != null) {
        t.add(given[0]);
        t.add(given[1]);
      }
    } catch (IllegalArgumentException e) {
      throw new InputException(where() + ": " + e.getMessage() + "; " + FORM);
    }
  }

  /** The cases of one file's text. */
  public static List<LemmaCase> parse(String file, String text) {
    List<String> joined = new ArrayList<>();
    List<Integer> lines = new ArrayList<>();
    String[] raw = text.split("\n", -1);
    for (int i = 0; i < raw.length; i++) {
      String l = raw[i];
      if (l.isBlank() || l.strip().startsWith("#")) {
        continue;
      }
      if (Character.isWhitespace(l.charAt(0))) {
        if (joined.isEmpty()) {
          throw new IllegalArgumentException(
              file + ":" + (i + 1) + ": a continuation line with no case above");
        }
        joined.set(joined.size() - 1, joined.get(joined.size() - 1) + " " + l.strip());
      } else {
        joined.add(l.strip());
        lines.add(i + 1);
      }
    }
    List<LemmaCase> out = new ArrayList<>();
    for (int i = 0; i < joined.size(); i++) {
      out.add(one(file, lines.get(i), joined.get(i)));
    }
    return out;
  }

  private static LemmaCase one(String file, int line, String s) {
    int colon = s.indexOf(": ");
    if (colon <= 0) {
      throw new IllegalArgumentException(
          file + ":" + line + ": expected 'lemma-name: LEFT => RIGHT', got: " + Names.shorten(s));
    }
    String name = s.substring(0, colon).strip();
    String rest = s.substring(colon + 2);
    int neg = rest.indexOf(" !=> ");
    int pos = rest.indexOf(" => ");
    if ((neg < 0) == (pos < 0)
        || rest.indexOf(neg < 0 ? " => " : " !=> ", (neg < 0 ? pos : neg) + 1) >= 0) {
      throw new IllegalArgumentException(
          file + ":" + line + ": expected exactly one ' => ' or ' !=> ' in: " + Names.shorten(s));
    }
    boolean positive = pos >= 0;
    int at = positive ? pos : neg;
    int len = positive ? 4 : 5;
    String right = rest.substring(at + len).strip();
    String[] given = null;
    int g = right.indexOf(" given ");
    if (g >= 0) {
      String[] eq = right.substring(g + 7).split(" = ", -1);
      if (eq.length != 2) {
        throw new IllegalArgumentException(
            file
                + ":"
                + line
                + ": expected 'given A = B' with exactly one ' = ' in: "
                + Names.shorten(s));
      }
      given = new String[] {eq[0].strip(), eq[1].strip()};
      right = right.substring(0, g).strip();
    }
    return new LemmaCase(file, line, name, positive, rest.substring(0, at).strip(), right, given);
  }
}
