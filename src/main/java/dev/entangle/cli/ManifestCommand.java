package dev.entangle.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.entangle.batch.CaseFolders;
import dev.entangle.util.OutputGuard;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code entangle manifest DIR... -o OUT}: a batch manifest for folders of cases. */
@Command(
    name = "manifest",
    mixinStandardHelpOptions = true,
    description =
        "Writes a batch manifest for folders of cases: every subfolder with an expected.json (verdict,"
            + " optional operator, and import_gs/import_gd for code to import) becomes a case with its"
            + " gs.json/gd.json or the import, and ri.json.")
final class ManifestCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(arity = "1..*", paramLabel = "DIR", description = "folders of case folders")
  List<Path> roots;

  @Option(
      names = {"-o", "--output"},
      required = true,
      paramLabel = "OUT",
      description = "the manifest to write")
  Path out;

  @Option(
      names = "--name",
      paramLabel = "NAME",
      description = "the manifest's name (default: the first folder's name)")
  String name;

  @Option(names = "--debug", description = "print stack traces of internal errors")
  boolean debug;

  @Override
  public Integer call() {
    OutputFiles.requireFolder(out);
    List<Path> read = new ArrayList<>();
    for (Path root : roots) {
      for (Path caseDir : OutputGuard.filesIn(root, "")) {
        read.add(caseDir);
        read.addAll(OutputGuard.filesIn(caseDir, ""));
      }
    }
    OutputGuard.check(read, List.of(new OutputGuard.Named("-o", out)));
    Path folder = out.toAbsolutePath().getParent();
    String n =
        name != null ? name : roots.get(0).toAbsolutePath().normalize().getFileName().toString();
    ObjectNode manifest = CaseFolders.manifest(n, roots, folder);
    OutputFiles.writeJson(manifest, out);
    spec.commandLine()
        .getOut()
        .println("wrote " + out + " (" + manifest.get("cases").size() + " cases)");
    return 0;
  }
}
