//! Small media files made in code: a WAV tone and a PNG image of any size; and a video clip,
//! made by ffmpeg.

/// A 16-bit PCM WAV of `seconds` at `rate` Hz, mono, a 440 Hz tone.
pub fn wav(seconds: f64, rate: u32) -> Vec<u8> {
    tone_and_silence(&[(seconds, true)], rate)
}

/// A WAV of exactly `bytes` bytes: a header and noise, probed as audio and incompressible like
/// real audio (for benchmarks of large files).
pub fn noise_wav(bytes: usize) -> Vec<u8> {
    let mut wav = wav(0.01, 8000);
    wav.truncate(44);
    let data = (bytes - 44) as u32;
    wav[4..8].copy_from_slice(&(36 + data).to_le_bytes());
    wav[40..44].copy_from_slice(&data.to_le_bytes());
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    wav.extend((0..bytes - 44).map(|_| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x as u8
    }));
    wav
}

/// A 16-bit PCM mono WAV at `rate` Hz made of parts: `(seconds, true)` a 440 Hz tone,
/// `(seconds, false)` digital silence. Silences sit at known positions, for analysis tests.
pub fn tone_and_silence(parts: &[(f64, bool)], rate: u32) -> Vec<u8> {
    let mut samples: Vec<i16> = Vec::new();
    for (seconds, tone) in parts {
        let frames = (seconds * f64::from(rate)).round() as u32;
        samples.extend((0..frames).map(|i| {
            let t = f64::from(i) / f64::from(rate);
            if *tone {
                (f64::sin(t * 440.0 * std::f64::consts::TAU) * 8000.0) as i16
            } else {
                0
            }
        }));
    }
    pcm_wav(&samples, rate)
}

/// A 16-bit PCM mono WAV of `samples` at `rate` Hz.
pub fn pcm_wav(samples: &[i16], rate: u32) -> Vec<u8> {
    let data_len = (samples.len() * 2) as u32;
    let mut out = Vec::with_capacity(44 + data_len as usize);
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(36 + data_len).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes()); // PCM
    out.extend_from_slice(&1u16.to_le_bytes()); // mono
    out.extend_from_slice(&rate.to_le_bytes());
    out.extend_from_slice(&(rate * 2).to_le_bytes());
    out.extend_from_slice(&2u16.to_le_bytes());
    out.extend_from_slice(&16u16.to_le_bytes());
    out.extend_from_slice(b"data");
    out.extend_from_slice(&data_len.to_le_bytes());
    for sample in samples {
        out.extend_from_slice(&sample.to_le_bytes());
    }
    out
}

/// A valid grey PNG of `width` x `height` (8-bit greyscale, stored deflate blocks).
pub fn png(width: u32, height: u32) -> Vec<u8> {
    let mut raw = Vec::with_capacity(((width + 1) * height) as usize);
    for _ in 0..height {
        raw.push(0); // filter: none
        raw.extend(std::iter::repeat_n(0x80u8, width as usize));
    }
    let mut zlib = vec![0x78, 0x01];
    let mut chunks = raw.chunks(65_535).peekable();
    if chunks.peek().is_none() {
        zlib.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
    }
    while let Some(block) = chunks.next() {
        let last = u8::from(chunks.peek().is_none());
        let len = block.len() as u16;
        zlib.push(last);
        zlib.extend_from_slice(&len.to_le_bytes());
        zlib.extend_from_slice(&(!len).to_le_bytes());
        zlib.extend_from_slice(block);
    }
    zlib.extend_from_slice(&adler32(&raw).to_be_bytes());

    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 0, 0, 0, 0]);
    for (kind, data) in [
        (b"IHDR", ihdr.as_slice()),
        (b"IDAT", zlib.as_slice()),
        (b"IEND", &[][..]),
    ] {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let mut crc_input = kind.to_vec();
        crc_input.extend_from_slice(data);
        out.extend_from_slice(&crc_input);
        out.extend_from_slice(&crc32(&crc_input).to_be_bytes());
    }
    out
}

fn adler32(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in data {
        a = (a + u32::from(byte)) % 65_521;
        b = (b + a) % 65_521;
    }
    (b << 16) | a
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for &byte in data {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A `seconds`-long H.264/AAC clip of `size` (`"1920x1080"`) in MP4: ffmpeg's moving test
/// pattern at 30 frames per second with a key frame every 2 s, and a 440 Hz tone. Made by
/// `ffmpeg` on `PATH` (Debian's package; the test command installs it); panics naming it when
/// it cannot run.
pub fn video(size: &str, seconds: u32) -> Vec<u8> {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("clip.mp4");
    let made = std::process::Command::new("ffmpeg")
        .args(["-hide_banner", "-loglevel", "error", "-y"])
        .args(["-f", "lavfi", "-i"])
        .arg(format!("testsrc2=size={size}:rate=30"))
        .args(["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000"])
        .args(["-t", &seconds.to_string()])
        .args(["-c:v", "libx264", "-preset", "ultrafast", "-g", "60"])
        .args([
            "-pix_fmt",
            "yuv420p",
            "-c:a",
            "aac",
            "-b:a",
            "96k",
            "-shortest",
        ])
        .arg(&path)
        .status()
        .expect("ffmpeg runs (Debian's package `ffmpeg`; the test command installs it)");
    assert!(made.success(), "ffmpeg made no {size} clip");
    std::fs::read(&path).expect("the clip ffmpeg wrote")
}

#[cfg(test)]
mod tests {
    #[test]
    fn crc_and_adler_match_known_values() {
        assert_eq!(super::crc32(b"123456789"), 0xcbf4_3926);
        assert_eq!(super::adler32(b"Wikipedia"), 0x11e6_0398);
    }
}
