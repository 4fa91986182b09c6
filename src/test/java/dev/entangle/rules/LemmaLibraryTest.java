package dev.entangle.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.util.InputException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Loading lemma folders: file order, names, docs and the forms' expansions. */
class LemmaLibraryTest {
  @TempDir Path dir;

  @Test
  void aMissingFolderIsAUserError() {
    Path missing = dir.resolve("no-such-folder");
    InputException e =
        assertThrows(InputException.class, () -> LemmaLibrary.load(List.of(missing)));
    assertEquals(
        "lemma directory "
            + missing
            + " does not exist or is not a directory; pass an existing folder of "
            + ".lemmas files",
        e.getMessage());
  }

  @Test
  void aFileInsteadOfAFolderIsAUserError() throws IOException {
    Path file = Files.writeString(dir.resolve("x.lemmas"), "(rule r (neg ?x) ?x)");
    InputException e = assertThrows(InputException.class, () -> LemmaLibrary.load(List.of(file)));
    assertTrue(
        e.getMessage()
            .startsWith("lemma directory " + file + " does not exist or is not a directory"));
  }

  @Test
  void filesLoadInNameOrderAndOtherFilesAreIgnored() throws IOException {
    Files.writeString(dir.resolve("20-b.lemmas"), "(rule b (relu ?x) ?x)\n");
    Files.writeString(dir.resolve("10-a.lemmas"), "(rule a (neg ?x) ?x)\n(native slice-tiling)\n");
    Files.writeString(dir.resolve("notes.txt"), "(this is not lemma syntax");
    Files.writeString(dir.resolve("30-c.lemmas.bak"), "(rule a (neg ?x) ?x)");
    Lemmas l = LemmaLibrary.load(List.of(dir));
    assertEquals(List.of("a", "b", "slice-tiling"), l.names());
    assertEquals(dir.resolve("10-a.lemmas") + ":1", l.rules().get(0).location());
    assertEquals(dir.resolve("20-b.lemmas") + ":1", l.rules().get(1).location());
  }

  @Test
  void foldersLoadInTheOrderGiven() throws IOException {
    Path first = Files.createDirectory(dir.resolve("z"));
    Path second = Files.createDirectory(dir.resolve("a"));
    Files.writeString(first.resolve("x.lemmas"), "(rule from-z (neg ?x) ?x)");
    Files.writeString(second.resolve("x.lemmas"), "(rule from-a (relu ?x) ?x)");
    assertEquals(List.of("from-z", "from-a"), LemmaLibrary.load(List.of(first, second)).names());
  }

  @Test
  void anOperatorFamilyDeclaredInOneFileServesTheNext() throws IOException {
    Files.writeString(dir.resolve("00-ops.lemmas"), "(ops un neg exp)\n");
    Files.writeString(
        dir.resolve("10-rules.lemmas"), "(rule un-neg-neg (?f:un (neg (neg ?x))) (?f ?x))\n");
    assertEquals(List.of("un-neg-neg"), LemmaLibrary.load(List.of(dir)).names());
  }

  @Test
  void aBiruleIsTheRuleAndItsReverse() {
    RuleFixture f =
        new RuleFixture("(birule swap (permute[1 0] (neg ?x)) (neg (permute[1 0] ?x)))");
    assertEquals(List.of("swap", "swap-rev"), f.lemmas.names());
    int there = f.add("(permute[1 0] (neg a:f32[2,3]))");
    int back = f.add("(neg (permute[1 0] b:f32[3,2]))");
    assertEquals(List.of("x=a"), f.matches("swap", there));
    assertEquals(List.of(), f.matches("swap-rev", there));
    assertEquals(List.of("x=b"), f.matches("swap-rev", back));
    assertEquals(List.of(), f.matches("swap", back));
  }

  @Test
  void aBiruleSharesItsOptionsAndDoc() {
    Lemmas l =
        LemmaLibrary.parse(
            Map.of(
                "t.lemmas",
                "; slices of a tensor and of its negation\n(birule b (neg (slice[0 0 1 1] ?x)) (slice[0 0 1 1] (neg ?x)) :if-exists)"));
    assertEquals(2, l.rules().size());
    for (Rule r : l.rules()) {
      assertTrue(r.ifExists(), r.name());
      assertEquals("slices of a tensor and of its negation", r.doc(), r.name());
      assertEquals("t.lemmas:2", r.location(), r.name());
    }
  }

  @Test
  void theCommentLineAboveARuleIsItsDoc() {
    Lemmas l =
        LemmaLibrary.parse(
            Map.of(
                "t.lemmas",
                String.join(
                    "\n",
                    ";; File header.",
                    "",
                    "; negation twice is nothing",
                    "(rule neg-neg (neg (neg ?x)) ?x)",
                    "",
                    "(rule undocumented (relu (relu ?x)) (relu ?x))",
                    "# hash comments document too",
                    "(rule hashed (abs (abs ?x)) (abs ?x))",
                    "; a comment that is not right above a rule",
                    "",
                    "(rule spaced (exp (neg ?x)) (reciprocal (exp ?x)))")));
    assertEquals("negation twice is nothing", l.rules().get(0).doc());
    assertEquals("", l.rules().get(1).doc());
    assertEquals("hash comments document too", l.rules().get(2).doc());
    assertEquals("", l.rules().get(3).doc());
  }

  @Test
  void rulesKnowWhereTheyAreWrittenAndWhetherTheyOnlyLookUp() {
    Lemmas l =
        LemmaLibrary.parse(
            Map.of(
                "t.lemmas", "(rule a (neg ?x) ?x)\n\n(rule b (relu ?x) (abs ?x)\n  :if-exists)"));
    assertEquals("t.lemmas:1", l.rules().get(0).location());
    assertFalse(l.rules().get(0).ifExists());
    assertEquals("t.lemmas:3", l.rules().get(1).location());
    assertTrue(l.rules().get(1).ifExists());
    assertEquals("b (t.lemmas:3)", l.rules().get(1).toString());
  }

  @Test
  void namesListRulesBeforeNativeLemmas() {
    Lemmas l =
        LemmaLibrary.parse(Map.of("t.lemmas", "(native slice-tiling)\n(rule r (neg ?x) ?x)"));
    assertEquals(List.of("r", "slice-tiling"), l.names());
    assertEquals(SliceTiling.NAME, l.natives().get(0).name());
    assertNotEquals("", l.natives().get(0).doc());
  }

  @Test
  void theShippedLibraryLoadsWithoutErrors() {
    Lemmas l = LemmaLibrary.load(List.of(Path.of("lemmas")));
    assertTrue(l.names().size() > 50, "only " + l.names().size() + " lemmas");
    assertEquals(l.names().size(), l.names().stream().distinct().count());
    for (Rule r : l.rules()) {
      assertFalse(r.doc().isBlank(), r + " has no one-line comment above it");
    }
  }

  @Test
  void aRuleIsDocumentedByTheCommentLineAboveIt() {
    Lemmas l =
        LemmaLibrary.parse(
            Map.of(
                "a.lemmas",
                ";;  \tnegation twice\n(rule a (neg (neg ?x)) ?x)\n\n# ;relu\n(rule b (relu ?x) ?x)\n"
                    + "(rule c (neg ?x) ?x)\n"));
    assertEquals("negation twice", l.rules().get(0).doc);
    assertEquals(";relu", l.rules().get(1).doc);
    assertEquals("", l.rules().get(2).doc);
  }

  @Test
  void integerAtomsAreNumbersAndOtherAtomsAreNot() {
    for (String[] c :
        new String[][] {
          {"12", "12"},
          {"-3", "-3"},
          {"+4", "4"},
          {"0", "0"},
          {"?x", null},
          {"-", null},
          {"+", null},
          {"1e3", null},
          {"12a", null},
          {"99999999999999999999", null},
          {"", null}
        }) {
      Long expected = c[1] == null ? null : Long.valueOf(c[1]);
      assertEquals(expected, new SExpr.Atom(c[0], 1, 1).asLong(), c[0]);
    }
  }

  @Test
  void lemmasTellWhetherTheyMentionAnOperator() {
    int tensor = dev.entangle.core.Op.TENSOR.id();
    int undef = dev.entangle.core.Op.UNDEF.id();
    Lemmas plain = LemmaLibrary.parse(Map.of("p.lemmas", "(rule p (neg (neg ?x)) ?x)"));
    assertFalse(plain.mention(tensor));
    Lemmas left =
        LemmaLibrary.parse(
            Map.of("l.lemmas", "(rule l (exp (tensor[?i])) (exp (neg (neg (tensor[?i])))))"));
    assertTrue(left.mention(tensor));
    assertFalse(left.mention(undef));
    Lemmas right =
        LemmaLibrary.parse(Map.of("r.lemmas", "(rule r (exp ?x) (exp (add ?x (undef[0 0]))))"));
    assertTrue(right.mention(undef));
    Lemmas family =
        LemmaLibrary.parse(
            Map.of(
                "f.lemmas", "(ops leafy tensor scalar)\n(rule f (add ?x (?g:leafy)) (add ?x ?x))"));
    assertTrue(family.mention(tensor));
  }
}
