import { expect } from "chai";
import { isAuthority } from "../../gateway/middleware/request-target.js";

describe("isAuthority (the Host check)", () => {
  it("a refused Host stays refused after an accepted one, however often it follows it", () => {
    for (let round = 0; round < 3; round += 1) {
      expect(isAuthority("gateway.example:8443")).to.equal(true);
      // Twice in a row: the second must be checked, not taken from the first's answer.
      expect(isAuthority("gateway.example:99999")).to.equal(false);
      expect(isAuthority("gateway.example:99999")).to.equal(false);
      expect(isAuthority("a b")).to.equal(false);
      expect(isAuthority("%00")).to.equal(false);
    }
  });

  it("an accepted Host is accepted again, and a second one is checked on its own", () => {
    expect(isAuthority("127.0.0.1:65535")).to.equal(true);
    expect(isAuthority("127.0.0.1:65535")).to.equal(true);
    expect(isAuthority("[::1]:8080")).to.equal(true);
    expect(isAuthority("127.0.0.1:65536")).to.equal(false);
    expect(isAuthority("127.0.0.1:65535")).to.equal(true);
  });
});
