// Streams pose frames from a browser and logs detection events (no library needed).
// Your backend creates the session (POST /api/detection/sessions with its own access token) and
// hands the page `stream_url` and `runtime_token`: never put an API key in a browser.
// `nextFrame()` is your pose model's output: {seq, t, keypoints: [[x, y, z, visibility], ...]}.
export function streamPoses({ streamUrl, runtimeToken, nextFrame, onEvent }) {
  const ws = new WebSocket(streamUrl);
  const unacked = []; // frames sent but not yet durable on the server
  let ready = false;
  let lastEventSeq = 0;

  ws.onopen = () =>
    ws.send(
      JSON.stringify({ type: "hello", runtime_token: runtimeToken, last_event_seq: lastEventSeq }),
    );
  ws.onmessage = ({ data }) => {
    const message = JSON.parse(data);
    if (message.type === "ready") {
      ready = true;
      // Resume: resend what the server does not have yet.
      for (const frame of unacked)
        if (frame.seq > (message.last_seq ?? -1))
          ws.send(JSON.stringify({ type: "frame", ...frame }));
    } else if (message.type === "event" && message.event.event_seq > lastEventSeq) {
      lastEventSeq = message.event.event_seq;
      onEvent(message.event); // e.g. {type: "rep.completed", total: 3, score: 92, ...}
    } else if (message.type === "ack") {
      while (unacked.length > 0 && unacked[0].seq <= message.last_seq) unacked.shift();
    } else if (message.type === "warning" || message.type === "error") {
      console.warn(message.code, message.message);
    } else if (message.type === "end") {
      console.log("session", message.status, JSON.parse(message.terminal_outcome ?? "{}"));
    }
  };

  const timer = setInterval(() => {
    const frame = nextFrame();
    if (!frame) return;
    unacked.push(frame);
    // Do not queue without bound on a slow network: skip sending while the socket is backed up.
    if (ready && ws.bufferedAmount < 256 * 1024)
      ws.send(JSON.stringify({ type: "frame", ...frame }));
  }, 1000 / 30);

  return {
    finalize() {
      clearInterval(timer);
      ws.send(JSON.stringify({ type: "finalize" }));
    },
  };
}
