// podhost's embedded player: the page's own controls over its <audio> or <video>, the
// episode's chapters (moved by this listener's ads, from the chapters the server answers this
// browser) and its transcript followed as it plays. Allowed by its hash in the page's
// Content-Security-Policy; it reads its words and addresses from the page, so one script serves
// every page and language.
(() => {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const audio = $("media");
  const controls = $("controls");
  if (!audio || !controls) return;
  const play = $("play");
  const seek = $("seek");
  const clock = $("clock");
  const speed = $("speed");
  const words = controls.dataset;
  const SPEEDS = [1, 1.25, 1.5, 1.75, 2, 0.75];

  const hms = (seconds) => {
    const s = Math.max(0, Math.floor(seconds || 0));
    const h = Math.floor(s / 3600);
    const m = Math.floor(s / 60) % 60;
    const r = String(s % 60).padStart(2, "0");
    return h ? `${h}:${String(m).padStart(2, "0")}:${r}` : `${m}:${r}`;
  };
  const duration = () =>
    Number.isFinite(audio.duration) && audio.duration > 0 ? audio.duration : Number(seek.max) || 0;

  // The page's own controls replace the browser's once the script runs.
  audio.controls = false;
  controls.hidden = false;

  const chapters = Array.from(document.querySelectorAll("#chapters [data-start]"));
  let cues = [];
  let cueNodes = [];
  let shown = -1;
  const box = $("transcript-text");

  const paint = () => {
    const now = audio.currentTime;
    const end = duration();
    seek.max = String(end);
    seek.value = String(now);
    const said = `${hms(now)} / ${hms(end)}`;
    clock.textContent = said;
    seek.setAttribute("aria-valuetext", said);
    let current = -1;
    chapters.forEach((c, i) => {
      if (Number(c.dataset.start) / 1000 <= now + 0.05) current = i;
    });
    chapters.forEach((c, i) => {
      if (i === current) c.setAttribute("aria-current", "true");
      else c.removeAttribute("aria-current");
    });
    follow(now);
  };

  // The transcript's line being said, marked and kept in view inside its own box (never
  // scrolling the page the player is embedded in).
  const follow = (now) => {
    if (!cues.length) return;
    let i = shown;
    if (i < 0 || now < cues[i].start || now >= cues[i].end) {
      i = cues.findIndex((c) => now >= c.start && now < c.end);
    }
    if (i === shown) return;
    if (shown >= 0) cueNodes[shown].removeAttribute("aria-current");
    shown = i;
    if (i < 0) return;
    const node = cueNodes[i];
    node.setAttribute("aria-current", "true");
    const top = node.offsetTop - box.offsetTop;
    if (top < box.scrollTop || top > box.scrollTop + box.clientHeight - node.offsetHeight) {
      box.scrollTop = Math.max(0, top - box.clientHeight / 3);
    }
  };

  const playing = () => {
    const paused = audio.paused;
    play.setAttribute("aria-label", paused ? words.play : words.pause);
    play.dataset.state = paused ? "paused" : "playing";
  };

  const jump = (seconds) => {
    audio.currentTime = Math.min(Math.max(0, seconds), duration() || seconds);
    paint();
  };

  play.addEventListener("click", () => (audio.paused ? audio.play() : audio.pause()));
  seek.addEventListener("input", () => jump(Number(seek.value)));
  speed.addEventListener("click", () => {
    const next = SPEEDS[(SPEEDS.indexOf(audio.playbackRate) + 1) % SPEEDS.length];
    audio.playbackRate = next;
    speed.textContent = `${next}×`;
    speed.setAttribute("aria-label", `${words.speed} ${next}×`);
  });
  for (const event of ["play", "pause", "ended"]) audio.addEventListener(event, playing);
  for (const event of ["timeupdate", "durationchange", "loadedmetadata", "seeked"]) {
    audio.addEventListener(event, paint);
  }
  chapters.forEach((c) =>
    c.addEventListener("click", () => {
      jump(Number(c.dataset.start) / 1000);
      audio.play();
    }),
  );
  // Space or k plays and pauses, the arrows go back and forward 15 seconds, when nothing in
  // particular has the focus (a control, a link and the transcript's box keep their own keys).
  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.target !== document.body && e.target !== document.documentElement) return;
    if (e.key === " " || e.key === "k") {
      e.preventDefault();
      play.click();
    } else if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
      e.preventDefault();
      jump(audio.currentTime + (e.key === "ArrowLeft" ? -15 : 15));
    }
  });

  // This listener's chapters: their times moved by the ads their audio carries.
  const chaptersUrl = controls.dataset.chapters;
  if (chaptersUrl && chapters.length) {
    fetch(chaptersUrl)
      .then((r) => (r.ok ? r.json() : null))
      .then((json) => {
        const heard = json && Array.isArray(json.chapters) ? json.chapters : [];
        if (heard.length !== chapters.length) return;
        heard.forEach((h, i) => {
          const c = chapters[i];
          c.dataset.start = String(Math.round(Number(h.startTime) * 1000));
          const time = c.querySelector(".time");
          if (time) time.textContent = hms(Number(h.startTime));
        });
        paint();
      })
      .catch(() => {});
  }

  // The transcript: WebVTT, SubRip or the Podcasting 2.0 JSON, as lines with their times.
  const stamp = (text) => {
    const m = /(?:(\d+):)?(\d{1,2}):(\d{2})[.,](\d{1,3})/.exec(text);
    if (!m) return NaN;
    return Number(m[1] || 0) * 3600 + Number(m[2]) * 60 + Number(m[3]) + Number(`0.${m[4]}`);
  };
  const timed = (text) =>
    text
      .replace(/\r/g, "")
      .split(/\n{2,}/)
      .map((block) => {
        const lines = block.split("\n");
        const at = lines.findIndex((l) => l.includes("-->"));
        if (at < 0) return null;
        const [from, to] = lines[at].split("-->");
        const said = lines
          .slice(at + 1)
          .join(" ")
          .replace(/<[^>]*>/g, "")
          .trim();
        return { start: stamp(from), end: stamp(to), text: said };
      })
      .filter((c) => c && c.text && Number.isFinite(c.start) && Number.isFinite(c.end));
  const parse = (type, text) => {
    if (type === "application/json") {
      const segments = (JSON.parse(text) || {}).segments || [];
      return segments
        .map((s) => ({
          start: Number(s.startTime),
          end: Number(s.endTime),
          text: String(s.body || "").trim(),
        }))
        .filter((c) => c.text && Number.isFinite(c.start) && Number.isFinite(c.end));
    }
    return timed(text);
  };
  const transcriptUrl = box && box.dataset.src;
  if (transcriptUrl) {
    fetch(transcriptUrl)
      .then((r) => (r.ok ? r.text() : ""))
      .then((text) => {
        cues = parse(box.dataset.type, text);
        if (!cues.length) return;
        const list = document.createDocumentFragment();
        cueNodes = cues.map((c) => {
          const line = document.createElement("p");
          line.dataset.start = String(c.start);
          line.textContent = c.text;
          line.addEventListener("click", () => jump(c.start));
          list.appendChild(line);
          return line;
        });
        box.replaceChildren(list);
        shown = -1;
        paint();
      })
      .catch(() => {});
  }
  playing();
  paint();
})();
