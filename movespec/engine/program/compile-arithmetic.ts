/** abs, min, max and mean over compiled values (min and max propagate NaN). */
export function compileArithmetic(fn: string, fs: readonly (() => number)[]): () => number {
  switch (fn) {
    case "abs": {
      const f = fs[0];
      return () => Math.abs(f());
    }
    case "min":
    case "max":
    case "mean": {
      if (fs.length === 1) return fs[0];
      if (fs.length === 2) {
        const [a, b] = fs;
        if (fn === "min") return () => Math.min(a(), b());
        if (fn === "max") return () => Math.max(a(), b());
        return () => (a() + b()) / 2;
      }
      return () => {
        let acc =
          fn === "min" ? Number.POSITIVE_INFINITY : fn === "max" ? Number.NEGATIVE_INFINITY : 0;
        for (let i = 0; i < fs.length; i++) {
          const v = fs[i]();
          if (fn === "min") acc = v < acc || Number.isNaN(v) ? v : acc;
          else if (fn === "max") acc = v > acc || Number.isNaN(v) ? v : acc;
          else acc += v;
        }
        return fn === "mean" ? acc / fs.length : acc;
      };
    }
  }
  throw new Error(`unknown function ${fn}`);
}
