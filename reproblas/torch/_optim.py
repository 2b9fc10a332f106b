"""Optimizers with written per-element formulas, and gradient-norm clipping with reproblas
nrm2 (docs/contract.md §5.7 "Optimizers").

Every update is a fixed sequence of IEEE operations per element (each torch operation below is
one rounding: no fused multiply-add, no ``alpha=`` / ``value=`` arguments, which PyTorch may
fuse); scalars (learning rate, bias corrections) are computed in Python's double precision
with +, −, ×, ÷ and sqrt only (the powers of β by repeated multiplication) and rounded once to
the parameter's dtype. So a step gives the same bits on every thread count and CPU.
On float32 contiguous parameters the step runs as one C kernel per parameter (nn.h), in the
library's floating-point environment, with the bits of the composition below.
"""
import math

import numpy as np
import torch

import reproblas
from reproblas import _validate

from . import _device
from . import _kernels as K
from ._prims import array, tensor


def _sqrt(t):
    """The correctly rounded square root (NumPy's, the IEEE operation: PyTorch's vectorised
    float32 sqrt is not always correctly rounded, so its bits could depend on where a SIMD
    block ends); on a CUDA tensor CuPy's (_device)."""
    if _device.on_device(t):
        return _device.sqrt(t)
    return torch.from_numpy(np.sqrt(t.numpy()))


def _params_check(params, routine):
    for p in params:
        if p.grad is not None:
            array(p, "parameter", routine)
            array(p.grad, "gradient", routine)
            if p.grad.is_sparse:
                raise TypeError(f"reproblas.torch.{routine}: sparse gradients are not supported")


class SGD(torch.optim.Optimizer):
    """SGD with momentum, dampening, Nesterov and weight decay (as :class:`torch.optim.SGD`).

    Per element: ``g = grad`` (``−grad`` with maximize); ``g = g ⊕ (p ⊗ wd)``; with momentum
    ``b = g`` on the first step, else ``b = (b ⊗ μ) ⊕ (g ⊗ (1 − dampening))``, then
    ``g = g ⊕ (b ⊗ μ)`` (Nesterov) or ``g = b``; ``p = p ⊖ (g ⊗ lr)``. Each term is skipped
    when its coefficient is 0 (wd, μ) or 1 (``1 − dampening``).
    """

    def __init__(self, params, lr=1e-3, momentum=0.0, dampening=0.0, weight_decay=0.0,
                 nesterov=False, *, maximize=False):
        if lr < 0.0 or momentum < 0.0 or weight_decay < 0.0:
            raise ValueError(f"reproblas.torch.SGD: lr, momentum and weight_decay must be >= 0, "
                             f"got {lr}, {momentum}, {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("reproblas.torch.SGD: Nesterov momentum needs momentum > 0 and "
                             "dampening 0")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov,
                                      maximize=maximize))

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            lr, mu, damp = group["lr"], group["momentum"], group["dampening"]
            wd = group["weight_decay"]
            fast, slow = [], []
            for p in group["params"]:
                if p.grad is not None:
                    buf = self.state[p].get("momentum_buffer") if mu != 0 else None
                    (fast if K.steppable(p, buf) else slow).append((p, buf))
            _params_check([p for p, _ in slow], "SGD")  # before any parameter changes
            steps = []
            for p, buf in fast:
                first = mu != 0 and buf is None
                if first:
                    buf = torch.empty_like(p, memory_format=torch.contiguous_format)
                    self.state[p]["momentum_buffer"] = buf
                steps.append((p, buf, first))
            if steps:
                K.sgd_many(steps, lr, wd, mu, 1.0 - damp, group["maximize"], group["nesterov"])
            for p, _ in slow:
                g = -p.grad if group["maximize"] else p.grad
                if wd != 0:
                    g = g + p * wd
                if mu != 0:
                    state = self.state[p]
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = g.clone()
                    else:
                        buf = buf * mu + (g if damp == 0 else g * (1.0 - damp))
                    state["momentum_buffer"] = buf
                    g = g + buf * mu if group["nesterov"] else buf
                p.copy_(p - g * lr)
        return loss


class _AdamBase(torch.optim.Optimizer):
    _decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                 amsgrad=False, *, maximize=False):
        name = type(self).__name__
        if lr < 0.0 or eps < 0.0 or weight_decay < 0.0:
            raise ValueError(f"reproblas.torch.{name}: lr, eps and weight_decay must be >= 0")
        if not all(0.0 <= b < 1.0 for b in betas) or len(betas) != 2:
            raise ValueError(f"reproblas.torch.{name}: betas must be two values in [0, 1), got "
                             f"{betas!r}")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize))

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            lr, (b1, b2), eps = group["lr"], group["betas"], group["eps"]
            wd = group["weight_decay"]
            fast, slow = [], []
            for p in group["params"]:
                if p.grad is not None:
                    state = self.state[p]  # a new state's tensors will be zeros_like(p)
                    kernel = not group["amsgrad"] and K.steppable(p, state.get("exp_avg"),
                                                                  state.get("exp_avg_sq"))
                    (fast if kernel else slow).append((p, state))
            _params_check([p for p, _ in slow], type(self).__name__)  # before any change
            steps = []
            for p, state in fast + slow:
                if not state:
                    state["step"] = 0
                    state["beta1_power"], state["beta2_power"] = 1.0, 1.0
                    state["exp_avg"] = torch.zeros_like(p)
                    state["exp_avg_sq"] = torch.zeros_like(p)
                    if group["amsgrad"]:
                        state["max_exp_avg_sq"] = torch.zeros_like(p)
                state["step"] += 1
                state["beta1_power"] *= b1
                state["beta2_power"] *= b2
                step_size = lr / (1.0 - state["beta1_power"])
                bc2_sqrt = math.sqrt(1.0 - state["beta2_power"])
                steps.append((p, state["exp_avg"], state["exp_avg_sq"], step_size, bc2_sqrt))
            if fast:
                K.adam_many(steps[:len(fast)], 1.0 - lr * wd, wd, b1, 1.0 - b1, b2, 1.0 - b2,
                            eps, group["maximize"], self._decoupled)
            for (p, state), (_, _, _, step_size, bc2_sqrt) in zip(slow, steps[len(fast):]):
                g = -p.grad if group["maximize"] else p.grad
                if wd != 0:
                    if self._decoupled:
                        p.copy_(p * (1.0 - lr * wd))
                    else:
                        g = g + p * wd
                m = state["exp_avg"] * b1 + g * (1.0 - b1)
                v = state["exp_avg_sq"] * b2 + (g * g) * (1.0 - b2)
                state["exp_avg"], state["exp_avg_sq"] = m, v
                if group["amsgrad"]:
                    v = torch.maximum(state["max_exp_avg_sq"], v)
                    state["max_exp_avg_sq"] = v
                denom = _device.div(_sqrt(v), bc2_sqrt) + eps
                p.copy_(p - (m / denom) * step_size)
        return loss


class Adam(_AdamBase):
    """Adam (as :class:`torch.optim.Adam`, L2 weight decay added to the gradient).

    Per element, step t: ``g = g ⊕ (p ⊗ wd)``; ``m = (m ⊗ β1) ⊕ (g ⊗ (1 − β1))``;
    ``v = (v ⊗ β2) ⊕ ((g ⊗ g) ⊗ (1 − β2))`` (amsgrad: ``v̂ = max(v̂, v)``);
    ``p = p ⊖ ((m ⊘ ((sqrt(v) ⊘ c2) ⊕ eps)) ⊗ s)`` with the doubles
    ``s = lr / (1 − β1^t)``, ``c2 = sqrt(1 − β2^t)``, ``β^t`` a running product.
    """


class AdamW(_AdamBase):
    """AdamW (as :class:`torch.optim.AdamW`): Adam with decoupled weight decay, first
    ``p = p ⊗ (1 − lr·wd)`` (the factor a double), then the Adam update without decay."""

    _decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, *, order="sequential"):
    """Scale the gradients so that their joint norm is at most max_norm.

    The norm is ``reproblas.nrm2`` (``norm_type=2``) of every gradient's elements, parameter
    after parameter, each in C order, or the exact maximum of their magnitudes
    (``norm_type=inf``); each gradient is then multiplied by
    ``min(max_norm ⊘ (norm ⊕ 1e-6), 1)``, in the gradients' dtype. Returns the norm.
    """
    _validate.order(order, "torch.clip_grad_norm_")
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    for g in grads:
        array(g, "gradient", "clip_grad_norm_")
    if len({g.dtype for g in grads}) > 1:
        raise TypeError("reproblas.torch.clip_grad_norm_: the gradients have mixed dtypes")
    dtype = grads[0].dtype
    _device.same_device("clip_grad_norm_", **{f"gradient {i}": g for i, g in enumerate(grads)})
    if norm_type == 2.0 and _device.on_device(grads[0]):  # one device array (an exact copy)
        flat = array(torch.cat([g.detach().reshape(-1) for g in grads]), "gradient",
                     "clip_grad_norm_")
        total = tensor(reproblas.nrm2(flat, order))
    elif norm_type == 2.0:
        flat = np.concatenate([array(g, "gradient", "clip_grad_norm_").ravel() for g in grads])
        total = torch.tensor(reproblas.nrm2(flat, order), dtype=dtype)
    elif norm_type == math.inf:
        total = torch.stack([g.detach().abs().amax() if g.numel() else
                             torch.zeros((), dtype=dtype, device=g.device) for g in grads]).amax()
    else:
        raise ValueError(f"reproblas.torch.clip_grad_norm_: norm_type must be 2 or inf, got "
                         f"{norm_type!r}")
    coef = torch.clamp(torch.tensor(max_norm, dtype=dtype, device=total.device) / (total + 1e-6),
                       max=1.0)
    with torch.no_grad():
        for g in grads:
            g.copy_(g * coef)
    return total
