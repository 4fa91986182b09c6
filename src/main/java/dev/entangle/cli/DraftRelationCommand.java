package dev.entangle.cli;

import dev.entangle.draft.Draft;
import dev.entangle.draft.DraftWriter;
import dev.entangle.draft.Drafter;
import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.graph.GraphJson;
import dev.entangle.util.OutputGuard;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code entangle draft-relation GS GD -o RI}: an input relation drafted from the graphs. */
@Command(
    name = "draft-relation",
    mixinStandardHelpOptions = true,
    description =
        "Drafts an input relation from the graphs: G_s and G_d inputs matched by name or tag,"
            + " replicated or sharded as their shapes say, fused blocks as their uses slice them."
            + " Each entry says how sure it is; what cannot be decided is listed. Read the draft"
            + " before checking with it.")
final class DraftRelationCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "GS", description = "the sequential model's graph file")
  Path gs;

  @Parameters(index = "1", paramLabel = "GD", description = "the distributed implementation's file")
  Path gd;

  @Option(
      names = {"-o", "--output"},
      required = true,
      paramLabel = "RI",
      description = "the relation file to write")
  Path out;

  @Option(names = "--debug", description = "print stack traces of internal errors")
  boolean debug;

  @Override
  public Integer call() {
    OutputFiles.requireFolder(out);
    OutputGuard.check(List.of(gs, gd), List.of(new OutputGuard.Named("-o", out)));
    Graph g = GraphJson.readGraph(gs);
    DistributedGraph d = GraphJson.readDistributed(gd);
    Draft draft = Drafter.draft(g, d);
    OutputFiles.writeJson(DraftWriter.toJson(draft, gs.toString(), gd.toString()), out);
    DraftWriter.print(draft, spec.commandLine().getOut());
    spec.commandLine()
        .getOut()
        .println("wrote " + out + " (a draft: read it before checking with it)");
    return 0;
  }
}
