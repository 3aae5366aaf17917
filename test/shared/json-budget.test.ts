import { jsonBytes, leadingItemsWithin } from "@movement-detection/shared/text";
import { expect } from "chai";

describe("leadingItemsWithin (lists cut to a byte budget of JSON)", () => {
  const items = ["aé", { n: 12 }, [1, 2], "x"];
  // As the contents of a JSON array: "aé",{"n":12},[1,2],"x"
  const contents = JSON.stringify(items).slice(1, -1);
  const whole = Buffer.byteLength(contents);

  it("keeps every item when the room is exactly their bytes, commas included", () => {
    expect(leadingItemsWithin(items, whole)).to.deep.equal({ count: 4, bytes: whole });
  });

  it("drops the last item one byte short of that", () => {
    const three = Buffer.byteLength(JSON.stringify(items.slice(0, 3)).slice(1, -1));
    expect(leadingItemsWithin(items, whole - 1)).to.deep.equal({ count: 3, bytes: three });
  });

  it("counts UTF-8 bytes, not characters", () => {
    expect(jsonBytes("aé")).to.equal(5);
    expect(leadingItemsWithin(["aé"], 4).count).to.equal(0);
    expect(leadingItemsWithin(["aé"], 5).count).to.equal(1);
  });

  it("stops at the first item that does not fit, even if a later one would", () => {
    expect(leadingItemsWithin(["a-long-item", "b"], 5)).to.deep.equal({ count: 0, bytes: 0 });
  });

  it("fits nothing in no room, and an empty list in any", () => {
    expect(leadingItemsWithin(items, 0).count).to.equal(0);
    expect(leadingItemsWithin(items, -10).count).to.equal(0);
    expect(leadingItemsWithin([], 0)).to.deep.equal({ count: 0, bytes: 0 });
  });
});
