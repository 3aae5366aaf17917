/**
 * The one JSON reading of a client's text message (services/detection/stream/client-message.ts),
 * before `hello` (where anything but an object refuses the attach) and after it (a warning).
 */
import { expect } from "chai";
import { parseClientMessage } from "../../../../services/detection/stream/client-message.js";

const read = (text: string) => parseClientMessage(Buffer.from(text, "utf8"));

describe("parseClientMessage", () => {
  it("reads a JSON object, whatever its members", () => {
    expect(read('{"type":"hello","runtime_token":"t"}')).to.deep.equal({
      ok: true,
      message: { type: "hello", runtime_token: "t" },
    });
    expect(read(" {} ")).to.deep.equal({ ok: true, message: {} });
  });

  it("says MALFORMED_JSON for text that is not JSON, one character short included", () => {
    for (const text of ["", "{", '{"type":"ping"', "hello", "{'type':'ping'}"])
      expect(read(text), text).to.deep.equal({
        ok: false,
        code: "MALFORMED_JSON",
        message: "the message is not valid JSON",
      });
  });

  it("says MESSAGE_INVALID for JSON that is not an object", () => {
    for (const text of ["[]", '[{"type":"hello"}]', "null", "1", '"hello"', "true"])
      expect(read(text), text).to.deep.equal({
        ok: false,
        code: "MESSAGE_INVALID",
        message: "a message is a JSON object with a type",
      });
  });
});
