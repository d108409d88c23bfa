// Loads a waveform file with waveform-data, the library peaks.js loads waveforms with, and
// prints what it read as JSON: node waveform_data.js FILE json|dat
"use strict";
const fs = require("fs");
const WaveformData = require("waveform-data");

const [file, format] = process.argv.slice(2);
const bytes = fs.readFileSync(file);
const input =
  format === "json"
    ? JSON.parse(bytes.toString("utf8"))
    : bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length);
const waveform = WaveformData.create(input);
const channel = waveform.channel(0);
process.stdout.write(
  JSON.stringify({
    channels: waveform.channels,
    sample_rate: waveform.sample_rate,
    scale: waveform.scale,
    length: waveform.length,
    bits: waveform.bits,
    min: channel.min_array(),
    max: channel.max_array(),
  }),
);
