import { expect } from "chai";
import { keywordsOf, nameKeyOf } from "../../../services/catalogue/domain/keywords.js";
import { createListingCache } from "../../../services/catalogue/operations/listing-cache.js";
import { createTotalsCache } from "../../../services/catalogue/operations/totals-cache.js";

describe("catalogue caches and keywords", () => {
  describe("createTotalsCache", () => {
    const make = () => {
      let clock = 0;
      const cache = createTotalsCache({ maxAgeMs: 1000, maxEntries: 100, now: () => clock });
      return { cache, tick: (ms: number) => (clock += ms) };
    };

    it("keeps totals across writes that cannot change them", () => {
      const { cache } = make();
      cache.set([], 10, cache.generation());
      cache.set(["squat"], 4, cache.generation());
      cache.set(["plank", "hold"], 2, cache.generation());
      cache.entryChanged(["lunge"], ["lunge", "deep"]);
      expect(cache.get([])).to.equal(10);
      expect(cache.get(["squat"])).to.equal(4);
      expect(cache.get(["hold", "plank"])).to.equal(2);
      cache.entryChanged(["squat"], ["squat"]);
      expect(cache.get(["squat"])).to.equal(4);
    });

    it("drops the totals a write may change", () => {
      const { cache } = make();
      cache.set([], 10, cache.generation());
      cache.set(["squat"], 4, cache.generation());
      cache.set(["plank", "hold"], 2, cache.generation());
      cache.set(["hold"], 5, cache.generation());
      cache.entryChanged(["squat", "plank"], ["squat", "plank", "hold"]);
      expect(cache.get([])).to.equal(10);
      expect(cache.get(["squat"])).to.equal(4);
      expect(cache.get(["plank", "hold"])).to.equal(undefined);
      expect(cache.get(["hold"])).to.equal(undefined);
      cache.entryChanged(undefined, ["squat"]);
      expect(cache.get([])).to.equal(undefined);
      expect(cache.get(["squat"])).to.equal(undefined);
    });

    it("never stores a count read before a change, and forgets old totals", () => {
      const { cache, tick } = make();
      const before = cache.generation();
      cache.entryChanged(["squat"], undefined);
      cache.set(["squat"], 4, before);
      expect(cache.get(["squat"])).to.equal(undefined);
      cache.set(["squat"], 3, cache.generation());
      tick(1001);
      expect(cache.get(["squat"])).to.equal(undefined);
    });
  });

  describe("createListingCache", () => {
    it("serves until a write or the maximum age, and never stores a page read before a write", () => {
      let clock = 0;
      const cache = createListingCache<string>({ maxAgeMs: 100, maxEntries: 10, now: () => clock });
      cache.set("a", "page", cache.generation());
      expect(cache.get("a")).to.equal("page");
      const before = cache.generation();
      cache.invalidate();
      expect(cache.get("a")).to.equal(undefined);
      cache.set("a", "stale", before);
      expect(cache.get("a")).to.equal(undefined);
      cache.set("a", "fresh", cache.generation());
      clock += 101;
      expect(cache.get("a")).to.equal(undefined);
    });
  });

  describe("keywordsOf", () => {
    it("folds case and accents and splits on anything but letters and digits", () => {
      expect(keywordsOf("Élan SQUAT-jump, 3x10!", "élan again")).to.deep.equal([
        "elan",
        "squat",
        "jump",
        "3x10",
        "again",
      ]);
      expect(keywordsOf("   ", undefined)).to.deep.equal([]);
      expect(keywordsOf("x".repeat(40))[0]).to.have.length(32);
      expect(nameKeyOf("Émile Squat")).to.equal("emile squat");
    });

    it("splits scripts written without spaces into words, the same in a name and in a query", () => {
      expect(keywordsOf("深蹲练习")).to.include.members(keywordsOf("深蹲"));
      expect(keywordsOf("深蹲练习")).not.to.deep.equal(["深蹲练习"]);
      expect(keywordsOf("腕立て伏せのトレーニング")).to.include.members([
        ...keywordsOf("腕立て伏せ"),
        ...keywordsOf("トレーニング"),
      ]);
      // Half-width katakana is the same word as full-width.
      expect(keywordsOf("ﾄﾚｰﾆﾝｸﾞ")).to.deep.equal(keywordsOf("トレーニング"));
    });

    it("takes accents away, and no other mark: voicing, Indic and Thai vowel signs stay", () => {
      expect(keywordsOf("Crème brûlée Ørsted ệ")).to.deep.equal(["creme", "brulee", "ørsted", "e"]);
      // Composed and decomposed kana are one word; ク and グ are two.
      expect(keywordsOf("グラム")).to.deep.equal(keywordsOf("ク\u3099ラム"));
      expect(keywordsOf("グラム")).to.deep.equal(["グラム"]);
      expect(keywordsOf("グラム")).to.not.deep.equal(keywordsOf("クラム"));
      expect(keywordsOf("किताब")).to.deep.equal(["किताब"]);
      expect(keywordsOf("กิน")).to.deep.equal(["กิน"]);
      expect(nameKeyOf("Émile グ")).to.equal("emile グ");
      // Hebrew points and Arabic harakat are left out by writers: ignored, like accents.
      expect(keywordsOf("שָׁלוֹם")).to.deep.equal(keywordsOf("שלום"));
      expect(keywordsOf("القُرفُصاء")).to.deep.equal(keywordsOf("القرفصاء"));
      // An emoji's presentation selector is no word (it matched every entry with an emoji).
      expect(keywordsOf("Squat ❤️ 1️⃣")).to.deep.equal(["squat", "1"]);
      expect(keywordsOf("❤️")).to.deep.equal([]);
    });
  });
});
