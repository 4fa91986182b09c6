package dev.entangle.graph;

import static dev.entangle.graph.GraphFiles.OUT_X;
import static dev.entangle.graph.GraphFiles.X;
import static dev.entangle.graph.GraphFiles.assertContains;
import static dev.entangle.graph.GraphFiles.assertOneParagraph;
import static dev.entangle.graph.GraphFiles.graph;
import static dev.entangle.graph.GraphFiles.json;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.util.InputException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every way a graph file can be wrong, and what the reader says about it. */
class GraphJsonErrorTest {
  @TempDir Path dir;

  private String error(String text) {
    return GraphFiles.errorOf(dir, text, GraphJson::readGraph);
  }

  /** A graph of x, a call_function node {@code node} using it, and an output of x. */
  private String errorWithNode(String node) {
    return error(graph(X + "," + node + "," + OUT_X));
  }

  private static String fn(String name, String argsAndMore) {
    return "{'name': '"
        + name
        + "', 'op': 'call_function', 'target': 'aten.f.default', "
        + argsAndMore
        + "}";
  }

  private static final String META = "'meta': {'shape': [8, 16], 'dtype': 'float32'}";

  @Test
  void malformedJsonGivesLineAndColumn() {
    String m =
        error("{\n  \"format\": \"entangle-fx/1\",\n  \"nodes\": [\n    {\"name\" \"x\"}\n]}");
    assertContains(m, "line 4, column", "malformed JSON", "fix the JSON syntax");
  }

  @Test
  void truncatedJson() {
    assertContains(error("{\"format\": \"entangle-fx/1\", \"nodes\": ["), "malformed JSON");
  }

  @Test
  void trailingGarbage() {
    assertContains(error(graph(X + "," + OUT_X) + " {}"), "malformed JSON");
  }

  @Test
  void duplicateJsonKey() {
    assertContains(
        error(graph(X.replace("'target': 'x',", "'target': 'x', 'target': 'y',") + "," + OUT_X)),
        "malformed JSON",
        "target");
  }

  @Test
  void emptyFile() {
    assertContains(error(""), "the file is empty");
  }

  @Test
  void missingFile() {
    Path file = dir.resolve("nowhere.json");
    InputException e = assertThrows(InputException.class, () -> GraphJson.readGraph(file));
    assertContains(e.getMessage(), file.toString(), "no such file");
    assertOneParagraph(e.getMessage());
  }

  @Test
  void notAnObject() {
    assertContains(error("[1, 2]"), "a graph is a JSON object", "a list");
  }

  @Test
  void missingFormat() {
    assertContains(
        error(json("{'nodes': [" + X + "," + OUT_X + "]}")), "missing \"format\"", "entangle-fx/1");
  }

  @Test
  void unknownFormat() {
    assertContains(
        error(json("{'format': 'entangle-fx/2', 'nodes': [" + X + "," + OUT_X + "]}")),
        "unknown format \"entangle-fx/2\"",
        "\"entangle-fx/1\" only");
  }

  @Test
  void missingNodes() {
    assertContains(error(json("{'format': 'entangle-fx/1'}")), "missing \"nodes\"");
  }

  @Test
  void aDistributedFileWhereAGraphIsExpected() {
    assertContains(
        error(
            json(
                "{'format': 'entangle-fx/1', 'world_size': 1, 'ranks': [{'nodes': ["
                    + X
                    + ","
                    + OUT_X
                    + "]}]}")),
        "missing \"nodes\": this is a G_d file");
  }

  @Test
  void nodesNotAList() {
    assertContains(
        error(json("{'format': 'entangle-fx/1', 'nodes': {}}")), "\"nodes\" must be a list");
  }

  @Test
  void nodeNotAnObject() {
    assertContains(error(graph(X + ", 3")), "nodes[1]", "must be a JSON object");
  }

  @Test
  void nodeWithoutName() {
    assertContains(
        error(graph(X + ", {'op': 'output', 'target': 'output', 'args': [[]]}")),
        "nodes[1]",
        "has no name");
  }

  @Test
  void nodeWithEmptyName() {
    assertContains(
        error(graph("{'name': '', 'op': 'placeholder', 'target': 'x'}")),
        "nodes[0]",
        "has no name");
  }

  @Test
  void nodeWithoutOp() {
    assertContains(
        errorWithNode("{'name': 'y', 'target': 'aten.f.default', " + META + "}"),
        "node \"y\" (nodes[1])",
        "has no \"op\"");
  }

  @Test
  void unknownOp() {
    assertContains(
        errorWithNode("{'name': 'y', 'op': 'call_kernel', 'target': 'f', " + META + "}"),
        "node \"y\"",
        "unknown op \"call_kernel\"",
        "call_function");
  }

  @Test
  void nodeWithoutTarget() {
    assertContains(
        errorWithNode("{'name': 'y', 'op': 'call_function', " + META + "}"),
        "node \"y\"",
        "has no \"target\"");
  }

  @Test
  void duplicateName() {
    assertContains(
        error(graph(X + "," + X + "," + OUT_X)),
        "node \"x\" (nodes[1])",
        "duplicate name",
        "nodes[0]");
  }

  @Test
  void referenceToAMissingNode() {
    assertContains(
        errorWithNode(fn("y", "'args': [{'node': 'x'}, [1, {'node': 'ghost'}]], " + META)),
        "node \"y\"",
        "argument args[1][1]",
        "\"ghost\"",
        "does not exist");
  }

  @Test
  void referenceInKwargsToAMissingNode() {
    assertContains(
        errorWithNode(fn("y", "'kwargs': {'other': {'node': 'ghost'}}, " + META)),
        "node \"y\"",
        "argument kwargs.other",
        "\"ghost\"",
        "does not exist");
  }

  @Test
  void referenceToALaterNode() {
    String m =
        error(
            graph(
                X
                    + ","
                    + fn("a", "'args': [{'node': 'b'}], " + META)
                    + ","
                    + fn("b", "'args': [{'node': 'x'}], " + META)
                    + ","
                    + OUT_X));
    assertContains(
        m,
        "node \"a\" (nodes[1])",
        "nodes must be in topological order; node \"a\" uses \"b\"",
        "which is defined later or forms a cycle");
  }

  @Test
  void referenceToItself() {
    assertContains(
        errorWithNode(fn("y", "'args': [{'node': 'y'}], " + META)),
        "topological order",
        "node \"y\" uses \"y\"");
  }

  @Test
  void missingShape() {
    assertContains(
        errorWithNode(fn("y", "'args': [{'node': 'x'}]")),
        "node \"y\"",
        "missing shape",
        "meta.shape");
  }

  @Test
  void missingShapeOnAPlaceholder() {
    assertContains(
        error(graph("{'name': 'x', 'op': 'placeholder', 'target': 'x', 'meta': {}}," + OUT_X)),
        "node \"x\"",
        "missing shape");
  }

  @Test
  void shapeWithoutDtype() {
    assertContains(
        errorWithNode(fn("y", "'meta': {'shape': [2]}")), "node \"y\"", "has a shape but no dtype");
  }

  @Test
  void dtypeWithoutShape() {
    assertContains(
        errorWithNode(fn("y", "'meta': {'dtype': 'float32'}")),
        "node \"y\"",
        "has a dtype but no shape");
  }

  @Test
  void badSize() {
    assertContains(
        errorWithNode(fn("y", "'meta': {'shape': [2, -1], 'dtype': 'float32'}")),
        "node \"y\"",
        "meta.shape[1] is -1",
        "non-negative integer or {\"sym\"");
    assertContains(
        errorWithNode(fn("y", "'meta': {'shape': [2, 'n'], 'dtype': 'float32'}")),
        "meta.shape[1] is \"n\"");
  }

  @Test
  void tupleAndShapeTogether() {
    assertContains(
        errorWithNode(fn("y", "'meta': {'shape': [2], 'dtype': 'float32'," + " 'tuple': [null]}")),
        "node \"y\"",
        "both tuple and shape");
  }

  @Test
  void badTupleItem() {
    assertContains(errorWithNode(fn("y", "'meta': {'tuple': [3]}")), "node \"y\"", "meta.tuple[0]");
    assertContains(
        errorWithNode(fn("y", "'meta': {'tuple': [{'shape': [1]}]}")),
        "meta.tuple[0] has a shape but no dtype");
  }

  @Test
  void badMetaFields() {
    assertContains(errorWithNode(fn("y", "'meta': 5")), "node \"y\"", "meta must be a JSON object");
    assertContains(
        errorWithNode(fn("y", "'meta': {'shape': [], 'dtype': 'int64', 'tag': 3}")),
        "meta.tag must be a string");
    assertContains(
        errorWithNode(fn("y", "'meta': {'shape': [], 'dtype': 'int64', 'value': 'x'}")),
        "meta.value must be a number");
    assertContains(
        errorWithNode(fn("y", "'meta': {'shape': [], 'dtype': 'int64'," + " 'stack_trace': []}")),
        "meta.stack_trace must be a string");
  }

  @Test
  void getitemOnANonTuple() {
    assertContains(
        errorWithNode(
            "{'name': 'g', 'op': 'call_function', 'target': 'getitem',"
                + " 'args': [{'node': 'x'}, 0], "
                + META
                + "}"),
        "node \"g\"",
        "getitem on node \"x\", which does not return a tuple");
  }

  @Test
  void getitemIndexOutOfRange() {
    String split = fn("s", "'args': [{'node': 'x'}], 'meta': {'tuple': [null, null]}");
    String m =
        error(
            graph(
                X
                    + ","
                    + split
                    + ",{'name': 'g', 'op': 'call_function',"
                    + " 'target': 'getitem', 'args': [{'node': 's'}, 2], "
                    + META
                    + "},"
                    + OUT_X));
    assertContains(
        m, "node \"g\"", "getitem index 2 is out of range for node \"s\"", "tuple of 2 items");
    String negative =
        error(
            graph(
                X
                    + ","
                    + split
                    + ",{'name': 'g', 'op': 'call_function',"
                    + " 'target': 'getitem', 'args': [{'node': 's'}, -3], "
                    + META
                    + "},"
                    + OUT_X));
    assertContains(negative, "getitem index -3 is out of range");
  }

  @Test
  void getitemWithBadArguments() {
    assertContains(
        errorWithNode(
            "{'name': 'g', 'op': 'call_function', 'target': 'getitem',"
                + " 'args': [{'node': 'x'}], "
                + META
                + "}"),
        "node \"g\"",
        "getitem takes two arguments");
    assertContains(
        errorWithNode(
            "{'name': 'g', 'op': 'call_function', 'target': 'getitem',"
                + " 'args': [{'node': 'x'}, 'a'], "
                + META
                + "}"),
        "getitem takes two arguments");
  }

  @Test
  void outputMissing() {
    assertContains(error(graph(X)), "the graph has no output node");
  }

  @Test
  void outputWithoutArgs() {
    assertContains(
        error(graph(X + ", {'name': 'output', 'op': 'output', 'target': 'output'}")),
        "node \"output\"",
        "has no \"args\"");
  }

  @Test
  void outputArgsNotAList() {
    assertContains(
        error(
            graph(
                X
                    + ", {'name': 'output', 'op': 'output', 'target': 'output',"
                    + " 'args': {'node': 'x'}}")),
        "node \"output\"",
        "\"args\" must be a list");
    assertContains(
        error(
            graph(
                X
                    + ", {'name': 'output', 'op': 'output', 'target': 'output',"
                    + " 'args': [{'node': 'x'}]}")),
        "the output node's args must be a list holding one list");
    assertContains(
        error(
            graph(
                X
                    + ", {'name': 'output', 'op': 'output', 'target': 'output',"
                    + " 'args': [[], []]}")),
        "the output node's args must be a list holding one list");
  }

  @Test
  void twoOutputs() {
    assertContains(
        error(
            graph(
                X
                    + ","
                    + OUT_X
                    + ","
                    + OUT_X
                        .replace("'output'", "'output2'")
                        .replace("'op': 'output2'", "'op': 'output'"))),
        "second output node");
  }

  @Test
  void outputNotLast() {
    assertContains(
        error(graph(X + "," + OUT_X + "," + fn("y", META))),
        "node \"output\"",
        "must be the last node");
  }

  @Test
  void unknownArgumentObject() {
    assertContains(
        errorWithNode(fn("y", "'args': [{'node': 'x'}, {'tensor': 'x'}], " + META)),
        "node \"y\"",
        "argument args[1]",
        "unknown kind \"tensor\"");
    assertContains(
        errorWithNode(fn("y", "'kwargs': {'dtype': {'dtype': 'f', 'x': 1}}, " + META)),
        "node \"y\"",
        "argument kwargs.dtype",
        "exactly one key");
    assertContains(
        errorWithNode(fn("y", "'args': [{'node': 3}], " + META)),
        "argument args[0]",
        "must be a string");
  }

  @Test
  void badSpecialFloat() {
    assertContains(
        errorWithNode(fn("y", "'args': [{'float': '1.5'}], " + META)),
        "argument args[0]",
        "only \"inf\", \"-inf\" and \"nan\"");
  }

  @Test
  void integerBeyondSixtyFourBits() {
    assertContains(
        errorWithNode(fn("y", "'args': [9223372036854775808], " + META)),
        "argument args[0]",
        "does not fit in 64 bits");
  }

  @Test
  void kwargsNotAnObject() {
    assertContains(
        errorWithNode(fn("y", "'kwargs': [], " + META)),
        "node \"y\"",
        "\"kwargs\" must be an object");
  }

  @Test
  void everyMessageNamesTheFileFirst() {
    String m = errorWithNode(fn("y", "'args': [{'node': 'nope'}], " + META));
    assertTrue(m.startsWith(dir.resolve("bad.json") + ": node \"y\" (nodes[1]): "), m);
  }
}
