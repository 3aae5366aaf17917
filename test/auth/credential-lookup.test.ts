import { DEFAULT_TOKEN_SETTINGS } from "@movement-detection/shared/tokens";
import { expect } from "chai";
import { hashSecret } from "../../services/auth/domain/secrets.js";
import { createFailureLimiter } from "../../services/auth/operations/failure-limiter.js";
import { createTokenExchange } from "../../services/auth/operations/token-exchange.js";
import type { TokenSigner } from "../../services/auth/signing/token-signer.js";
import type {
  CredentialRecord,
  CredentialsStore,
} from "../../services/auth/store/credentials-store.js";
import type { ProjectsStore } from "../../services/auth/store/projects-store.js";

const PEPPER = "p".repeat(32);
const KNOWN_ID = "0195a2b4-7c1d-7000-8000-000000000001";
const SECRET = `msk_${"s".repeat(43)}`;

/**
 * Whether a credential id exists must not change what the exchange does with a wrong secret: the
 * store sees the very same calls (by the hash of the presented secret, never by id), so the
 * timing cannot differ by more than the noise of identical work. bench/auth/credential-lookup
 * measures it (10,000 calls each).
 */
describe("credential lookup: the same work whether the id exists or not", () => {
  const known: CredentialRecord = {
    _id: KNOWN_ID,
    type: "api_key",
    organization_id: "o",
    project_id: "p",
    name: "k",
    scopes: [],
    secret_hint: SECRET.slice(0, 8),
    secret_hash: hashSecret(PEPPER, SECRET),
    created_at: new Date(0),
  } as CredentialRecord;

  function exchangeRecording() {
    const calls: string[] = [];
    const credentials = new Proxy({} as CredentialsStore, {
      get:
        (_target, method: string) =>
        async (...args: unknown[]) => {
          calls.push(`${method}(${args.map((a) => JSON.stringify(a)).join(",")})`);
          if (method === "findByHash") {
            return args[0] === known.secret_hash && args[1] === known.type ? known : null;
          }
          return method === "find" && args[0] === KNOWN_ID ? known : null;
        },
    });
    const exchange = createTokenExchange({
      credentials,
      projects: { find: async () => null } as unknown as ProjectsStore,
      pepper: PEPPER,
      signer: {} as TokenSigner,
      settings: DEFAULT_TOKEN_SETTINGS,
      limiter: createFailureLimiter({ points: 1000, windowSeconds: 60, blockSeconds: 60 }),
    });
    return { exchange, calls };
  }

  it("a known id with a wrong secret and an unknown id make identical store calls", async () => {
    const wrong = `msk_${"w".repeat(43)}`;
    const outcomes: string[][] = [];
    for (const id of [KNOWN_ID, "0195a2b4-7c1d-7000-8000-0000000000ff"]) {
      const { exchange, calls } = exchangeRecording();
      const error = await exchange
        .mint({ api_key_id: id, api_key_secret: wrong, clientAddress: "a" })
        .then(
          () => "minted",
          (e: Error) => e.message,
        );
      expect(error).to.equal("[unauthenticated] the credential is not valid");
      outcomes.push(calls);
    }
    expect(outcomes[0]).to.deep.equal(outcomes[1]);
    expect(outcomes[0].some((call) => call.startsWith("find("))).to.equal(false);
  });

  it("the right secret with another id is refused too (the id is still checked)", async () => {
    const { exchange } = exchangeRecording();
    const error = await exchange
      .mint({
        api_key_id: "0195a2b4-7c1d-7000-8000-0000000000ff",
        api_key_secret: SECRET,
        clientAddress: "a",
      })
      .then(
        () => "minted",
        (e: Error) => e.message,
      );
    expect(error).to.equal("[unauthenticated] the credential is not valid");
  });
});
