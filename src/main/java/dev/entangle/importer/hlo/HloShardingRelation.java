package dev.entangle.importer.hlo;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.entangle.importer.SourceFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The input relation that the {@code sharding={...}} annotations on an HLO module's ENTRY
 * parameters declare, for the module before SPMD partitioning (G_s) against the partitioned program
 * run on {@code num_partitions} ranks (G_d, imported with {@code --ranks N}). Parameters are named
 * by their metadata's {@code op_name} (JAX's argument names), which both programs carry as the
 * parameters' tags.
 *
 * <ul>
 *   <li>{@code {replicated}}: every rank holds the whole parameter ({@code "replicate": true});
 *   <li>{@code {devices=[..]...}}: the concatenation of the ranks' parameters along the tiled dims,
 *       tiles in row-major order and each tile from the device the list names for it (iota lists
 *       {@code <=[..]T(..)} included); written {@code "shard": D} when one dim is tiled over all
 *       ranks in rank order;
 *   <li>with {@code last_tile_dim_replicate}, every replica of the tiles gives one entry (as a
 *       replicated parameter gives one per rank).
 * </ul>
 *
 * Refused, naming the line: a parameter without a sharding or {@code op_name}, {@code maximal},
 * {@code manual} and {@code unknown} shardings, tuple parameters, {@code last_tile_dims} subgroups,
 * meshes whose devices are not the module's partitions, and dims that do not divide evenly into
 * their tiles (XLA pads those shards).
 */
public final class HloShardingRelation {
  private static final String HLO = "an HLO text module (.hlo) as XLA prints it";
  private static final String ADVICE =
      "Give the parameter a tiled or replicated sharding (jax.jit's in_shardings), or write the"
          + " relation by hand (README, Relation files).";

  private final SourceFile src;

  private HloShardingRelation(SourceFile src) {
    this.src = src;
  }

  /** The relation file's object for the module in {@code file}. */
  public static ObjectNode of(Path file) {
    SourceFile src = SourceFile.read(file, HLO);
    HloModule module = HloParser.parse(src);
    return new HloShardingRelation(src).relation(module);
  }

  private ObjectNode relation(HloModule module) {
    int ranks = partitions(module);
    ObjectNode root = JsonNodeFactory.instance.objectNode();
    root.put("format", "entangle-relation/1");
    ArrayNode entries = root.putArray("relations");
    Set<String> names = new HashSet<>();
    for (HloInstruction p : module.entry().parameters()) {
      HloAttributes attrs = new HloAttributes(src, p);
      String name = attrs.metadata().get("op_name");
      if (name == null || name.isBlank()) {
        throw src.error(
            p.line(),
            "the parameter `" + p.name() + "` has no metadata op_name",
            "The relation names parameters by their op_name (JAX's argument names), as both"
                + " programs carry it; dump the module with its metadata.");
      }
      if (!names.add(name)) {
        throw src.error(
            p.line(),
            "two parameters have the op_name `" + name + "`",
            "The relation names parameters by their op_name; give the arguments distinct names.");
      }
      if (!(p.type() instanceof HloType.Array array)) {
        throw src.error(
            p.line(),
            "the parameter `" + p.name() + "` is a tuple, which is not supported",
            "Dump the program with its parameters flattened into arrays.");
      }
      HloSharding sharding = attrs.sharding();
      entries.addAll(entries(p, name, array.dims(), sharding, ranks));
    }
    return root;
  }

  private List<ObjectNode> entries(
      HloInstruction p, String name, long[] shape, HloSharding sharding, int ranks) {
    String what = "the parameter `" + p.name() + "` (" + name + ")";
    if (sharding == null) {
      throw src.error(p.line(), what + " has no sharding, so its placement is unknown", ADVICE);
    }
    if (sharding instanceof HloSharding.Replicated) {
      return List.of(entry(name).put("replicate", true));
    }
    if (sharding instanceof HloSharding.Tiled t) {
      return tiled(p, what, name, shape, t, ranks);
    }
    String why;
    if (sharding instanceof HloSharding.Maximal m) {
      why =
          " lives whole on device "
              + m.device()
              + " ({maximal}), which the relation of a partitioned program does not express";
    } else if (sharding instanceof HloSharding.Manual) {
      why = " is partitioned by hand ({manual})";
    } else if (sharding instanceof HloSharding.Unknown) {
      why = " has an undecided sharding ({unknown})";
    } else {
      why = " has a tuple sharding";
    }
    throw src.error(p.line(), what + why, ADVICE);
  }

  private List<ObjectNode> tiled(
      HloInstruction p, String what, String name, long[] shape, HloSharding.Tiled t, int ranks) {
    if (p.attribute("sharding").contains("last_tile_dims")) {
      throw src.error(
          p.line(), what + " has last_tile_dims subgroups, which are not supported", ADVICE);
    }
    int dims = shape.length;
    long[] tiles = t.tiles();
    if (tiles.length != dims + (t.replicatedLastDim() ? 1 : 0)) {
      throw src.error(
          p.line(),
          what + " has " + dims + " dims but its device mesh " + tiles.length,
          "The mesh of a tiled sharding has one dim per array dim (and one more with"
              + " last_tile_dim_replicate).");
    }
    checkDevices(p, what, t.devices(), ranks);
    for (int d = 0; d < dims; d++) {
      if (shape[d] % tiles[d] != 0) {
        throw src.error(
            p.line(),
            what
                + ": dim "
                + d
                + " of size "
                + shape[d]
                + " does not divide into "
                + tiles[d]
                + " tiles, so XLA pads its shards",
            "Choose sizes the mesh divides, or write the relation by hand with the slices.");
      }
    }
    int replicas = t.replicatedLastDim() ? (int) tiles[dims] : 1;
    List<Integer> tiledDims = new ArrayList<>();
    for (int d = 0; d < dims; d++) {
      if (tiles[d] > 1) {
        tiledDims.add(d);
      }
    }
    if (tiledDims.isEmpty()) {
      return List.of(entry(name).put("replicate", true));
    }
    if (replicas == 1 && tiledDims.size() == 1 && inOrder(t.devices())) {
      return List.of(entry(name).put("shard", tiledDims.get(0)));
    }
    List<ObjectNode> out = new ArrayList<>();
    for (int j = 0; j < replicas; j++) {
      out.add(entry(name).put("gd", concat(t, tiledDims, 0, new long[dims], j, name)));
    }
    return out;
  }

  /** The nested concatenation over {@code tiledDims[k..]}, the tile's other indices fixed. */
  private static String concat(
      HloSharding.Tiled t, List<Integer> tiledDims, int k, long[] index, int replica, String name) {
    if (k == tiledDims.size()) {
      long flat = 0;
      long[] tiles = t.tiles();
      for (int d = 0; d < tiles.length; d++) {
        flat = flat * tiles[d] + (d < index.length ? index[d] : replica);
      }
      return "r" + t.devices()[(int) flat] + "." + reference(name);
    }
    int dim = tiledDims.get(k);
    List<String> parts = new ArrayList<>();
    for (long i = 0; i < t.tiles()[dim]; i++) {
      index[dim] = i;
      parts.add(concat(t, tiledDims, k + 1, index, replica, name));
    }
    index[dim] = 0;
    return "concat(" + String.join(", ", parts) + ", dim=" + dim + ")";
  }

  private void checkDevices(HloInstruction p, String what, long[] devices, int ranks) {
    boolean[] seen = new boolean[ranks];
    for (long d : devices) {
      if (d >= ranks || seen[(int) d]) {
        throw src.error(
            p.line(),
            what
                + ": its device mesh does not list each of the module's "
                + ranks
                + " partitions once",
            "A sharding's mesh covers every partition (num_partitions) once.");
      }
      seen[(int) d] = true;
    }
    if (devices.length != ranks) {
      throw src.error(
          p.line(),
          what
              + ": its device mesh has "
              + devices.length
              + " devices, the module "
              + ranks
              + " partitions",
          "A sharding's mesh covers every partition (num_partitions) once.");
    }
  }

  private static boolean inOrder(long[] devices) {
    for (int i = 0; i < devices.length; i++) {
      if (devices[i] != i) {
        return false;
      }
    }
    return true;
  }

  private int partitions(HloModule module) {
    String v = module.attributes().get("num_partitions");
    long n = v == null ? -1 : HloScanner.parseNatural(v.strip(), Integer.MAX_VALUE);
    if (n < 2) {
      throw src.error(
          1,
          "the module does not say how many partitions it runs on (num_partitions of at least 2"
              + " in its header)",
          "Dump the module before SPMD partitioning of a program compiled for several devices"
              + " (XLA_FLAGS=--xla_dump_hlo_pass_re=spmd-partitioning).");
    }
    return (int) n;
  }

  private static ObjectNode entry(String name) {
    return JsonNodeFactory.instance.objectNode().put("gs", name);
  }

  /** A name as the relation's expressions write it: backquoted unless an identifier. */
  private static String reference(String name) {
    return name.matches("[A-Za-z_][A-Za-z0-9_.]*") ? name : "`" + name + "`";
  }
}
