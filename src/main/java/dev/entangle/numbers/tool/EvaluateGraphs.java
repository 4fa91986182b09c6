package dev.entangle.numbers.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.entangle.core.OpTable;
import dev.entangle.core.numeric.EvalException;
import dev.entangle.core.numeric.Tensor;
import dev.entangle.eval.Evaluation;
import dev.entangle.eval.GraphEvaluator;
import dev.entangle.eval.WorkBudget;
import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.graph.GraphJson;
import dev.entangle.graph.JsonFiles;
import dev.entangle.lower.Lowering;
import dev.entangle.numbers.sampling.InputSampler;
import dev.entangle.numbers.sampling.SampledInputs;
import dev.entangle.numbers.sampling.SamplingException;
import dev.entangle.relation.RelationReader;
import dev.entangle.util.InputException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A developer's entry point, not a command of the CLI: evaluates G_s and G_d on inputs drawn from a
 * relation ({@code --rel RI --seed N}) or read from a file ({@code --inputs FILE}, {@code {"gs":
 * {NAME: TENSOR}, "gd": [{NAME: TENSOR}, ...]}}) and writes the inputs and every node's value as
 * JSON ({@link TensorJson}). The Python tests compare these values with PyTorch's.
 *
 * <pre>
 * java -cp target/entangle.jar dev.entangle.numbers.tool.EvaluateGraphs GS GD (--rel RI [--seed N] | --inputs FILE) -o OUT
 * java -cp target/entangle.jar dev.entangle.numbers.tool.EvaluateGraphs --many RUNS.json
 * </pre>
 *
 * <p>With {@code --many}, RUNS.json is a JSON array of such argument lists, all run in this one
 * process (the Python tests evaluate every example so, without a JVM start for each).
 */
public final class EvaluateGraphs {
  private EvaluateGraphs() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** Runs with these arguments; returns the exit code (0, or 2 for bad input). */
  static int run(String[] args, PrintStream out, PrintStream err) {
    if (args.length == 2 && args[0].equals("--many")) {
      return runMany(Path.of(args[1]), out, err);
    }
    try {
      Options o = Options.parse(args);
      Graph gs = GraphJson.readGraph(o.gs());
      DistributedGraph gd = GraphJson.readDistributed(o.gd());
      OpTable table = new OpTable();
      SampledInputs inputs;
      if (o.inputs() != null) {
        JsonNode root = JsonFiles.read(o.inputs(), "inputs file");
        List<Map<String, Tensor>> ranks = new ArrayList<>();
        JsonNode gdNode = root.get("gd");
        for (int r = 0; gdNode != null && r < gdNode.size(); r++) {
          ranks.add(TensorJson.readMap(gdNode.get(r), o.inputs() + ": gd[" + r + "]"));
        }
        inputs =
            new SampledInputs(0, TensorJson.readMap(root.get("gs"), o.inputs() + ": gs"), ranks);
      } else {
        var relation = RelationReader.read(o.rel(), gd.worldSize());
        inputs = new InputSampler(gs, gd, relation, table).sample(o.seed(), WorkBudget.defaults());
      }
      GraphEvaluator evaluator = new GraphEvaluator(table, WorkBudget.defaults());
      SampledInputs given = inputs;
      Evaluation s = evaluator.evaluate(Lowering.sequential(gs, table), k -> given.gs());
      Evaluation d = evaluator.evaluate(Lowering.distributed(gd, table), given.gd()::get);
      ObjectNode root = JsonNodeFactory.instance.objectNode();
      root.put("seed", inputs.seed());
      ObjectNode in = root.putObject("inputs");
      in.set("gs", TensorJson.write(inputs.gs()));
      ArrayNode inGd = in.putArray("gd");
      inputs.gd().forEach(m -> inGd.add(TensorJson.write(m)));
      ObjectNode values = root.putObject("values");
      values.set("gs", byRank(s, 1).get(0));
      values.set("gd", JsonNodeFactory.instance.arrayNode().addAll(byRank(d, gd.worldSize())));
      ObjectNode stops = root.putObject("stopped");
      s.stopped().ifPresent(st -> stops.put("gs", st.at() + ": " + st.reason()));
      d.stopped().ifPresent(st -> stops.put("gd", st.at() + ": " + st.reason()));
      JsonFiles.mapper().writerWithDefaultPrettyPrinter().writeValue(o.out().toFile(), root);
      out.println("wrote " + o.out());
      return 0;
    } catch (InputException | SamplingException | EvalException | IllegalArgumentException e) {
      err.println(e.getMessage());
      return 2;
    } catch (IOException e) {
      err.println("cannot write the output: " + e.getMessage());
      return 2;
    }
  }

  /** Runs every argument list of a JSON array of them; returns the highest exit code. */
  private static int runMany(Path runs, PrintStream out, PrintStream err) {
    JsonNode all;
    try {
      all = JsonFiles.read(runs, "runs file");
    } catch (InputException e) {
      err.println(e.getMessage());
      return 2;
    }
    if (!all.isArray()) {
      err.println(runs + ": expected a JSON array of argument lists");
      return 2;
    }
    int worst = 0;
    for (JsonNode list : all) {
      List<String> args = new ArrayList<>();
      list.forEach(a -> args.add(a.asText()));
      int code = run(args.toArray(String[]::new), out, err);
      if (code != 0) {
        err.println("failed: " + String.join(" ", args));
      }
      worst = Math.max(worst, code);
    }
    return worst;
  }

  /** Each rank's values by node name (G_s's as rank 0). */
  private static List<ObjectNode> byRank(Evaluation e, int ranks) {
    List<ObjectNode> out = new ArrayList<>();
    for (int r = 0; r < ranks; r++) {
      out.add(JsonNodeFactory.instance.objectNode());
    }
    for (Evaluation.Entry entry : e.entries()) {
      out.get(Math.max(entry.rank(), 0)).set(entry.node(), TensorJson.write(entry.value()));
    }
    return out;
  }

  /** The parsed command line. */
  private record Options(Path gs, Path gd, Path rel, long seed, Path inputs, Path out) {
    static Options parse(String[] args) {
      List<String> positional = new ArrayList<>();
      Map<String, String> flags = new LinkedHashMap<>();
      for (int i = 0; i < args.length; i++) {
        if (args[i].startsWith("-")) {
          if (i + 1 >= args.length) {
            throw new IllegalArgumentException("option " + args[i] + " needs a value");
          }
          flags.put(args[i], args[++i]);
        } else {
          positional.add(args[i]);
        }
      }
      String usage = "usage: EvaluateGraphs GS GD (--rel RI [--seed N] | --inputs FILE) -o OUT";
      if (positional.size() != 2
          || !flags.containsKey("-o")
          || flags.containsKey("--rel") == flags.containsKey("--inputs")) {
        throw new IllegalArgumentException(usage);
      }
      for (String f : flags.keySet()) {
        if (!List.of("-o", "--rel", "--seed", "--inputs").contains(f)) {
          throw new IllegalArgumentException("unknown option " + f + "; " + usage);
        }
      }
      long seed;
      try {
        seed = Long.parseLong(flags.getOrDefault("--seed", "0"));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("--seed must be an integer; " + usage);
      }
      return new Options(
          Path.of(positional.get(0)),
          Path.of(positional.get(1)),
          flags.containsKey("--rel") ? Path.of(flags.get("--rel")) : null,
          seed,
          flags.containsKey("--inputs") ? Path.of(flags.get("--inputs")) : null,
          Path.of(flags.get("-o")));
    }
  }
}
