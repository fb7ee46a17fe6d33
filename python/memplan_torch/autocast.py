"""Mixed precision: the autocast state of the calling context, and the autocast region the command line's
--autocast opens. A joint graph traced under autocast holds the casts that autocast made, so it is run with
autocast off (ScheduledStep, apply-schedule)."""

import contextlib
import warnings

import torch

from .errors import MemplanTorchError


def state(device_type):
    """(enabled, dtype) of autocast on `device_type` ("cpu" or "cuda") in the calling context."""
    try:
        return torch.is_autocast_enabled(device_type), torch.get_autocast_dtype(device_type)  # torch >= 2.4
    except (TypeError, AttributeError):
        if device_type == "cuda":
            return torch.is_autocast_enabled(), torch.get_autocast_gpu_dtype()
        return torch.is_autocast_cpu_enabled(), torch.get_autocast_cpu_dtype()


def describe(autocast_state):
    """A state() for messages: "on (torch.bfloat16)" or "off"."""
    return f"on ({autocast_state[1]})" if autocast_state[0] else "off"


@contextlib.contextmanager
def region(dtype_name, device_type="cpu"):
    """torch.autocast on `device_type` with the dtype named `dtype_name` ("bfloat16", "float16"); nothing for
    None. A dtype this torch's autocast does not take on that device (torch 1.13's CPU autocast takes only
    bfloat16, and turns itself off with a warning for any other) is an error, not a silent full-precision run."""
    if dtype_name is None:
        yield
        return
    dtype = getattr(torch, dtype_name, None)
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise MemplanTorchError(f"autocast '{dtype_name}': not a floating-point dtype of torch (bfloat16, float16)")
    unsupported = MemplanTorchError(f"autocast '{dtype_name}': torch {torch.__version__}'s {device_type} autocast "
                                    f"does not support {dtype}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the unsupported-dtype warning; the check below says it as an error
        context = torch.autocast(device_type, dtype=dtype)
        try:
            context.__enter__()
        except RuntimeError as e:  # torch 1.13's CPU autocast, given float16
            raise unsupported from e
    try:
        if state(device_type) != (True, dtype):  # it turned itself off: the run would be in full precision
            raise unsupported
        yield
    finally:
        context.__exit__(None, None, None)


def forget_casts():
    """Empties autocast's cache of cast parameters. Within one autocast region torch casts each parameter
    once and reuses the copy until the region ends; a copy made by a trace (fake), or under no_grad (no
    autograd history), would serve a later forward pass in the same region, whose parameters would then get no
    gradient. So every run of the model that is not the user's own training step is followed by this."""
    torch.clear_autocast_cache()
