"""The tiny GPT demo (reproblas.torch.gpt_demo): one set of bits for training and for
serving (alone, padded batch, key/value cache) on every CPU path and thread count."""
import pytest

torch = pytest.importorskip("torch")
from reproblas.torch import gpt_demo  # noqa: E402


def test_same_model_in_both_op_sets():
    """ReproOps and TorchOps run the same network (semantics; bits are ReproOps' own)."""
    tokens = torch.tensor([gpt_demo.encode(s) for s in ("The keeper counted",
                                                        "the waves each nig")])
    positions = torch.arange(tokens.shape[1]).expand_as(tokens)
    mask = gpt_demo.causal(torch.ones_like(tokens, dtype=torch.bool), tokens.shape[1])
    with torch.no_grad():
        ours = gpt_demo.TinyGPT(gpt_demo.ReproOps, len(gpt_demo.VOCAB))(tokens, positions, mask)
        theirs = gpt_demo.TinyGPT(gpt_demo.TorchOps, len(gpt_demo.VOCAB))(tokens, positions, mask)
    torch.testing.assert_close(ours, theirs, rtol=1e-4, atol=1e-4)


def test_padding_query_is_never_an_empty_softmax_row():
    valid = torch.tensor([[False, False, True], [True, True, True]])
    mask = gpt_demo.causal(valid, 3)
    assert mask.shape == (2, 1, 3, 3)
    assert mask.any(-1).all()
    assert mask[0, 0].tolist() == [[True, False, False], [False, True, False],
                                   [False, False, True]]
    assert mask[1, 0].tolist() == [[True, False, False], [True, True, False],
                                   [True, True, True]]


def test_serving_ways_agree_and_configurations_agree():
    lines = []
    assert gpt_demo.run(train_steps=3, gen_steps=4, threads=(1, 3), out=lines.append)
    text = "\n".join(lines)
    assert "1 distinct trained weights, 1 distinct serving results" in text
    assert "4 ways identical: False" not in text


def test_cache_and_padding_change_nothing_after_training():
    model, _ = gpt_demo.train(gpt_demo.ReproOps, gpt_demo.AdamW, 2)
    ways = gpt_demo.serving_checks(model, 5)
    ref_tokens, ref_logits = ways["alone, recompute"]
    for way, (tokens, logits) in ways.items():
        assert torch.equal(tokens, ref_tokens), way
        assert torch.equal(logits.view(torch.int32), ref_logits.view(torch.int32)), way
