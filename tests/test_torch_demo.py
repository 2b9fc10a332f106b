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


# The demo network's training on the emulated CUDA kernels, every reproblas and crlibm_py
# call on the device: tests/test_torch_cuda_route.py (test_demo_cnn_training_on_the_device_route).
