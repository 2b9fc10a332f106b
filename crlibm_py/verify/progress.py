"""A plain-text progress bar with ETA on stderr; silent when not a TTY."""
import sys
import time


def _duration(seconds):
    seconds = int(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    if seconds >= 60:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds}s"


class Progress:
    """Counts inputs done out of `total`; redraws at most every `interval` s."""

    def __init__(self, total, stream=None, interval=0.25, width=30):
        self.total = max(int(total), 1)
        self.stream = stream if stream is not None else sys.stderr
        self.live = bool(getattr(self.stream, "isatty", lambda: False)())
        self.interval = interval
        self.width = width
        self.done = 0
        self.start = time.monotonic()
        self._last = 0.0

    def update(self, count, label=""):
        self.done += count
        now = time.monotonic()
        if self.live and (now - self._last >= self.interval or self.done >= self.total):
            self._last = now
            self.stream.write("\r" + self.line(now, label) + "\x1b[K")
            self.stream.flush()

    def line(self, now, label=""):
        frac = min(self.done / self.total, 1.0)
        filled = int(frac * self.width)
        elapsed = now - self.start
        rate = self.done / elapsed if elapsed > 0 else 0.0
        eta = _duration((self.total - self.done) / rate) if rate > 0 else "?"
        return (f"[{'#' * filled}{'.' * (self.width - filled)}] {100 * frac:5.1f}% {label} "
                f"{rate / 1e6:.1f} M inputs/s, elapsed {_duration(elapsed)}, ETA {eta}")

    def finish(self, message):
        """Replace the bar with the final line (printed whether or not a TTY)."""
        if self.live:
            self.stream.write("\r\x1b[K")
        self.stream.write(message + "\n")
        self.stream.flush()
