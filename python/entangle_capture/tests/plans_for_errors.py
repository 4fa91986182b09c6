"""Plans that do not fit the example models, for the command line's error tests."""

from torch.distributed.tensor.parallel import RowwiseParallel


def fc1_rowwise(mesh):
    return {"fc1": RowwiseParallel()}
