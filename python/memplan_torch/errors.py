"""Errors that the command line reports as bad input (exit status 2) with a message naming the culprit."""


class MemplanTorchError(Exception):
    """Bad input or an unsupported model: the message names the op, field or file that is wrong."""
