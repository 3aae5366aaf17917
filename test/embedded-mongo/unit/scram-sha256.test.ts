import { expect } from "chai";
import {
  decodeSaslName,
  deriveScramCredential,
  parseClientFirst,
  ScramError,
  ScramServerConversation,
} from "../../../services/embedded-mongo/security/scram-sha256.js";

const bytes = (text: string): Buffer => Buffer.from(text, "utf8");

/** RFC 7677, section 3: the complete SCRAM-SHA-256 exchange for user "user", password "pencil". */
const RFC7677 = {
  password: "pencil",
  salt: Buffer.from("W22ZaJ0SNY7soEsUEjb6gQ==", "base64"),
  iterations: 4096,
  serverNonce: "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0",
  clientFirst: "n,,n=user,r=rOprNGfwEbeRWgbNEkqO",
  serverFirst:
    "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
  clientFinal:
    "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
  serverFinal: "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=",
};

function rfcConversation(userExists = true): ScramServerConversation {
  const credential = deriveScramCredential(RFC7677.password, RFC7677.salt, RFC7677.iterations);
  return new ScramServerConversation(credential, userExists, RFC7677.serverNonce);
}

describe("embedded-mongo SCRAM-SHA-256 (server side)", () => {
  it("reproduces RFC 7677's example exchange byte for byte", () => {
    const conversation = rfcConversation();
    const clientFirst = parseClientFirst(bytes(RFC7677.clientFirst));
    expect(clientFirst.username).to.equal("user");
    expect(conversation.start(clientFirst).toString()).to.equal(RFC7677.serverFirst);
    expect(conversation.finish(bytes(RFC7677.clientFinal)).toString()).to.equal(
      RFC7677.serverFinal,
    );
  });

  it("refuses a proof that is off by one bit, and an unknown user even with the right proof", () => {
    const wrong = Buffer.from("dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=", "base64");
    wrong[0] ^= 1;
    const tampered = RFC7677.clientFinal.replace(/p=.*$/, `p=${wrong.toString("base64")}`);
    const a = rfcConversation();
    a.start(parseClientFirst(bytes(RFC7677.clientFirst)));
    expect(() => a.finish(bytes(tampered))).to.throw(ScramError);

    const b = rfcConversation(false);
    b.start(parseClientFirst(bytes(RFC7677.clientFirst)));
    expect(() => b.finish(bytes(RFC7677.clientFinal))).to.throw(ScramError);
  });

  it("refuses a replayed or re-ordered conversation", () => {
    const c = rfcConversation();
    expect(() => c.finish(bytes(RFC7677.clientFinal))).to.throw(ScramError, /no client-first/);
    c.start(parseClientFirst(bytes(RFC7677.clientFirst)));
    c.finish(bytes(RFC7677.clientFinal));
    expect(() => c.finish(bytes(RFC7677.clientFinal))).to.throw(ScramError);
    expect(() => c.start(parseClientFirst(bytes(RFC7677.clientFirst)))).to.throw(ScramError);
  });

  it("refuses a client-final whose nonce or channel binding differs from the conversation's", () => {
    const otherNonce = rfcConversation();
    otherNonce.start(parseClientFirst(bytes(RFC7677.clientFirst)));
    expect(() => otherNonce.finish(bytes(RFC7677.clientFinal.replace("k0,p=", "k1,p=")))).to.throw(
      /nonce/,
    );
    const otherBinding = rfcConversation();
    otherBinding.start(parseClientFirst(bytes(RFC7677.clientFirst)));
    expect(() =>
      otherBinding.finish(bytes(RFC7677.clientFinal.replace("c=biws", "c=eSws"))),
    ).to.throw(/channel binding/);
  });

  for (const [message, reason] of [
    ["p=tls-unique,,n=user,r=abcdefghij", /channel binding/],
    ["n,a=admin,n=user,r=abcdefghij", /authorization identity/],
    ["n,,r=abcdefghij,n=user", /expected n=/],
    ["n,,n=user,r=abcdefghij,x=ext", /extensions/],
    ["n,,n=us=er,r=abcdefghij", /escape/],
    ["n,,n=user,r=short", /nonce/],
    ["n,,n=user,r=has space 1234", /nonce/],
    ["x,,n=user,r=abcdefghij", /gs2/],
    ["", /message of 0 bytes/],
    [`n,,n=${"u".repeat(2000)},r=abcdefghij`, /message of/],
  ] as const) {
    it(`refuses the client-first message '${message.slice(0, 40)}'`, () => {
      expect(() => parseClientFirst(bytes(message))).to.throw(ScramError, reason);
    });
  }

  it("refuses a client-first message that is not UTF-8", () => {
    expect(() =>
      parseClientFirst(
        Buffer.concat([bytes("n,,n="), Buffer.from([0xc3]), bytes(",r=abcdefghij")]),
      ),
    ).to.throw(ScramError, /UTF-8/);
  });

  it("decodes RFC 5802 saslnames", () => {
    expect(decodeSaslName("a=2Cb=3Dc")).to.equal("a,b=c");
    expect(() => decodeSaslName("a=2")).to.throw(ScramError);
  });

  it("never derives keys with fewer than 4096 iterations", () => {
    expect(() => deriveScramCredential("a".repeat(20), Buffer.alloc(16), 4095)).to.throw(
      RangeError,
    );
  });
});
