/**
 * The mingo operator context this server evaluates queries, projections and pipelines with:
 * all of mingo's operators, except that
 * - the range operators ($gt, $gte, $lt, $lte) compare with MongoDB's BSON order
 *   (range-operators.ts). mingo compares values only within one JavaScript type, so on its own it
 *   would never match a Long or Decimal128 against a number (and orders Longs as strings); here
 *   every numeric BSON type compares numerically, as in MongoDB;
 * - every regular expression a client can hand over ($regex, a RegExp in $in, $nin, $all, $not,
 *   $regexMatch, $regexFind, $regexFindAll) runs with bounded work (bounded-regex.ts), and
 *   $dateFromString refuses the format characters mingo would copy unescaped into a RegExp.
 */
import { Context } from "mingo";
import { Aggregator as AggregatorBase } from "mingo/aggregator";
import { evalExpr } from "mingo/core";
import * as accumulatorOperators from "mingo/operators/accumulator";
import * as expressionOperators from "mingo/operators/expression";
import * as pipelineOperators from "mingo/operators/pipeline";
import * as projectionOperators from "mingo/operators/projection";
import * as queryOperators from "mingo/operators/query";
import * as windowOperators from "mingo/operators/window";
import { Query as QueryBase } from "mingo/query";
import { ensureArray, flatten, isString, resolve } from "mingo/util";
import { type Doc, isPlainObject } from "../bson-values.js";
import { badValue } from "../errors.js";
import { bounded, boundedMatches, boundedTest, compileOperand } from "./bounded-regex.js";
import { RANGE_OPERATORS } from "./range-operators.js";

type QueryOperator = (selector: string, value: unknown, options: unknown) => (obj: Doc) => boolean;
type ExpressionOperator = (obj: Doc, expr: unknown, options: unknown) => unknown;

/** mingo's `$regex`, matching through the bounded engine (RegExp.test, never exec's captures). */
const boundedRegexOperator: QueryOperator = (selector, value) => {
  const regex = bounded(value as RegExp);
  const resolveOptions = { unwrapArray: true };
  const matches = (x: unknown) => isString(x) && regex.test(x);
  return (obj) => {
    const values = ensureArray(resolve(obj, selector, resolveOptions));
    return values.some(matches) || flatten(values, 1).some(matches);
  };
};

/** An operator whose operand array may hold RegExps that mingo calls `test` on. */
function withBoundedRegExps(operator: QueryOperator): QueryOperator {
  return (selector, value, options) =>
    operator(
      selector,
      Array.isArray(value) ? value.map((v) => (v instanceof RegExp ? bounded(v) : v)) : value,
      options,
    );
}

/** The evaluated `{input, regex, options}` of $regexMatch, $regexFind and $regexFindAll. */
function regexArguments(obj: Doc, expr: unknown, options: unknown, operator: string) {
  const args = evalExpr(obj, expr, options as never) as Record<string, unknown>;
  if (!isPlainObject(args)) throw badValue(`${operator} expects an object of named arguments`);
  const regex = compileOperand(args.regex, args.options, operator);
  // mingo's reading, kept: an input that is not a string (or is missing) matches nothing.
  return { regex, input: isString(args.input) ? args.input : undefined };
}

const $regexMatch: ExpressionOperator = (obj, expr, options) => {
  const { regex, input } = regexArguments(obj, expr, options, "$regexMatch");
  return input !== undefined && boundedTest(regex, input);
};

const $regexFind: ExpressionOperator = (obj, expr, options) => {
  const { regex, input } = regexArguments(obj, expr, options, "$regexFind");
  return input === undefined ? null : (boundedMatches(regex, input, false)[0] ?? null);
};

const $regexFindAll: ExpressionOperator = (obj, expr, options) => {
  const { regex, input } = regexArguments(obj, expr, options, "$regexFindAll");
  return input === undefined ? [] : boundedMatches(regex, input, true);
};

/**
 * mingo builds a RegExp from $dateFromString's format and escapes only some characters of it
 * (the first `^ . - * ? $` of each separator): a format with a quantified group would be a
 * backtracking pattern run on the client's string. Formats are dates: none needs these.
 */
const UNSAFE_DATE_FORMAT = /[\\^$|?*+()[\]{}]/;

const $dateFromString: ExpressionOperator = (obj, expr, options) => {
  const args = evalExpr(obj, expr, options as never) as Record<string, unknown>;
  const format = isPlainObject(args) ? args.format : undefined;
  const unsafe = typeof format === "string" ? UNSAFE_DATE_FORMAT.exec(format) : null;
  if (unsafe) {
    throw badValue(
      `$dateFromString: the format character '${unsafe[0]}' is not supported by the embedded server`,
    );
  }
  return (expressionOperators.$dateFromString as ExpressionOperator)(obj, expr, options);
};

const context = Context.init({
  accumulator: accumulatorOperators,
  expression: {
    ...expressionOperators,
    $regexMatch,
    $regexFind,
    $regexFindAll,
    $dateFromString,
  },
  pipeline: pipelineOperators,
  projection: projectionOperators,
  query: {
    ...queryOperators,
    ...RANGE_OPERATORS,
    $regex: boundedRegexOperator,
    $in: withBoundedRegExps(queryOperators.$in as QueryOperator),
    $nin: withBoundedRegExps(queryOperators.$nin as QueryOperator),
    $all: withBoundedRegExps(queryOperators.$all as QueryOperator),
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
