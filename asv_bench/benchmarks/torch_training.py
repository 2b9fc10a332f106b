"""asv benchmarks: one training step of the demo's ResNet (python -m reproblas.torch.demo) on
64 images of 8×8: reproblas.torch through data_parallel_backward with 1 and 2 shards, against
the same network in stock PyTorch; 1 and 2 threads. Skipped without PyTorch.
"""
from ._common import ThreadedBenchmark, import_package

rb = import_package("reproblas")


class TimeTrainingStep(ThreadedBenchmark):
    """zero_grad, forward, backward (shard reduction included), SGD step with momentum."""
    params = [["reproblas-1-shard", "reproblas-2-shards", "stock"], [1, 2]]
    param_names = ["model", "threads"]

    def setup(self, model, threads):
        if rb is None:
            raise NotImplementedError("the package is not built")
        try:
            import torch

            import reproblas.torch as rt
            from reproblas.torch import demo
        except ImportError:
            raise NotImplementedError("PyTorch is not installed") from None
        g = torch.Generator().manual_seed(0)
        x, y = torch.rand(64, 1, 8, 8, generator=g), torch.randint(0, 10, (64,), generator=g)
        net = demo.initial_model()
        if model == "stock":
            opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)

            def step():
                opt.zero_grad()
                torch.nn.functional.cross_entropy(net(x), y).backward()
                opt.step()
        else:
            net = rt.convert(net)
            loss_fn = rt.CrossEntropyLoss()
            opt = rt.SGD(net.parameters(), lr=0.05, momentum=0.9)
            shards = 1 if model == "reproblas-1-shard" else 2

            def step():
                opt.zero_grad()
                rt.data_parallel_backward(net, lambda a, b: loss_fn(net(a), b), (x, y),
                                          shards=shards)
                opt.step()
        self.step = step
        self._saved_torch_threads = torch.get_num_threads()
        torch.set_num_threads(threads)
        self._set_threads(threads)

    def teardown(self, model, threads):
        if hasattr(self, "_saved_torch_threads"):
            import torch
            torch.set_num_threads(self._saved_torch_threads)
        super().teardown(model, threads)

    def time_step(self, model, threads):
        self.step()
