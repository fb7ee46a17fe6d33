"""Recurrent modules (nn.LSTM, nn.GRU, nn.RNN) under functional calls that swap a module's parameters for
other tensors (fake ones, or the proxies of a trace)."""

import contextlib

from torch import nn


@contextlib.contextmanager
def rnn_weights_follow_swaps(model):
    """Within the block, each recurrent module (nn.LSTM, nn.GRU, nn.RNN) reads its weights through its
    attributes when it runs. Its forward pass hands ATen `_flat_weights`, a list of the Parameters themselves,
    which torch 1.13's functional_call (it swaps attributes only) leaves as it is: a trace on fake tensors met
    the real Parameters and failed. torch 2.x keeps the list in step with a swap itself."""
    def refresh(module, _args):
        module._flat_weights = [getattr(module, name, None) for name in module._flat_weights_names]

    rnns = [m for m in model.modules() if isinstance(m, nn.RNNBase)]
    hooks = [m.register_forward_pre_hook(refresh) for m in rnns]
    try:
        yield
    finally:
        for hook in hooks:
            hook.remove()
        for m in rnns:
            refresh(m, ())
