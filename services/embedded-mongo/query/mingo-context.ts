/**
 * The mingo operator context this server evaluates queries, projections and pipelines with:
 * all of mingo's operators, except that the range operators ($gt, $gte, $lt, $lte) compare
 * with MongoDB's BSON order. mingo compares values only within one JavaScript type, so on
 * its own it would never match a Long or Decimal128 against a number (and orders Longs as
 * strings); here every numeric BSON type compares numerically, as in MongoDB.
 */
import { Context } from "mingo";
import { Aggregator as AggregatorBase } from "mingo/aggregator";
import * as accumulatorOperators from "mingo/operators/accumulator";
import * as expressionOperators from "mingo/operators/expression";
import * as pipelineOperators from "mingo/operators/pipeline";
import * as projectionOperators from "mingo/operators/projection";
import * as queryOperators from "mingo/operators/query";
import * as windowOperators from "mingo/operators/window";
import { Query as QueryBase } from "mingo/query";
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

const context = Context.init({
  accumulator: accumulatorOperators,
  expression: expressionOperators,
  pipeline: pipelineOperators,
  projection: projectionOperators,
  query: {
    ...queryOperators,
    $gt: rangeOperator((c) => c > 0),
    $gte: rangeOperator((c) => c >= 0),
    $lt: rangeOperator((c) => c < 0),
    $lte: rangeOperator((c) => c <= 0),
  },
  window: windowOperators,
} as never);

/** Server-side JavaScript ($where, $function, $accumulator) is never run by this server. */
export const MINGO_OPTIONS = { scriptEnabled: false, context } as const;

export class MingoQuery extends QueryBase<Doc> {
  constructor(condition: Doc) {
    super(condition, MINGO_OPTIONS as never);
  }
}

export class MingoAggregator extends AggregatorBase {
  constructor(pipeline: Doc[], collectionResolver: (name: string) => Doc[]) {
    super(pipeline, { ...MINGO_OPTIONS, collectionResolver } as never);
  }
}
