#!/usr/bin/env python3
"""Prints, as JSON, what mutagen (PyPI, pinned in scripts/test) reads from an audio file.

Used by podhost-core/tests/tags.rs to check the tags podhost writes with a second, independent
reader. Output: {"kind", "tags": {key: [text, ...]}, "chapters": [...], "tocs": [...],
"pictures": [{"mime", "type", "sha256", "len"}]}. ID3 tags are keyed by frame id (COMM by
"COMM"), Vorbis comments by their lowercased key, MP4 atoms by their name.
"""
import base64
import hashlib
import json
import sys

import mutagen
from mutagen.flac import Picture
from mutagen.id3 import ID3


def picture(mime, kind, data):
    return {"mime": mime, "type": kind, "sha256": hashlib.sha256(data).hexdigest(), "len": len(data)}


def id3_sub_frames(frames):
    title, url = None, None
    for frame in frames.values():
        if frame.FrameID == "TIT2":
            title = str(frame.text[0]) if frame.text else ""
        elif frame.FrameID == "WXXX":
            url = frame.url
    return title, url


def dump_id3(tags, out):
    for frame in tags.values():
        fid = frame.FrameID
        if fid == "APIC":
            out["pictures"].append(picture(frame.mime, int(frame.type), frame.data))
        elif fid == "CHAP":
            title, url = id3_sub_frames(frame.sub_frames)
            out["chapters"].append({
                "id": frame.element_id, "start_ms": frame.start_time, "end_ms": frame.end_time,
                "title": title, "url": url,
            })
        elif fid == "CTOC":
            out["tocs"].append({
                "id": frame.element_id,
                "top_level": bool(frame.flags & 2),
                "ordered": bool(frame.flags & 1),
                "children": list(frame.child_element_ids),
            })
        elif fid == "COMM":
            out["tags"].setdefault("COMM", []).extend(str(t) for t in frame.text)
        elif fid.startswith("T"):
            out["tags"].setdefault(fid, []).extend(str(t) for t in frame.text)


def main(path):
    f = mutagen.File(path)
    if f is None:
        raise SystemExit(f"mutagen does not know {path}")
    out = {"kind": type(f).__name__, "tags": {}, "chapters": [], "tocs": [], "pictures": []}
    tags = f.tags
    if isinstance(tags, ID3):
        dump_id3(tags, out)
    elif out["kind"] == "MP4":
        for key, values in (tags or {}).items():
            if key == "covr":
                for cover in values:
                    mime = {13: "image/jpeg", 14: "image/png"}.get(cover.imageformat, "?")
                    out["pictures"].append(picture(mime, 3, bytes(cover)))
            else:
                out["tags"][key] = [str(v) for v in values]
        for chapter in f.chapters or []:
            out["chapters"].append({"start_ms": round(chapter.start * 1000), "title": chapter.title})
    elif tags is not None:
        # Vorbis comments (Ogg Vorbis, Opus, FLAC).
        for key, value in tags:
            if key.lower() == "metadata_block_picture":
                pic = Picture(base64.b64decode(value))
                out["pictures"].append(picture(pic.mime, pic.type, pic.data))
            else:
                out["tags"].setdefault(key.lower(), []).append(value)
    for pic in getattr(f, "pictures", []) or []:
        out["pictures"].append(picture(pic.mime, pic.type, pic.data))
    json.dump(out, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main(sys.argv[1])
