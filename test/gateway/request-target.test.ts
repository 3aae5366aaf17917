import { expect } from "chai";
import { isAuthority } from "../../gateway/middleware/request-target.js";

describe("isAuthority (the Host check)", () => {
  it("refuses a port past 65535, a space and %00, before and after accepting a good Host", () => {
    for (let round = 0; round < 3; round += 1) {
      expect(isAuthority("gateway.example:8443")).to.equal(true);
      expect(isAuthority("gateway.example:99999")).to.equal(false);
      expect(isAuthority("gateway.example:99999")).to.equal(false);
      expect(isAuthority("a b")).to.equal(false);
      expect(isAuthority("%00")).to.equal(false);
    }
  });

  it("accepts a port at 65535, an IPv6 literal, and again after refusing 65536", () => {
    expect(isAuthority("127.0.0.1:65535")).to.equal(true);
    expect(isAuthority("127.0.0.1:65535")).to.equal(true);
    expect(isAuthority("[::1]:8080")).to.equal(true);
    expect(isAuthority("127.0.0.1:65536")).to.equal(false);
    expect(isAuthority("127.0.0.1:65535")).to.equal(true);
  });
});
