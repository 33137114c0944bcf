// The listener's web page: send a turn (typed, recorded, with a camera snapshot or clip), then
// follow its events as they stream: the chain of empathy fills in step by step, the reply is
// written word by word, each sentence is spoken as soon as it is ready, the avatar video joins
// the voice in step when it is rendered. No build step: plain modern JavaScript.
"use strict";

const $ = (id) => document.getElementById(id);
const STAGES = {  // graph step -> panel stage
  listen: "cues", look: "cues", read: "cues", perception: "cues", assess_risk: "cues",
  emotion_cause: "emotion", empathy_strategy: "strategy", crisis_protocol: "strategy", reflection: "critique",
  stay_careful: "critique",
};
const CLIP_SECONDS = 3;

const state = {
  session: null,
  attachments: {},   // kind -> {blob, name}
  busy: false,
  recorder: null,
  reply: null,       // the listener's message element being written
};

// ---------------------------------------------------------------- session

function newSessionId() {
  const bytes = new Uint8Array(6);
  crypto.getRandomValues(bytes);
  return "web-" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function useSession(id, known) {
  // A session is remembered once it has a finished turn, so a page opened later only asks for one that exists.
  state.session = id;
  $("session-id").textContent = id;
  $("messages").replaceChildren();
  drawTrajectory([]);
  if (known) loadHistory();
  else setStatus("Say what is on your mind.");
}

async function loadHistory() {
  const response = await fetch(`/v1/sessions/${state.session}`);
  if (response.status === 404) { setStatus("Say what is on your mind."); return; }
  if (!response.ok) { setStatus(await problem(response), true); return; }
  const view = await response.json();
  for (const turn of view.turns) {
    addMessage("person", turn.user);
    addMessage("listener", turn.reply, `${turn.emotion} · ${turn.strategy}`);
  }
  drawTrajectory(view.turns);
  setStatus(`${view.turns.length} earlier turn${view.turns.length === 1 ? "" : "s"} in this session.`);
}

// ---------------------------------------------------------------- page helpers

function setStatus(text, isError = false) {
  $("status").textContent = text;
  $("status").classList.toggle("error", isError);
}

async function problem(response) {
  try {
    const body = await response.json();
    return body.error ? body.error.message : `error ${response.status}`;
  } catch {
    return `error ${response.status}`;
  }
}

function addMessage(who, text, meta) {
  const item = document.createElement("li");
  item.className = who;
  const words = document.createElement("span");
  words.className = "words";
  words.textContent = text;
  item.append(words);
  if (meta) {
    const line = document.createElement("span");
    line.className = "meta";
    line.textContent = meta;
    item.append(line);
  }
  $("messages").append(item);
  item.scrollIntoView({ block: "nearest" });
  return item;
}

function setBusy(busy) {
  state.busy = busy;
  $("send").disabled = busy;
}

// ---------------------------------------------------------------- attachments

function attach(kind, blob, name) {
  if (kind === "image") delete state.attachments.video;  // an image or a video, not both
  if (kind === "video") delete state.attachments.image;
  state.attachments[kind] = { blob, name };
  showAttachments();
}

function showAttachments() {
  const list = $("attachments");
  list.replaceChildren();
  for (const [kind, { blob }] of Object.entries(state.attachments)) {
    const item = document.createElement("li");
    item.dataset.kind = kind;
    item.textContent = `${kind} (${Math.max(1, Math.round(blob.size / 1024))} KB)`;
    const remove = document.createElement("button");
    remove.type = "button";
    remove.textContent = "✕";
    remove.setAttribute("aria-label", `remove the ${kind}`);
    remove.addEventListener("click", () => { delete state.attachments[kind]; showAttachments(); });
    item.append(remove);
    list.append(item);
  }
}

function recorderType(candidates) {
  return candidates.find((type) => window.MediaRecorder && MediaRecorder.isTypeSupported(type)) || "";
}

async function record(stream, mimeType, seconds) {
  // Record ``stream`` until stopped (or for ``seconds``); resolves with the blob.
  const recorder = new MediaRecorder(stream, mimeType ? { mimeType } : undefined);
  const parts = [];
  recorder.addEventListener("dataavailable", (event) => { if (event.data.size) parts.push(event.data); });
  const finished = new Promise((resolve) => recorder.addEventListener("stop", resolve));
  recorder.start();
  if (seconds) setTimeout(() => recorder.state !== "inactive" && recorder.stop(), seconds * 1000);
  state.recorder = recorder;
  await finished;
  state.recorder = null;
  stream.getTracks().forEach((track) => track.stop());
  return new Blob(parts, { type: recorder.mimeType || mimeType || "application/octet-stream" });
}

async function toggleRecording() {
  const button = $("record");
  if (state.recorder && button.getAttribute("aria-pressed") === "true") { state.recorder.stop(); return; }
  try {
    const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    button.setAttribute("aria-pressed", "true");
    button.textContent = "■ Stop recording";
    setStatus("Recording… press the button again to stop.");
    const blob = await record(stream, recorderType(["audio/webm;codecs=opus", "audio/webm", "audio/ogg"]));
    attach("audio", blob, "recording.webm");
    setStatus("Recording attached: send it, with words or without.");
  } catch (error) {
    setStatus(`The microphone is not available: ${error.message}`, true);
  } finally {
    button.setAttribute("aria-pressed", "false");
    button.textContent = "Record";
  }
}

async function camera() {
  const stream = await navigator.mediaDevices.getUserMedia({ video: { width: 640, height: 480 } });
  const preview = $("camera");
  preview.srcObject = stream;
  preview.hidden = false;
  await preview.play().catch(() => {});
  if (preview.readyState < 2) await new Promise((resolve) => preview.addEventListener("loadeddata", resolve, { once: true }));
  return { stream, preview };
}

function closeCamera(stream) {
  stream.getTracks().forEach((track) => track.stop());
  $("camera").srcObject = null;
  $("camera").hidden = true;
}

async function snapshot() {
  try {
    const { stream, preview } = await camera();
    const canvas = document.createElement("canvas");
    canvas.width = preview.videoWidth || 640;
    canvas.height = preview.videoHeight || 480;
    canvas.getContext("2d").drawImage(preview, 0, 0, canvas.width, canvas.height);
    closeCamera(stream);
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.9));
    attach("image", blob, "snapshot.jpg");
    setStatus("Snapshot attached.");
  } catch (error) {
    setStatus(`The camera is not available: ${error.message}`, true);
  }
}

async function clip() {
  const button = $("clip");
  try {
    const { stream } = await camera();
    button.setAttribute("aria-pressed", "true");
    setStatus(`Recording a ${CLIP_SECONDS} s clip…`);
    const blob = await record(stream, recorderType(["video/webm;codecs=vp8", "video/webm"]), CLIP_SECONDS);
    closeCamera(stream);
    attach("video", blob, "clip.webm");
    setStatus("Clip attached.");
  } catch (error) {
    setStatus(`The camera is not available: ${error.message}`, true);
  } finally {
    button.setAttribute("aria-pressed", "false");
  }
}

// ---------------------------------------------------------------- the voice and the face

const voice = {
  queue: [],       // sentences not yet played: {index, url, duration}
  playing: null,   // the sentence playing now
  spoken: 0,       // seconds of the reply already played (the clock the video follows)

  reset() {
    this.queue = [];
    this.playing = null;
    this.spoken = 0;
    $("speech").pause();
    $("speech").removeAttribute("src");
    const avatar = $("avatar");
    avatar.pause();
    avatar.removeAttribute("src");
    avatar.load();
    $("avatar").parentElement.classList.remove("has-video", "speaking");
  },
  add(sentence) {
    this.queue.push(sentence);
    this.queue.sort((a, b) => a.index - b.index);
    if (!this.playing) this.next();
  },
  withdraw(keep) {
    this.queue = this.queue.filter((sentence) => sentence.index < keep);
    if (this.playing && this.playing.index >= keep) { $("speech").pause(); this.next(); }  // unsaid: not on the clock
  },
  next() {
    this.playing = this.queue.shift() || null;
    const speaking = Boolean(this.playing);
    $("avatar").parentElement.classList.toggle("speaking", speaking);
    if (!speaking) return;
    const speech = $("speech");
    speech.src = this.playing.url;
    speech.play().catch(() => setStatus("Press play to hear the listener (the browser held the sound back)."));
  },
  finished() {
    if (this.playing) this.spoken += this.playing.duration;
    this.next();
  },
  clock() {
    return this.spoken + (this.playing ? $("speech").currentTime : 0);
  },
  showVideo(url) {
    // The video carries the same voice: it plays muted, in step with the sentences still being spoken.
    const avatar = $("avatar");
    avatar.src = url;
    avatar.addEventListener("loadeddata", () => {
      avatar.parentElement.classList.add("has-video");
      avatar.currentTime = this.playing ? Math.min(this.clock(), avatar.duration || 0) : 0;
      avatar.play().catch(() => {});
    }, { once: true });
  },
};

// ---------------------------------------------------------------- the chain of empathy

function stage(name) {
  return document.querySelector(`#chain li[data-stage="${name}"]`);
}

function resetChain() {
  for (const item of document.querySelectorAll("#chain li")) {
    item.dataset.state = "idle";
    item.querySelector("dl").replaceChildren();
  }
}

function addDecisions(name, decisions) {
  const list = stage(name).querySelector("dl");
  const shown = new Set(Array.from(list.querySelectorAll("dt"), (term) => `${term.textContent}\n${term.nextSibling.textContent}`));
  for (const [label, value] of decisions) {
    if (shown.has(`${label}\n${value}`)) continue;  // a cue both sensed and read is shown once
    shown.add(`${label}\n${value}`);
    const term = document.createElement("dt");
    term.textContent = label;
    const detail = document.createElement("dd");
    detail.textContent = value;
    list.append(term, detail);
  }
}

// ---------------------------------------------------------------- the trajectory

function drawTrajectory(turns) {
  const svg = $("trajectory");
  const width = 320, height = 140, pad = 18;
  const x = (i) => turns.length < 2 ? width / 2 : pad + (i * (width - 2 * pad)) / (turns.length - 1);
  const y = (v) => height / 2 - v * (height / 2 - pad);
  const line = (key) => turns.map((t, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(t[key]).toFixed(1)}`).join(" ");
  const parts = [`<line x1="${pad}" x2="${width - pad}" y1="${height / 2}" y2="${height / 2}" stroke="#d9dde6"/>`];
  if (turns.length) {
    parts.push(`<path d="${line("arousal")}" fill="none" stroke="#b4532a" stroke-width="2" stroke-dasharray="4 3"/>`);
    parts.push(`<path d="${line("valence")}" fill="none" stroke="#3b6ea8" stroke-width="2.5"/>`);
    turns.forEach((t, i) => {
      parts.push(`<circle cx="${x(i).toFixed(1)}" cy="${y(t.valence).toFixed(1)}" r="4" fill="#3b6ea8"><title>turn ${i + 1}: ${t.emotion}</title></circle>`);
      parts.push(`<text x="${x(i).toFixed(1)}" y="${height - 4}" font-size="10" text-anchor="middle" fill="#5d6475">${t.emotion}</text>`);
    });
  } else {
    parts.push(`<text x="${width / 2}" y="${height / 2 - 8}" font-size="11" text-anchor="middle" fill="#5d6475">no turns yet</text>`);
  }
  svg.innerHTML = parts.join("");
}

// ---------------------------------------------------------------- a turn and its events

async function* serverSentEvents(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, "");
      let name = "message";
      const data = [];
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith("event:")) name = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).trim());
      }
      if (data.length) yield { name, data: JSON.parse(data.join("\n")) };
    }
  }
}

const handlers = {
  queued: (d) => setStatus(d.position === 1 ? "Waiting: you are next." : `Waiting: ${d.position - 1} turns ahead of yours.`),
  started: () => setStatus("Listening…"),
  step_started: (d) => {
    const name = STAGES[d.node];
    if (name) stage(name).dataset.state = "working";
    setStatus(`${d.label}…`);
  },
  step_finished: (d) => {
    const name = STAGES[d.node];
    if (!name) return;
    stage(name).dataset.state = "done";
    if (d.node !== "reflection") addDecisions(name, d.decisions);
  },
  verdict: (d) => addDecisions("critique", [["verdict", d.verdict], ...d.issues.map((issue) => ["issue", issue])]),
  reply_started: () => {
    if (!state.reply) state.reply = addMessage("listener", "");
    state.reply.querySelector(".words").textContent = "";  // a rewrite starts over
  },
  reply_token: (d) => {
    if (!state.reply) state.reply = addMessage("listener", "");
    state.reply.querySelector(".words").textContent += d.text;
  },
  speech: (d) => voice.add({ index: d.index, url: d.url, duration: d.duration_s }),
  speech_withdrawn: (d) => voice.withdraw(d.keep),
  media: (d) => { if (d.kind === "video") voice.showVideo(d.url); },
  turn: (d) => {
    const result = d.result;
    if (!state.reply) state.reply = addMessage("listener", "");
    state.reply.querySelector(".words").textContent = result.plan.text;
    const meta = document.createElement("span");
    meta.className = "meta";
    meta.textContent = `${result.emotion.emotion} · ${result.empathy ? result.empathy.strategy : "crisis protocol"} · ${result.seconds.toFixed(1)} s`;
    state.reply.append(meta);
    for (const name of Object.values(STAGES)) {
      if (stage(name).dataset.state === "idle") stage(name).dataset.state = "skipped";
    }
    setStatus("Your turn.");
    localStorage.setItem("empathygraph-session", state.session);
    loadTrajectory();
  },
  error: (d) => setStatus(d.message, true),
};

async function loadTrajectory() {
  const response = await fetch(`/v1/sessions/${state.session}`);
  if (response.ok) drawTrajectory((await response.json()).turns);
}

async function send(event) {
  event.preventDefault();
  if (state.busy) return;
  const text = $("text").value.trim();
  if (!text && !Object.keys(state.attachments).length) { setStatus("Write something, or record or attach something first.", true); return; }
  const form = new FormData();
  if (text) form.append("text", text);
  for (const [kind, { blob, name }] of Object.entries(state.attachments)) form.append(kind, blob, name);
  const said = [text, ...Object.keys(state.attachments).map((kind) => `(${kind})`)].filter(Boolean).join(" ");
  addMessage("person", said);
  $("text").value = "";
  state.attachments = {};
  showAttachments();
  state.reply = null;
  resetChain();
  voice.reset();
  setBusy(true);
  setStatus("Sending…");
  try {
    const response = await fetch(`/v1/sessions/${state.session}/turns`, {
      method: "POST", body: form, headers: { Accept: "text/event-stream" },
    });
    if (!response.ok) { setStatus(await problem(response), true); return; }
    for await (const { name, data } of serverSentEvents(response)) {
      const handle = handlers[name];
      if (handle) handle(data);
    }
  } catch (error) {
    setStatus(`The connection broke: ${error.message}`, true);
  } finally {
    setBusy(false);
    $("text").focus();
  }
}

// ---------------------------------------------------------------- start

function start() {
  $("composer").addEventListener("submit", send);
  $("text").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) { event.preventDefault(); $("composer").requestSubmit(); }
  });
  $("record").addEventListener("click", toggleRecording);
  $("snapshot").addEventListener("click", snapshot);
  $("clip").addEventListener("click", clip);
  $("speech").addEventListener("ended", () => voice.finished());
  $("new-session").addEventListener("click", () => useSession(newSessionId(), false));
  if (!navigator.mediaDevices || !window.MediaRecorder) {
    for (const id of ["record", "snapshot", "clip"]) $(id).disabled = true;
  }
  const remembered = localStorage.getItem("empathygraph-session");
  useSession(remembered || newSessionId(), Boolean(remembered));
}

start();
