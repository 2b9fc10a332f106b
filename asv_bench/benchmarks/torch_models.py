"""asv benchmarks: a training step and a forward pass of whole models on reproblas.torch and
of the same models in plain PyTorch (skipped without PyTorch), 1 and 2 threads.
tools/bench_torch_models.py prints the ratios, measured in one run."""
from ._common import ThreadedBenchmark, import_package, require

rb = import_package("reproblas")
THREADS = [1, 2]


class TimeModelStep(ThreadedBenchmark):
    """One step of the demo GPT (reproblas.torch.gpt_demo): AdamW training or inference."""
    params = [["gpt"], ["reproblas", "torch"], ["train", "infer"], THREADS]
    param_names = ["model", "library", "task", "threads"]

    def setup(self, model, library, task, threads):
        require(rb)
        try:
            import torch
            from reproblas.torch import gpt_demo
        except ImportError:
            raise NotImplementedError("PyTorch is not installed") from None
        ops, opt = ((gpt_demo.ReproOps, gpt_demo.AdamW) if library == "reproblas"
                    else (gpt_demo.TorchOps, torch.optim.AdamW))
        self.call = gpt_demo.bench_steps(ops, opt)[task]
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
