import { Writable } from "node:stream";

/** A stream collecting what is written to it as text (not a terminal: no colours, no bars). */
export function textSink(): Writable & { text: () => string } {
  let text = "";
  const sink = new Writable({
    write(chunk, _encoding, done) {
      text += chunk.toString();
      done();
    },
  }) as Writable & { text: () => string };
  sink.text = () => text;
  return sink;
}
