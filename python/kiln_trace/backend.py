"""A torch.compile backend that writes every graph it is given as annotated
FX text (what kiln reads), then runs the graph eagerly."""
import itertools
import os


def backend(directory):
    """torch.compile(model, backend=kiln_trace.backend("dir")): graph_0.fx, graph_1.fx, ...
    in dir, one per graph Dynamo hands the backend, annotated with dtype, shape,
    strides and device as TORCH_LOGS prints them."""
    os.makedirs(directory, exist_ok=True)
    counter = itertools.count()

    def compile_fn(gm, example_inputs):
        text = gm.print_readable(print_output=False, include_stride=True, include_device=True)
        path = os.path.join(directory, f"graph_{next(counter)}.fx")
        with open(path, "w") as f:
            f.write(text)
        return gm.forward

    return compile_fn
