"""Atomic output: write to a temporary file beside the target, then os.replace, so that a failure
never leaves a partial file where the user expects a result."""

import json
import os
import tempfile


def _umask_mode():
    # mkstemp creates files 0600; results should get the usual permissions (0666 minus the umask).
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_text(path, text):
    """Write `text` to `path` atomically (temporary file in the same directory, then os.replace)."""
    _write(path, text, "w")


def write_bytes(path, data):
    """Write `data` (bytes) to `path` atomically, as write_text."""
    _write(path, data, "wb")


def _write(path, content, mode):
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, mode) as f:
            f.write(content)
        os.chmod(tmp, _umask_mode())
        os.replace(tmp, path)
    except BaseException:
        # Never leave the temporary behind, whatever stopped us (including Ctrl-C).
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_json(path, obj, compact=False):
    """Write `obj` as JSON atomically; `compact` drops indentation to keep large graphs small."""
    if compact:
        text = json.dumps(obj, separators=(",", ":"))
    else:
        text = json.dumps(obj, indent=1)
    write_text(path, text + "\n")


def write_files(pairs):
    """Write several (path, text) pairs so that either all of them appear or none does: every text goes to
    a temporary file first, and the renames happen only once all writes succeeded."""
    temps = []
    try:
        for path, text in pairs:
            directory = os.path.dirname(os.path.abspath(path))
            os.makedirs(directory, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".tmp", dir=directory)
            temps.append((tmp, path))
            with os.fdopen(fd, "w") as f:
                f.write(text)
            os.chmod(tmp, _umask_mode())
        for tmp, path in temps:
            os.replace(tmp, path)
        temps = []
    finally:
        for tmp, _ in temps:
            try:
                os.unlink(tmp)
            except OSError:
                pass
