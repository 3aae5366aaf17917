/**
 * The range query operators ($gt, $gte, $lt, $lte) with MongoDB's BSON order: every numeric BSON
 * type compares numerically (mingo alone compares within one JavaScript type, so it would never
 * match a Long against a number). mingo evaluates them through its context (mingo-context.ts), and
 * the matcher's fast path (matcher.ts) calls the same functions for plain field conditions, so
 * both give the same answer by construction.
 */
import { compareValues, type Doc, typeOrder } from "../bson-values.js";
import { valuesAtPath } from "../document-paths.js";

type RangeTest = (comparison: number) => boolean;

/** A field matches when any of its values (array elements included) of the operand's type passes. */
function rangeOperator(test: RangeTest) {
  return (selector: string, operand: unknown) => {
    const path = selector.split(".");
    const order = typeOrder(operand);
    return (obj: Doc): boolean => {
      for (const raw of valuesAtPath(obj, path)) {
        const value = raw === undefined ? null : raw;
        if (typeOrder(value) === order && test(compareValues(value, operand))) return true;
      }
      if (order === 6) {
        // An array operand is also compared with the whole array value.
        for (const whole of valuesAtPath(obj, path.slice(0, -1))) {
          const value = (whole as Doc | undefined)?.[path[path.length - 1]];
          if (Array.isArray(value) && test(compareValues(value, operand))) return true;
        }
      }
      return false;
    };
  };
}

export const RANGE_OPERATORS = {
  $gt: rangeOperator((c) => c > 0),
  $gte: rangeOperator((c) => c >= 0),
  $lt: rangeOperator((c) => c < 0),
  $lte: rangeOperator((c) => c <= 0),
} as const;

export type RangeOperatorName = keyof typeof RANGE_OPERATORS;

export function isRangeOperatorName(name: string): name is RangeOperatorName {
  return Object.hasOwn(RANGE_OPERATORS, name);
}
