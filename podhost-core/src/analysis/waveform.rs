//! Waveforms as BBC audiowaveform computes and stores them.
//!
//! audiowaveform mixes the channels to mono by summing the 16-bit samples of a frame in an `int`
//! and dividing by the channel count (C integer division, truncating toward zero), keeps the
//! minimum and maximum of every block of `samples_per_pixel` frames, and emits the last partial
//! block too. Stored at 8 bits, every 16-bit value is divided by 256 (truncating toward zero).

use serde_json::{Value, json};

/// A mono waveform: one `(min, max)` point per block of `samples_per_pixel` frames, in
/// audiowaveform's layout.
///
/// `data` holds the values at the waveform's resolution: for `bits == 16` the 16-bit minima
/// and maxima, for `bits == 8` those divided by 256 (from -128 to 127), exactly as they appear
/// in audiowaveform's JSON and `.dat` files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Waveform {
    /// Sample rate of the audio, in Hz.
    pub sample_rate: u32,
    /// Frames summarised by one point (the last point may cover fewer).
    pub samples_per_pixel: u32,
    /// Resolution of the values: 8 or 16.
    pub bits: u8,
    /// `min, max, min, max, …`: two values per point.
    pub data: Vec<i16>,
}

/// The `.dat` flag of 8-bit data.
const FLAG_8_BIT: u32 = 1;

/// Why bytes or JSON are not an audiowaveform waveform this module can read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a mono audiowaveform waveform: {0}")]
pub struct WaveformParseError(String);

fn bad(message: impl Into<String>) -> WaveformParseError {
    WaveformParseError(message.into())
}

impl Waveform {
    /// A coarse outline for drawing: `bars` peak heights from 0 to 100 (the largest magnitude
    /// in each stretch, against full scale). Fewer when the waveform has fewer points.
    pub fn outline(&self, bars: usize) -> Vec<u8> {
        let points = self.data.len() / 2;
        if points == 0 || bars == 0 {
            return Vec::new();
        }
        let bars = bars.min(points);
        let full = if self.bits == 8 { 128.0 } else { 32768.0 };
        (0..bars)
            .map(|bar| {
                let from = bar * points / bars;
                let to = ((bar + 1) * points / bars).max(from + 1);
                let peak = self.data[from * 2..to * 2]
                    .iter()
                    .map(|v| i32::from(*v).unsigned_abs())
                    .max()
                    .unwrap_or(0);
                ((f64::from(peak) / full * 100.0).round() as u32).min(100) as u8
            })
            .collect()
    }

    /// Number of points (`min, max` pairs): audiowaveform's `length`.
    pub fn len(&self) -> usize {
        self.data.len() / 2
    }

    /// True when the waveform has no point (the audio had no sample).
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// audiowaveform's JSON form, key for key and in its order:
    /// `{"version":2,"channels":1,"sample_rate","samples_per_pixel","bits","length","data"}`.
    /// peaks.js and waveform-data.js load it as is.
    pub fn to_json(&self) -> Value {
        json!({
            "version": 2,
            "channels": 1,
            "sample_rate": self.sample_rate,
            "samples_per_pixel": self.samples_per_pixel,
            "bits": self.bits,
            "length": self.len(),
            "data": self.data,
        })
    }

    /// audiowaveform's binary `.dat` form, version 1 (the mono layout): little-endian `i32`
    /// version, `u32` flags (bit 0: 8-bit data), `i32` sample rate, `i32` samples per pixel,
    /// `u32` length, then the `min, max` values as `i8` or little-endian `i16`.
    pub fn to_dat(&self) -> Vec<u8> {
        let wide = self.bits != 8;
        let mut out = Vec::with_capacity(20 + self.data.len() * if wide { 2 } else { 1 });
        out.extend_from_slice(&1i32.to_le_bytes());
        out.extend_from_slice(&(if wide { 0 } else { FLAG_8_BIT }).to_le_bytes());
        out.extend_from_slice(&clamp_i32(self.sample_rate).to_le_bytes());
        out.extend_from_slice(&clamp_i32(self.samples_per_pixel).to_le_bytes());
        out.extend_from_slice(&u32::try_from(self.len()).unwrap_or(u32::MAX).to_le_bytes());
        for &v in &self.data {
            if wide {
                out.extend_from_slice(&v.to_le_bytes());
            } else {
                let byte = i8::try_from(v).unwrap_or(if v < 0 { i8::MIN } else { i8::MAX });
                out.extend_from_slice(&byte.to_le_bytes());
            }
        }
        out
    }

    /// Reads audiowaveform's JSON form (version 2 with one channel, or version 1).
    pub fn from_json(value: &Value) -> Result<Self, WaveformParseError> {
        let field = |key: &str| value.get(key).and_then(Value::as_u64);
        let version = field("version").unwrap_or(1);
        if version != 1 && version != 2 {
            return Err(bad(format!("version {version}")));
        }
        if version == 2 && field("channels") != Some(1) {
            return Err(bad("only one channel is supported"));
        }
        let number = |key: &str| {
            field(key)
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| bad(format!("{key} is missing")))
        };
        let bits = match number("bits")? {
            8 => 8,
            16 => 16,
            other => return Err(bad(format!("{other} bits"))),
        };
        let data = value
            .get("data")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("data is missing"))?
            .iter()
            .map(|v| {
                v.as_i64()
                    .and_then(|n| i16::try_from(n).ok())
                    .filter(|&n| bits == 16 || i8::try_from(n).is_ok())
                    .ok_or_else(|| bad("a data value is out of range"))
            })
            .collect::<Result<Vec<i16>, _>>()?;
        let waveform = Waveform {
            sample_rate: number("sample_rate")?,
            samples_per_pixel: number("samples_per_pixel")?,
            bits,
            data,
        };
        if data_len_ok(&waveform, field("length")) {
            Ok(waveform)
        } else {
            Err(bad("length does not match the data"))
        }
    }

    /// Reads audiowaveform's binary `.dat` form (version 1, or version 2 with one channel).
    pub fn from_dat(bytes: &[u8]) -> Result<Self, WaveformParseError> {
        let word = |i: usize| -> Result<u32, WaveformParseError> {
            bytes
                .get(i..i + 4)
                .and_then(|b| <[u8; 4]>::try_from(b).ok())
                .map(u32::from_le_bytes)
                .ok_or_else(|| bad("truncated header"))
        };
        let version = word(0)?;
        let header = match version {
            1 => 20,
            2 if word(20)? == 1 => 24,
            2 => return Err(bad("only one channel is supported")),
            other => return Err(bad(format!("version {other}"))),
        };
        let bits = if word(4)? & FLAG_8_BIT != 0 { 8 } else { 16 };
        let length = usize::try_from(word(16)?).map_err(|_| bad("length"))?;
        let body = bytes.get(header..).unwrap_or_default();
        let width = if bits == 8 { 1 } else { 2 };
        let values = length.checked_mul(2).ok_or_else(|| bad("length"))?;
        if body.len() != values.saturating_mul(width) {
            return Err(bad("length does not match the data"));
        }
        let data = if bits == 8 {
            body.iter().map(|&b| i16::from(b as i8)).collect()
        } else {
            body.chunks_exact(2)
                .map(|c| i16::from_le_bytes([c[0], c[1]]))
                .collect()
        };
        Ok(Waveform {
            sample_rate: word(8)?,
            samples_per_pixel: word(12)?,
            bits,
            data,
        })
    }
}

fn data_len_ok(w: &Waveform, length: Option<u64>) -> bool {
    w.data.len() % 2 == 0 && length.is_none_or(|l| l == w.len() as u64)
}

fn clamp_i32(v: u32) -> i32 {
    i32::try_from(v).unwrap_or(i32::MAX)
}

/// Builds a waveform from 16-bit frames, block by block, in constant memory (only the output
/// grows).
#[derive(Debug)]
pub(crate) struct WaveformBuilder {
    spp: u32,
    bits: u8,
    sample_rate: u32,
    count: u32,
    min: i16,
    max: i16,
    data: Vec<i16>,
}

impl WaveformBuilder {
    /// A builder for blocks of `spp` frames (at least 1) at `bits` (8 or 16).
    pub(crate) fn new(sample_rate: u32, spp: u32, bits: u8) -> Self {
        WaveformBuilder {
            spp: spp.max(1),
            bits,
            sample_rate,
            count: 0,
            min: i16::MAX,
            max: i16::MIN,
            data: Vec::new(),
        }
    }

    /// Adds mono samples (already mixed).
    #[inline]
    pub(crate) fn push_mono(&mut self, samples: &[i16]) {
        let mut rest = samples;
        while !rest.is_empty() {
            let room = (self.spp - self.count) as usize;
            let (block, tail) = rest.split_at(room.min(rest.len()));
            let (mut lo, mut hi) = (self.min, self.max);
            for &s in block {
                lo = lo.min(s);
                hi = hi.max(s);
            }
            self.min = lo;
            self.max = hi;
            // `block.len() <= room <= spp`, so this fits.
            self.count += block.len() as u32;
            if self.count == self.spp {
                self.emit();
            }
            rest = tail;
        }
    }

    fn emit(&mut self) {
        let scale = |v: i16| if self.bits == 8 { v / 256 } else { v };
        self.data.push(scale(self.min));
        self.data.push(scale(self.max));
        self.count = 0;
        self.min = i16::MAX;
        self.max = i16::MIN;
    }

    /// The waveform, with the last partial block.
    pub(crate) fn finish(mut self) -> Waveform {
        if self.count > 0 {
            self.emit();
        }
        Waveform {
            sample_rate: self.sample_rate,
            samples_per_pixel: self.spp,
            bits: self.bits,
            data: self.data,
        }
    }
}

/// audiowaveform's mono mix of one frame: the sum of the 16-bit channel samples divided by the
/// channel count, truncating toward zero.
#[inline]
pub(crate) fn mix(sum: i32, channels: i32) -> i16 {
    let v = sum / channels.max(1);
    // The mean of i16 values is an i16; the clamp only documents it.
    v.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn blocks_and_last_partial_block() {
        let mut b = WaveformBuilder::new(8000, 3, 16);
        b.push_mono(&[1, -5, 3, 7]);
        b.push_mono(&[0, 2, -1]);
        let w = b.finish();
        assert_eq!(w.data, [-5, 3, 0, 7, -1, -1]);
        assert_eq!(w.len(), 3);
    }

    #[test]
    fn eight_bits_truncate_toward_zero() {
        let mut b = WaveformBuilder::new(8000, 2, 8);
        b.push_mono(&[-255, 255, -256, 511, i16::MIN, i16::MAX]);
        assert_eq!(b.finish().data, [0, 0, -1, 1, -128, 127]);
    }

    #[test]
    fn mix_truncates_toward_zero() {
        assert_eq!(mix(-3, 2), -1);
        assert_eq!(mix(3, 2), 1);
        assert_eq!(mix(i32::from(i16::MIN) * 2, 2), i16::MIN);
        assert_eq!(mix(7, 1), 7);
    }

    #[test]
    fn json_is_audiowaveforms() {
        let w = Waveform {
            sample_rate: 44_100,
            samples_per_pixel: 256,
            bits: 8,
            data: vec![-3, 4, 0, 0],
        };
        let text = serde_json::to_string(&w.to_json()).unwrap();
        assert_eq!(
            text,
            r#"{"version":2,"channels":1,"sample_rate":44100,"samples_per_pixel":256,"bits":8,"length":2,"data":[-3,4,0,0]}"#
        );
        assert_eq!(Waveform::from_json(&w.to_json()).unwrap(), w);
    }

    #[test]
    fn dat_is_audiowaveforms() {
        let w8 = Waveform {
            sample_rate: 44_100,
            samples_per_pixel: 512,
            bits: 8,
            data: vec![-128, 127, -1, 2],
        };
        let dat = w8.to_dat();
        let mut want = Vec::new();
        for word in [1u32, 1, 44_100, 512, 2] {
            want.extend_from_slice(&word.to_le_bytes());
        }
        want.extend_from_slice(&[0x80, 0x7f, 0xff, 0x02]);
        assert_eq!(dat, want);
        assert_eq!(Waveform::from_dat(&dat).unwrap(), w8);

        let w16 = Waveform {
            bits: 16,
            data: vec![-32768, 32767],
            ..w8
        };
        let dat = w16.to_dat();
        assert_eq!(&dat[4..8], &[0, 0, 0, 0]);
        assert_eq!(&dat[20..], &[0x00, 0x80, 0xff, 0x7f]);
        assert_eq!(Waveform::from_dat(&dat).unwrap(), w16);
        assert!(Waveform::from_dat(&dat[..21]).is_err());
        assert!(Waveform::from_dat(b"RIFF").is_err());
    }
}
