"""asv benchmarks: a training step and a forward pass of the two demo models -- the digits
ResNet (python -m reproblas.torch.demo) and the tiny GPT (python -m reproblas.torch.gpt_demo)
-- on reproblas.torch and as the same networks in plain PyTorch, 1 and 2 threads (skipped
without PyTorch). tools/bench_torch_models.py prints their ratios, measured in one run."""
from ._common import ThreadedBenchmark, import_package, require

rb = import_package("reproblas")


class TimeModelStep(ThreadedBenchmark):
    """cnn: SGD with momentum, batch 64; gpt: AdamW, batch 8 x 32 tokens (each demo's
    bench_steps)."""
    params = [["cnn", "gpt"], ["reproblas", "torch"], ["train", "infer"], [1, 2]]
    param_names = ["model", "library", "task", "threads"]

    def setup(self, model, library, task, threads):
        require(rb)
        try:
            import torch

            from reproblas.torch import demo, gpt_demo
        except ImportError:
            raise NotImplementedError("PyTorch is not installed") from None
        self.call = {"cnn": demo, "gpt": gpt_demo}[model].bench_steps(library)[task]
        self._saved_torch_threads = torch.get_num_threads()
        torch.set_num_threads(threads)
        self._set_threads(threads)

    def teardown(self, model, library, task, threads):
        if hasattr(self, "_saved_torch_threads"):
            import torch
            torch.set_num_threads(self._saved_torch_threads)
        super().teardown(model, library, task, threads)

    def time_step(self, model, library, task, threads):
        self.call()
