/** JSON-exact encoding of number arrays: NaN, the infinities and -0 become strings. */

export type EncodedNumbers = (number | "NaN" | "Infinity" | "-Infinity" | "-0")[];

export function encodeNumbers(xs: ArrayLike<number>): EncodedNumbers {
  const out: EncodedNumbers = new Array(xs.length);
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i];
    if (Number.isNaN(x)) out[i] = "NaN";
    else if (x === Number.POSITIVE_INFINITY) out[i] = "Infinity";
    else if (x === Number.NEGATIVE_INFINITY) out[i] = "-Infinity";
    else if (x === 0 && 1 / x < 0) out[i] = "-0";
    else out[i] = x;
  }
  return out;
}

export function decodeNumbers(xs: EncodedNumbers): number[] {
  return xs.map((x) => (typeof x === "number" ? x : x === "-0" ? -0 : Number(x)));
}
