"""Progress of the command line's long phases (tracing a joint graph, recording iterations, applying a
schedule: minutes on large models), on a terminal only: one status line on stderr with the phase and its
elapsed seconds, rewritten each second and cleared when the phase ends. Where stderr is not a terminal (logs,
pipes, tests) nothing is written, so the output is only the summary lines."""

import contextlib
import sys
import threading
import time

CLEAR_LINE = "\r\x1b[K"  # carriage return, then erase to the end of the line


@contextlib.contextmanager
def phase(text, stream=None, interval_s=1.0):
    """Shows `text` and the seconds since the phase began on `stream` (default stderr) while the block runs,
    where the stream is a terminal; the line is cleared however the block ends (an error, Ctrl-C)."""
    stream = stream or sys.stderr
    if not getattr(stream, "isatty", lambda: False)():  # a stream without isatty is no terminal
        yield
        return
    done = threading.Event()
    start = time.monotonic()

    def show():
        while True:
            stream.write(f"{CLEAR_LINE}{text} ... {time.monotonic() - start:.0f} s")
            stream.flush()
            if done.wait(interval_s):
                return

    shower = threading.Thread(target=show, name="memplan-torch progress", daemon=True)
    shower.start()
    try:
        yield
    finally:
        done.set()
        shower.join()
        stream.write(CLEAR_LINE)
        stream.flush()
