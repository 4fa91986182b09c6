package dev.entangle.importer;

import dev.entangle.graph.Arg;
import dev.entangle.graph.Meta;
import dev.entangle.graph.NodeOp;
import java.util.List;
import java.util.Map;

/** A node still without its name and position: what one statement defines. */
record NodeSpec(NodeOp op, String target, List<Arg> args, Map<String, Arg> kwargs, Meta meta) {}
