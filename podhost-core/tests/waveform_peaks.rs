//! Our waveforms load in waveform-data (npm), the library peaks.js loads waveforms with: the
//! JSON and the `.dat` form of an 8-bit and a 16-bit waveform give back every value. Needs node
//! and `npm ci` in `tests/parsers` (scripts/test does it); without them the test says SKIPPED
//! loudly, and fails when `PODHOST_REQUIRE_EXTERNAL=1`.

use std::{io::Write, path::Path, process::Command};

use podhost_core::analysis::Waveform;
use serde_json::Value;

fn waveform_data_js() -> Option<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/parsers");
    let ready = dir.join("node_modules/waveform-data/package.json").exists()
        && Command::new("node").arg("--version").output().is_ok();
    if ready {
        return Some(dir.join("waveform_data.js"));
    }
    let what = "waveform-data (npm) or node is not installed; run scripts/test, which installs it";
    if std::env::var("PODHOST_REQUIRE_EXTERNAL").as_deref() == Ok("1") {
        panic!("{what}. PODHOST_REQUIRE_EXTERNAL=1 requires it.");
    }
    let bar = "!".repeat(78);
    let _ = writeln!(std::io::stderr(), "\n{bar}\nSKIPPED: {what}\n{bar}");
    None
}

#[test]
fn peaks_js_reads_what_we_write() {
    let Some(script) = waveform_data_js() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        Waveform {
            sample_rate: 44_100,
            samples_per_pixel: 256,
            bits: 8,
            data: vec![-128, 127, -3, 5, 0, 0, -1, 1, -100, 90],
        },
        Waveform {
            sample_rate: 8_000,
            samples_per_pixel: 800,
            bits: 16,
            data: vec![-32768, 32767, -8000, 7999, 0, 0],
        },
    ];
    for waveform in cases {
        let expected_min: Vec<i64> = waveform
            .data
            .iter()
            .step_by(2)
            .map(|v| i64::from(*v))
            .collect();
        let expected_max: Vec<i64> = waveform
            .data
            .iter()
            .skip(1)
            .step_by(2)
            .map(|v| i64::from(*v))
            .collect();
        for (format, bytes) in [
            ("json", serde_json::to_vec(&waveform.to_json()).unwrap()),
            ("dat", waveform.to_dat()),
        ] {
            let file = dir.path().join(format!("w{}.{format}", waveform.bits));
            std::fs::write(&file, bytes).unwrap();
            let out = Command::new("node")
                .arg(&script)
                .arg(&file)
                .arg(format)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let read: Value = serde_json::from_slice(&out.stdout).unwrap();
            let what = format!("{} bits, {format}", waveform.bits);
            assert_eq!(read["channels"], 1, "{what}");
            assert_eq!(read["sample_rate"], waveform.sample_rate, "{what}");
            assert_eq!(read["scale"], waveform.samples_per_pixel, "{what}");
            assert_eq!(read["bits"], waveform.bits, "{what}");
            assert_eq!(read["length"], expected_min.len(), "{what}");
            let ints = |v: &Value| -> Vec<i64> {
                v.as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_i64().unwrap())
                    .collect()
            };
            assert_eq!(ints(&read["min"]), expected_min, "{what}");
            assert_eq!(ints(&read["max"]), expected_max, "{what}");
        }
    }
}
