"""Audio for the client suites: a short WAV tone, made here so no file is checked in."""

import io
import math
import struct
import wave


def tone(seconds=1.0, rate=8000):
    """A mono 16-bit WAV of a 440 Hz tone."""
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(
            b"".join(
                struct.pack("<h", int(8000 * math.sin(2 * math.pi * 440 * i / rate)))
                for i in range(int(seconds * rate))
            )
        )
    return out.getvalue()
