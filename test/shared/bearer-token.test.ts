/**
 * The one reading of `Authorization: Bearer <token>` (services/shared/security/bearer-token.ts),
 * used by the gateway, the internal services and the detection stream's upgrade alike.
 */

import { bearerToken } from "@movement-detection/shared/security";
import { expect } from "chai";

const JWT = "eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl_-";

describe("bearerToken", () => {
  it("takes a b64token after the scheme, in any case, with spaces around it", () => {
    expect(bearerToken(`Bearer ${JWT}`)).to.equal(JWT);
    expect(bearerToken(`bearer ${JWT}`)).to.equal(JWT);
    expect(bearerToken(`BEARER   ${JWT}  `)).to.equal(JWT);
    // Every character b64token allows, and its trailing padding.
    expect(bearerToken("Bearer aZ09-._~+/==")).to.equal("aZ09-._~+/==");
    expect(bearerToken("Bearer x")).to.equal("x");
  });

  it("refuses whatever is not a b64token, one character past the grammar", () => {
    const refused = [
      undefined,
      null,
      "",
      "Bearer",
      "Bearer ",
      `Bearer${JWT}`,
      `Bearer\t${JWT}`,
      `Bearer ${JWT}\t`,
      `Bearer ${JWT},`,
      `Bearer ${JWT} second`,
      "Bearer ==",
      "Bearer ab=c",
      `Basic ${JWT}`,
      ` Bearer ${JWT}`,
    ];
    for (const header of refused) expect(bearerToken(header), String(header)).to.equal(undefined);
  });
});
