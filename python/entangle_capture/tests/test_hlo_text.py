"""The HLO rewriting into the form `entangle import` reads, and relation entries from placements."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from entangle_capture import CaptureError  # noqa: E402
from entangle_capture.hlo_text import classic_hlo, entry_outputs, mesh_groups  # noqa: E402
from entangle_capture.relation import Placement, expectation, relation_entry  # noqa: E402

MODULE = """HloModule jit_f, num_partitions=4

FileNames
1 "/home/me/model.py"
2 "/venv/lib/python3.11/site-packages/jax/_src/numpy.py"

FunctionNames
1 "f"
2 "matmul"

FileLocations
1 {file_name_id=1 function_name_id=1 line=12 end_line=12 column=3 end_column=9}
2 {file_name_id=2 function_name_id=2 line=400 end_line=400 column=1 end_column=2}

StackFrames
1 {file_location_id=1 parent_frame_id=1}
2 {file_location_id=2 parent_frame_id=1}


%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %add.1 = f32[] add(%x, %y)
}

ENTRY %main (p: f32[4]) -> (f32[4], f32[4]) {
  %p = f32[4]{0} parameter(0), metadata={op_name="w"}
  %dot = f32[4]{0} multiply(%p, %p), metadata={op_name="jit(f)/mul" stack_frame_id=2}
  %all-reduce = f32[4]{0} all-reduce(%dot), channel_id=1, replica_groups=mesh['x'=2,'y'=2] {'y'}, use_global_device_ids=true, to_apply=%add
  ROOT %tuple = (f32[4]{0}, f32[4]{0}) tuple(%dot, %all-reduce)
}
"""


class HloTextTest(unittest.TestCase):
    def test_mesh_groups_vary_the_listed_axes_in_row_major_order(self):
        self.assertEqual(mesh_groups("'x'=2,'y'=4", "'y'", "t"), "{{0,1,2,3},{4,5,6,7}}")
        self.assertEqual(mesh_groups("'x'=2,'y'=4", "'x'", "t"), "{{0,4},{1,5},{2,6},{3,7}}")
        self.assertEqual(mesh_groups("'axis_0'=1,'axis_1'=2", "'axis_1'", "t"), "{{0,1}}")
        self.assertEqual(mesh_groups("'x'=2,'y'=2", "'x','y'", "t"), "{{0,1,2,3}}")

    def test_an_unknown_group_axis_is_an_error(self):
        with self.assertRaises(CaptureError):
            mesh_groups("'x'=2", "'z'", "t")

    def test_stack_frames_become_the_innermost_user_source_and_the_tables_go(self):
        text = classic_hlo(MODULE)
        self.assertNotIn("StackFrames", text)
        self.assertNotIn("stack_frame_id", text)
        self.assertIn('metadata={op_name="jit(f)/mul" source_file="/home/me/model.py" source_line=12}', text)
        self.assertIn("replica_groups={{0,1},{2,3}}", text)
        self.assertTrue(text.startswith("HloModule jit_f"))

    def test_entry_outputs_are_the_root_tuple_elements(self):
        self.assertEqual(entry_outputs(MODULE), ["dot", "all-reduce"])

    def test_entry_outputs_of_a_long_tuple_skip_the_index_comments(self):
        # XLA numbers every fifth element of a long list: /*index=5*/ in the types and the operands
        names = [f"o{i}" for i in range(7)]
        types = ", ".join(("/*index=5*/" if i == 5 else "") + "f32[2]{0}" for i in range(7))
        operands = ", ".join(("/*index=5*/" if i == 5 else "") + "%" + n for i, n in enumerate(names))
        module = ("HloModule m\n\nENTRY %main.0 (p: f32[2]) -> (f32[2]) {\n"
                  "  %p = f32[2]{0} parameter(0)\n"
                  f"  ROOT %tuple.0 = ({types}) tuple({operands})\n}}\n")
        self.assertEqual(entry_outputs(module), names)


class RelationTest(unittest.TestCase):
    def test_placements_become_relation_entries(self):
        self.assertEqual(relation_entry("fc1.weight", Placement("shard", 0), 2), {"gs": "fc1.weight", "shard": 0})
        self.assertEqual(relation_entry("x", Placement("replicate"), 2), {"gs": "x", "replicate": True})
        self.assertEqual(relation_entry("g", Placement("sum"), 3), {"gs": "g", "gd": "sum(r0.g, r1.g, r2.g)"})

    def test_expectations_quote_names_outside_the_plain_syntax(self):
        self.assertEqual(expectation("y", ["all-reduce", "all-reduce"], Placement("replicate")), [{"gs": "y", "gd": "r0.`all-reduce`"}, {"gs": "y", "gd": "r1.`all-reduce`"}])
        self.assertEqual(expectation("y", ["out", "out"], Placement("shard", 1)), [{"gs": "y", "gd": "concat(r0.out, r1.out, dim=1)"}])


if __name__ == "__main__":
    unittest.main()
