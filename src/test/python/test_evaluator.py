"""The numeric evaluator against PyTorch, on every example's G_s and G_d.

The evaluator (dev.entangle.eval) computes every node of G_s and of each rank of G_d
in double precision, on inputs it draws from the case's input relation. This test
runs the same graphs node by node with PyTorch's own ATen operators, in the dtypes
the graphs record, on the same inputs, and requires the same values within float
tolerance. The collectives of G_d are computed here from their documented meaning
(docs/formats.md, Collectives), independently of the checker's Java code.
"""

import json
import operator
import os
import subprocess
import tempfile
import unittest

import support
from support import EXAMPLES, LAUNCHER, ROOT, needs_torch

if support.TORCH_MISSING is None:
    import torch

JAR = os.path.join(ROOT, "target", "entangle.jar")
MAIN = "dev.entangle.numbers.tool.EvaluateGraphs"
TIMEOUT = int(os.environ.get("ENTANGLE_TEST_TIMEOUT", "900"))
WAIT = {"_c10d_functional.wait_tensor.default", "c10d_functional.wait_tensor.default"}
# float32 results computed in float32 by PyTorch and in double by the evaluator
RTOL = {"float32": 1e-4, "float64": 1e-9, "float16": 1e-2, "bfloat16": 5e-2}


def build_jar():
    """Builds target/entangle.jar when the sources are newer (the launcher does)."""
    command = [LAUNCHER] if os.access(LAUNCHER, os.X_OK) else ["sh", LAUNCHER]
    proc = subprocess.run(command + ["--version"], cwd=ROOT, capture_output=True, text=True,
                          timeout=TIMEOUT)
    if proc.returncode != 0 or not os.path.isfile(JAR):
        raise AssertionError(f"could not build {JAR}: {proc.stderr}")


def evaluate_in_java(runs, out_dir):
    """Evaluates every (case, seed) of runs in one JVM; returns {(case, seed): values file}."""
    args, outs = [], {}
    for case, seed in runs:
        folder = os.path.join(EXAMPLES, case)
        out = os.path.join(out_dir, f"{case}.{seed}.json")
        args.append([os.path.join(folder, "gs.json"), os.path.join(folder, "gd.json"),
                     "--rel", os.path.join(folder, "ri.json"), "--seed", str(seed), "-o", out])
        outs[(case, seed)] = out
    many = os.path.join(out_dir, "runs.json")
    with open(many, "w", encoding="utf-8") as f:
        json.dump(args, f)
    command = support.JVM + ["-cp", JAR, MAIN, "--many", many]
    proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT)
    if proc.returncode != 0:
        raise AssertionError(f"the evaluator failed: {proc.stderr}")
    return outs


def element(x):
    return float(x) if isinstance(x, str) else x


def to_torch(t):
    data = [element(x) for x in t["data"]]
    dtype = getattr(torch, t["dtype"])
    if dtype.is_floating_point:
        return torch.tensor(data, dtype=torch.float64).reshape(t["shape"]).to(dtype)
    return torch.tensor([int(x) for x in data], dtype=torch.int64).reshape(t["shape"]).to(dtype)


def op_of(target):
    if target in ("getitem", "_operator.getitem", "operator.getitem"):
        return operator.getitem
    namespace, name, overload = target.split(".")
    return getattr(getattr(getattr(torch.ops, namespace), name), overload)


def decode(arg, env):
    if isinstance(arg, list):
        return [decode(a, env) for a in arg]
    if isinstance(arg, dict):
        (key, value), = arg.items()
        if key == "node":
            return env[value]
        if key == "dtype":
            return getattr(torch, value)
        if key == "device":
            return torch.device("cpu")
        if key in ("layout", "memory_format"):
            return getattr(torch, value)
        if key == "float":
            return float(value)
        raise ValueError(f"cannot decode {arg}")
    return arg


def run_node(node, env):
    if node["op"] == "get_attr":
        meta = node["meta"]
        return torch.tensor(meta["value"], dtype=getattr(torch, meta["dtype"]))
    args = decode(node.get("args", []), env)
    kwargs = {k: decode(v, env) for k, v in node.get("kwargs", {}).items()}
    return op_of(node["target"])(*args, **kwargs)


def collective_group(node):
    target = node["target"]
    if target.startswith("vllm.all_reduce"):
        position = 1
    elif ".all_reduce." in target or ".broadcast." in target or ".all_gather_into_tensor." in target:
        position = 2
    else:
        position = 3
    args = node.get("args", [])
    return args[position] if len(args) > position else node.get("kwargs", {}).get("group_name")


def is_collective(node):
    t = node["target"]
    return node["op"] == "call_function" and t not in WAIT and (
        t.startswith("_c10d_functional.") or t.startswith("c10d_functional.")
        or t.startswith("vllm.all_reduce"))


def reduce(op, xs):
    if op == "sum":
        return torch.stack(xs).sum(0)
    if op == "avg":
        return torch.stack(xs).sum(0) / len(xs)
    if op == "max":
        return torch.stack(xs).max(0).values
    if op == "min":
        return torch.stack(xs).min(0).values
    raise ValueError(op)


def collective(node, position, sent, senders):
    """The value one member (at position in the group) gets, from what every member sent
    (senders: each member's own call, whose arguments say how it splits what it sends)."""
    target = node["target"]
    args = node.get("args", [])
    n = len(sent)
    if target.startswith("vllm.all_reduce"):
        return reduce("sum", sent)
    kind = target.split(".")[1]
    if kind == "all_reduce":
        return reduce(args[1], sent)
    if kind == "all_gather_into_tensor":
        return torch.cat(sent, 0)
    if kind == "reduce_scatter_tensor":
        return reduce(args[1], sent).chunk(n, 0)[position]
    if kind == "broadcast":
        return sent[args[1]]
    if kind == "all_to_all_single":
        parts = []
        for x, call in zip(sent, senders):
            call_args = call.get("args", [])
            in_splits = call_args[2] if len(call_args) > 2 else None  # the sender's own
            parts.append((x.split(in_splits, 0) if in_splits else x.chunk(n, 0))[position])
        return torch.cat(parts, 0)
    raise ValueError(f"collective {target}")


def evaluate_gs(graph, inputs):
    env = dict(inputs)
    for node in graph["nodes"]:
        if node["op"] in ("output", "placeholder") or node["name"] in env:
            continue
        if node["target"] in WAIT or is_collective(node):
            env[node["name"]] = env[node["args"][0]["node"]]  # one rank: an identity
            continue
        env[node["name"]] = run_node(node, env)
    return env


def evaluate_gd(gd, inputs):
    """Every rank's values; ranks advance in turn until a collective waits for another rank."""
    ranks = [r["nodes"] for r in gd["ranks"]]
    world = gd["world_size"]
    groups = gd.get("process_groups", {})
    envs = [dict(inputs[r]) for r in range(world)]
    calls = {}  # group -> rank -> collective nodes in order
    index = {}  # (rank, node) -> (group, k)
    for r, nodes in enumerate(ranks):
        for node in nodes:
            if is_collective(node):
                g = collective_group(node) or ""
                mine = calls.setdefault(g, {}).setdefault(r, [])
                index[(r, node["name"])] = (g, len(mine))
                mine.append(node)

    def members(g):
        if g in groups:
            return groups[g]
        users = sorted(calls[g])
        return users if len(users) == 1 and world > 1 else list(range(world))

    cursor = [0] * world
    progress = True
    while progress:
        progress = False
        for r in range(world):
            while cursor[r] < len(ranks[r]):
                node = ranks[r][cursor[r]]
                name = node["name"]
                if node["op"] in ("output", "placeholder") or name in envs[r]:
                    cursor[r] += 1
                    continue
                if node["target"] in WAIT:
                    envs[r][name] = envs[r][node["args"][0]["node"]]
                elif is_collective(node):
                    g, k = index[(r, name)]
                    ms = members(g)
                    inputs_of = [calls[g][m][k]["args"][0]["node"] for m in ms]
                    if any(i not in envs[m] for m, i in zip(ms, inputs_of)):
                        break
                    sent = [envs[m][i] for m, i in zip(ms, inputs_of)]
                    senders = [calls[g][m][k] for m in ms]
                    envs[r][name] = collective(node, ms.index(r), sent, senders)
                else:
                    envs[r][name] = run_node(node, envs[r])
                cursor[r] += 1
                progress = True
    return envs


@needs_torch
class EvaluatorAgainstTorchTest(unittest.TestCase):

    SECOND_SEED = 12345
    OTHER_SEED_CASES = ("gpt-tp4-l2", "attention-heads-tp4", "vocab-embedding-grad-tp4")

    @classmethod
    def setUpClass(cls):
        build_jar()
        runs = [(case, 1) for case in support.case_names()]
        runs += [(case, cls.SECOND_SEED) for case in cls.OTHER_SEED_CASES]
        cls.tmp = tempfile.TemporaryDirectory()
        cls.values = evaluate_in_java(runs, cls.tmp.name)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def compare(self, where, java, ours):
        """Every value the evaluator computed equals PyTorch's; returns how many were compared."""
        compared = 0
        for name, value in java.items():
            if "data" not in value or not isinstance(ours.get(name), torch.Tensor):
                continue
            got = to_torch({**value, "dtype": "float64"}).double()
            want = ours[name]
            self.assertEqual(list(want.shape), value["shape"], f"{where}.{name}: shape")
            self.assertEqual(str(want.dtype), "torch." + value["dtype"], f"{where}.{name}: dtype")
            want = want.double()
            if value["dtype"] in RTOL:
                rtol = RTOL[value["dtype"]]
                finite = want[want.isfinite()]  # (a square root of a random moment may be nan)
                scale = finite.abs().max().item() if finite.numel() else 0.0
                if not torch.allclose(got, want, rtol=rtol, atol=rtol * max(scale, 1e-3),
                                      equal_nan=True):
                    self.fail(f"{where}.{name}: max difference {(got - want).abs().max().item()}")
            elif not torch.equal(got, want):  # the message only on failure: printing costs
                self.fail(f"{where}.{name}: {got} vs {want}")
            compared += 1
        return compared

    def check_case(self, case, seed):
        folder = os.path.join(EXAMPLES, case)
        gs = support.load(os.path.join(folder, "gs.json"))
        gd = support.load(os.path.join(folder, "gd.json"))
        result = support.load(self.values[(case, seed)])
        inputs = result["inputs"]
        values = result["values"]
        gs_env = evaluate_gs(gs, {k: to_torch(v) for k, v in inputs["gs"].items()})
        n = self.compare(f"{case} G_s", values["gs"], gs_env)
        for name in support.outputs(support.check_graph(gs)):
            self.assertIn("data", values["gs"][name], f"{case}: G_s output {name} was not computed")
        gd_envs = evaluate_gd(gd, [{k: to_torch(v) for k, v in m.items()} for m in inputs["gd"]])
        for r, env in enumerate(gd_envs):
            n += self.compare(f"{case} r{r}", values["gd"][r], env)
            rank_nodes = support.check_graph(gd["ranks"][r], require_format=False)
            for name in support.outputs(rank_nodes):
                self.assertIn("data", values["gd"][r][name], f"{case}: r{r}.{name} was not computed")
        self.assertGreater(n, 0)

    def test_every_example_matches_pytorch(self):
        for case in support.case_names():
            with self.subTest(case):
                self.check_case(case, seed=1)

    def test_another_seed_matches_too(self):
        for case in self.OTHER_SEED_CASES:
            with self.subTest(case):
                self.check_case(case, seed=self.SECOND_SEED)


if __name__ == "__main__":
    unittest.main()
