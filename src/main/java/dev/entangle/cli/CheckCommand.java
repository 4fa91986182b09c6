package dev.entangle.cli;

import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.graph.GraphJson;
import dev.entangle.refine.CheckOptions;
import dev.entangle.refine.CheckResult;
import dev.entangle.refine.ProgressListener;
import dev.entangle.refine.RefinementChecker;
import dev.entangle.relation.RelationFile;
import dev.entangle.relation.RelationReader;
import dev.entangle.rules.LemmaLibrary;
import dev.entangle.rules.Lemmas;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code entangle check GS GD --rel RI}: the refinement check. */
@Command(
    name = "check",
    mixinStandardHelpOptions = true,
    description = "Checks that G_d refines G_s under the input relation. Prints the verdict, then the output "
        + "relation (one line per G_s output) or where the check failed.")
final class CheckCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "GS", description = "the sequential model's graph file")
  Path gs;

  @Parameters(index = "1", paramLabel = "GD", description = "the distributed implementation's file (one graph per rank)")
  Path gd;

  @Option(names = "--rel", required = true, paramLabel = "RI", description = "the input relation file")
  Path rel;

  @Option(names = "--json", paramLabel = "FILE", description = "also write the report as JSON to FILE")
  Path json;

  @Option(names = "--write-relation", paramLabel = "FILE",
      description = "on refines, write the output relation as a relation file (to feed the next layer)")
  Path writeRelation;

  @Option(names = "--lemmas", paramLabel = "DIR", description = "an extra folder of *.lemmas files (repeatable)")
  List<Path> lemmas = new ArrayList<>();

  @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "600",
      description = "give up with 'inconclusive' after this long (default: ${DEFAULT-VALUE})")
  double timeout;

  @Option(names = "--node-limit", paramLabel = "N", defaultValue = "200000",
      description = "most e-nodes per operator's e-graph before 'inconclusive' (default: ${DEFAULT-VALUE})")
  int nodeLimit;

  @Option(names = {"-v", "--verbose"}, description = "print each operator as it is checked")
  boolean verbose;

  @Option(names = "--debug", description = "print stack traces of internal errors")
  boolean debug;

  @Override
  public Integer call() {
    if (timeout <= 0 || nodeLimit <= 0) {
      throw new picocli.CommandLine.ParameterException(spec.commandLine(),
          "--timeout and --node-limit must be positive (got " + timeout + " and " + nodeLimit + ")");
    }
    for (Path p : new Path[] {json, writeRelation}) {
      Path parent = p == null ? null : p.toAbsolutePath().getParent();
      if (parent != null && !java.nio.file.Files.isDirectory(parent)) {
        throw new dev.entangle.util.InputException("cannot write " + p + ": the folder " + parent
            + " does not exist; create it or choose another path.");
      }
    }
    Graph g = GraphJson.readGraph(gs);
    DistributedGraph d = GraphJson.readDistributed(gd);
    RelationFile r = RelationReader.read(rel, d.worldSize());
    List<Path> dirs = new ArrayList<>();
    dirs.add(LemmaPaths.defaultDir());
    dirs.addAll(lemmas);
    Lemmas rules = LemmaLibrary.load(dirs);
    CheckOptions options = CheckOptions.defaults()
        .withTimeout(Duration.ofMillis((long) (timeout * 1000)))
        .withNodeLimit(nodeLimit);
    var err = spec.commandLine().getErr();
    ProgressListener progress = verbose ? new VerboseProgress(err) : ProgressBar.forTerminal(err);
    CheckResult result = RefinementChecker.check(g, d, r, rules, options, progress);
    progress.operatorDone(-1, 0, null, null);
    var out = spec.commandLine().getOut();
    TextReport.print(result, out);
    if (json != null) {
      JsonReport.write(result, json);
    }
    if (writeRelation != null && result.verdict() == dev.entangle.refine.Verdict.REFINES) {
      JsonReport.writeRelation(result, writeRelation);
    }
    return result.verdict().exitCode();
  }
}
