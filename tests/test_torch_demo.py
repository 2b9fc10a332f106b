"""python -m reproblas.torch.demo at a reduced size: the digits ResNet trained with
data_parallel_backward gives one weights hash on every CPU path, 1-3 threads and 2 Gloo
processes, and the demo's check fails when one configuration differs."""
import pytest

torch = pytest.importorskip("torch", reason="needs PyTorch (pip install -e '.[torch]')")
pytest.importorskip("sklearn", reason="the demo's data is scikit-learn's load_digits "
                                      "(pip install scikit-learn)")
from reproblas.demo import cpu_paths  # noqa: E402
from reproblas.torch import demo  # noqa: E402


def test_digits_one_hash_everywhere(capsys):
    found = demo.run_digits(steps=6, batch=16, shards=2, processes=2, stock=False)
    out = capsys.readouterr().out
    # 1, 2, 3 threads on the best path, each other path, both ranks of the 2 processes, and
    # CUDA where a device and CuPy are present
    cuda = demo.cuda_reason() is None
    assert len(found) == 3 + len(cpu_paths()) - 1 + 2 + cuda, found
    assert len(set(found.values())) == 1, found
    assert "1 distinct result over" in out and ("CUDA: not run" in out) != cuda
    data = demo.load()
    assert demo.digest(demo.train(data, 6, 16, 2)) in found.values()
    # another shard count is another (defined) result: the hash is not of the initial weights
    assert demo.digest(demo.train(data, 6, 16, 1)) not in found.values()
    assert demo.digest(demo.initial_model()) not in found.values()


def test_the_demo_fails_when_a_configuration_differs(monkeypatch):
    train = demo.train

    def perturbed(data, steps, batch, shards, group=None):
        model = train(data, steps, batch, shards, group)
        if demo.os.environ.get("REPROBLAS_NUM_THREADS") == "3":
            with torch.no_grad():
                model.fc.bias[0] = torch.nextafter(model.fc.bias[0], torch.tensor(1.0))
        return model

    monkeypatch.setattr(demo, "train", perturbed)
    with pytest.raises(AssertionError, match="changed with the configuration"):
        demo.run_digits(steps=1, batch=8, shards=2, processes=1, stock=False)


def test_data_and_batches():
    x, y, xt, yt = demo.load()
    assert x.shape == (1437, 1, 8, 8) and xt.shape == (360, 1, 8, 8)
    assert x.dtype == torch.float32 and float(x.max()) == 1.0 and float(x.min()) == 0.0
    assert set(y.tolist()) == set(range(10))
    rows = list(demo.batches(20, 8, 5))
    assert [len(r) for r in rows] == [8] * 5
    # each epoch is a permutation: the first 16 rows are distinct, the next epoch starts at 20
    first = torch.cat(rows[:2]).tolist()
    assert len(set(first)) == 16
    assert [r.tolist() for r in rows] == [r.tolist() for r in demo.batches(20, 8, 5)]


def test_bad_arguments():
    with pytest.raises(SystemExit):
        demo.main(["--shards", "3", "--processes", "2"])
    with pytest.raises(SystemExit):
        demo.main(["--steps", "0"])


def test_digits_training_on_the_emulated_cuda_kernels(monkeypatch):
    """Without a GPU the demo has no CUDA run (tests/test_torch_cuda_route.py sends whole ops
    down the CUDA tensors' route on the emulation). Checked here: every reproblas routine under
    a (reduced) training run of the demo's network -- convolutions
    and their gradients, gemm, the shard sums -- computed by the CUDA kernels on the host
    emulation gives the CPU's weights, bit for bit (crlibm_py and the fused reproblas.torch
    kernels stay on the CPU)."""
    from cuda_support import EmuDevice
    from repro_runtime import cuda as rt_cuda

    import reproblas.torch as rt
    from reproblas import _backend, _cuda

    x, y, _, _ = demo.load()

    def run():
        torch.manual_seed(0)
        model = rt.convert(demo.ResNet(channels=2))
        loss_fn = rt.CrossEntropyLoss()
        opt = rt.SGD(model.parameters(), lr=0.1, momentum=0.9)
        for i in range(2):
            opt.zero_grad()
            rows = slice(4 * i, 4 * i + 4)
            rt.data_parallel_backward(model, lambda a, b: loss_fn(model(a), b),
                                      (x[rows], y[rows]), shards=2)
            opt.step()
        return demo.digest(model)

    want = run()
    emu = EmuDevice()
    monkeypatch.setattr(rt_cuda, "_device", [emu])
    launched = []

    def on_the_device(*arrays):
        launched.append(1)
        return _cuda.CudaBackend(emu)

    monkeypatch.setattr(_backend, "select", on_the_device)
    got = run()
    monkeypatch.undo()
    # the reproblas routines of the steps that go through the backend (convolutions, sums,
    # most products) went to the emulated device; the fused torch kernels (softmax, norms,
    # activations, optimizer) and the small-call fast paths (plain 2-D and batched products,
    # linear with a bias) take CPU arrays only
    assert len(launched) > 30
    assert got == want
