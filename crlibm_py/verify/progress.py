"""Progress on stderr: a bar with ETA on a terminal, else a line every `every` s."""
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
    """Counts inputs done out of `total`. On a terminal the bar is redrawn at
    most every `interval` s; elsewhere (a pipe, a log file) a plain line is
    written at least every `every` s while the run lasts. Every write is flushed."""

    def __init__(self, total, stream=None, interval=0.25, width=30, every=30.0):
        self.total = max(int(total), 1)
        self.stream = stream if stream is not None else sys.stderr
        self.live = bool(getattr(self.stream, "isatty", lambda: False)())
        self.interval = interval
        self.every = every
        self.width = width
        self.done = 0
        self.label = ""
        self.start = time.monotonic()
        self._last = 0.0 if self.live else self.start

    def update(self, count, label=""):
        self.done += count
        self.label = label
        self.tick()

    def tick(self):
        """Draw the bar or write a progress line if it is time to."""
        now = time.monotonic()
        if self.live:
            if now - self._last >= self.interval or self.done >= self.total:
                self._last = now
                self._write("\r" + self.line(now) + "\x1b[K")
        elif now - self._last >= self.every:
            self._last = now
            self._write(f"progress: {self.line(now, bar=False)}\n")

    def _rate_eta(self, now):
        elapsed = now - self.start
        rate = self.done / elapsed if elapsed > 0 else 0.0
        eta = _duration((self.total - self.done) / rate) if rate > 0 else "?"
        return elapsed, rate, eta

    def line(self, now, bar=True):
        frac = min(self.done / self.total, 1.0)
        elapsed, rate, eta = self._rate_eta(now)
        tail = (f"{rate / 1e6:.1f} M inputs/s, elapsed {_duration(elapsed)}, ETA {eta}")
        if bar:
            filled = int(frac * self.width)
            return (f"[{'#' * filled}{'.' * (self.width - filled)}] {100 * frac:5.1f}% "
                    f"{self.label} {tail}")
        return (f"{self.done} of {self.total} inputs ({100 * frac:.1f}%), {tail}"
                + (f", now {self.label}" if self.label else ""))

    def _write(self, text, stream=None):
        stream = stream or self.stream
        stream.write(text)
        stream.flush()

    def message(self, text, stream=None):
        """A line of its own (on `stream`, default the progress stream), above the bar."""
        if self.live:
            self._write("\r\x1b[K")
        self._write(text + "\n", stream)
        if self.live:
            self._last = 0.0
            self.tick()

    def note(self, text):
        self.message(text)

    def finish(self, message):
        """Replace the bar with the final line (printed whether or not a TTY)."""
        if self.live:
            self.stream.write("\r\x1b[K")
        self._write(message + "\n")
