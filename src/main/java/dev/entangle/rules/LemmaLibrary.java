package dev.entangle.rules;

import dev.entangle.core.Op;
import dev.entangle.util.InputException;
import dev.entangle.util.InputFiles;
import dev.entangle.util.IoReasons;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Loads lemma files ({@code *.lemmas}) from directories, in name order within each directory and
 * directories in the order given. Every problem in every file is collected and reported together,
 * each as {@code file:line:col: error: message} with the source line and a caret.
 */
public final class LemmaLibrary {
  /** File name ending of lemma files. */
  public static final String EXTENSION = ".lemmas";

  /** The most errors a failed load shows (all are counted). */
  static final int MAX_SHOWN = 20;

  private LemmaLibrary() {}

  /** All rules of all lemma files under the directories. */
  public static Lemmas load(List<Path> dirs) {
    Map<String, String> sources = new LinkedHashMap<>();
    for (Path dir : dirs) {
      if (!Files.isDirectory(dir)) {
        throw new InputException(
            "lemma directory "
                + dir
                + " does not exist or is not a directory; pass an existing folder of "
                + EXTENSION
                + " files");
      }
      List<Path> files;
      try (Stream<Path> listed = Files.list(dir)) {
        files =
            listed.filter(p -> p.getFileName().toString().endsWith(EXTENSION)).sorted().toList();
      } catch (IOException e) {
        throw new InputException(
            "cannot read lemma directory "
                + dir
                + ": "
                + IoReasons.of(e)
                + "; check that the folder is readable.");
      }
      for (Path f : files) {
        sources.put(f.toString(), InputFiles.readText(f, "lemma file"));
      }
    }
    return parse(sources);
  }

  /** Rules from in-memory sources (file name to text), in order. */
  public static Lemmas parse(Map<String, String> sources) {
    List<RuleError> errors = new ArrayList<>();
    List<Rule> rules = new ArrayList<>();
    List<NativeRule<?>> natives = new ArrayList<>();
    Map<String, int[]> opSets = new HashMap<>();
    for (Op.Family f : Op.Family.values()) {
      opSets.put(f.lemmaName(), f.ids());
    }
    Map<String, String> names = new HashMap<>();
    for (var e : sources.entrySet()) {
      SExprReader reader = new SExprReader(e.getKey(), e.getValue(), errors);
      List<SExpr> forms = reader.readAll();
      RuleCompiler compiler = new RuleCompiler(reader, e.getKey(), opSets, names);
      rules.addAll(compiler.compile(forms, comments(e.getValue())));
      natives.addAll(compiler.natives);
    }
    if (!errors.isEmpty()) {
      StringBuilder sb = new StringBuilder();
      for (RuleError err : errors.subList(0, Math.min(errors.size(), MAX_SHOWN))) {
        sb.append(err.render()).append('\n');
      }
      if (errors.size() > MAX_SHOWN) {
        sb.append("(the other ").append(errors.size() - MAX_SHOWN).append(" are not shown)\n");
      }
      sb.append(errors.size())
          .append(errors.size() == 1 ? " error" : " errors")
          .append(
              " in lemma files; fix them (or remove the file from the --lemmas folder) and run again.");
      throw new InputException(sb.toString());
    }
    return new Lemmas(rules, natives);
  }

  /** The comment line right above each line that starts a form, by that line's number. */
  private static Map<Integer, String> comments(String text) {
    Map<Integer, String> out = new HashMap<>();
    String[] lines = text.split("\n", -1);
    for (int i = 1; i < lines.length; i++) {
      String prev = lines[i - 1].strip();
      if (lines[i].strip().startsWith("(") && (prev.startsWith(";") || prev.startsWith("#"))) {
        out.put(i + 1, commentText(prev));
      }
    }
    return out;
  }

  /** A comment line without its leading {@code ;} or {@code #} marks and the blanks after them. */
  private static String commentText(String line) {
    int k = 0;
    while (k < line.length() && (line.charAt(k) == ';' || line.charAt(k) == '#')) {
      k++;
    }
    while (k < line.length() && " \t\n\u000B\f\r".indexOf(line.charAt(k)) >= 0) {
      k++;
    }
    return line.substring(k);
  }
}
