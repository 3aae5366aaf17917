/**
 * A preload (`node --import tsx --import ./test/support/shifted-clock.ts`) that moves the calendar
 * of this process CLOCK_SHIFT_DAYS days ahead: `Date.now()`, `new Date()` and `Date()` read the
 * shifted clock. Dates built from a value, timers and `performance.now()` are untouched: they are
 * not calendars. With it, a test that only passes before some date (a time bomb) fails today.
 * Used by test/suite/any-date.test.ts. Pass it with `--import` flags, not NODE_OPTIONS: with both
 * tsx and this preload in NODE_OPTIONS, mocha hangs at start on Node 20.
 */
const days = Number(process.env.CLOCK_SHIFT_DAYS ?? "0");
if (!Number.isFinite(days)) throw new Error(`CLOCK_SHIFT_DAYS must be a number of days: ${days}`);
const shiftMs = days * 86_400_000;
const RealDate = Date;
const shiftedNow = () => RealDate.now() + shiftMs;

globalThis.Date = new Proxy(RealDate, {
  apply: () => new RealDate(shiftedNow()).toString(),
  construct: (target, args, newTarget) =>
    Reflect.construct(target, args.length === 0 ? [shiftedNow()] : args, newTarget),
  get: (target, property, receiver) =>
    property === "now" ? shiftedNow : Reflect.get(target, property, receiver),
});
