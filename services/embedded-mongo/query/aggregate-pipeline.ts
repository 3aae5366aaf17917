/**
 * Aggregation: the leading $match / $sort / $skip / $limit stages are pushed down to the
 * find executor (so they use indexes); the rest of the pipeline runs in mingo. Stages that
 * write, watch or need server internals are refused by name.
 */
import { cloneDoc, type Doc, isPlainObject } from "../bson-values.js";
import { badValue, MongoCommandError } from "../errors.js";
import { Deadline } from "../operation-deadline.js";
import {
  type DocSource,
  type FindOutcome,
  type FindRequest,
  findDocuments,
} from "./find-executor.js";
import { MingoAggregator } from "./mingo-context.js";
import { withRegexOptionsResolved } from "./regex-options.js";

const UNSUPPORTED_STAGES = new Set([
  "$out",
  "$merge",
  "$changeStream",
  "$changeStreamSplitLargeEvent",
  "$currentOp",
  "$collStats",
  "$indexStats",
  "$listSessions",
  "$listLocalSessions",
  "$listSearchIndexes",
  "$planCacheStats",
  "$search",
  "$searchMeta",
  "$vectorSearch",
  "$geoNear",
  "$shardedDataDistribution",
]);

/** Stages that never modify their input documents (so the stored ones need no copy). */
const READ_ONLY_STAGES = new Set([
  "$match",
  "$sort",
  "$skip",
  "$limit",
  "$count",
  "$group",
  "$sortByCount",
]);

/** `{ $group: { _id: 1, n: { $sum: 1 } } }`, the driver's countDocuments stage. */
function isCountGroup(stage: Doc): boolean {
  const group = stage.$group;
  if (!isPlainObject(group)) return false;
  const keys = Object.keys(group);
  const n = group.n;
  return (
    keys.length === 2 &&
    group._id === 1 &&
    isPlainObject(n) &&
    Object.keys(n).length === 1 &&
    n.$sum === 1
  );
}

export interface PipelineResult {
  docs: Doc[];
  pushdown: FindOutcome;
}

/** `deadline` is checked for every document the stages take in and give out (and by regexes). */
export function runPipeline(
  source: DocSource,
  pipeline: unknown,
  resolve: (collection: string) => Doc[],
  deadline: Deadline = Deadline.none,
): PipelineResult {
  if (!Array.isArray(pipeline)) throw badValue("'pipeline' option must be specified as an array");
  const stages = pipeline as Doc[];
  for (const stage of stages) {
    if (!isPlainObject(stage) || Object.keys(stage).length !== 1) {
      throw new MongoCommandError(
        "Location40323",
        "A pipeline stage specification object must contain exactly one field.",
      );
    }
    const name = Object.keys(stage)[0];
    if (UNSUPPORTED_STAGES.has(name)) {
      throw new MongoCommandError(
        "CommandNotSupported",
        `aggregation stage ${name} is not supported by the embedded server`,
      );
    }
  }
  const request: FindRequest = {};
  let i = 0;
  if (stages[i]?.$match !== undefined) request.filter = stages[i++].$match as Doc;
  if (stages[i]?.$sort !== undefined) request.sort = stages[i++].$sort as Doc;
  if (stages[i]?.$skip !== undefined) request.skip = Number(stages[i++].$skip);
  if (stages[i]?.$limit !== undefined) {
    const limit = Number(stages[i++].$limit);
    if (!(limit > 0)) throw badValue("the limit must be positive");
    request.limit = limit;
  }
  const pushdown = findDocuments(source, { ...request, deadline });
  // A later $match is mingo's alone: its `x` regex options are resolved here too.
  const rest = stages
    .slice(i)
    .map((stage) =>
      stage.$match !== undefined
        ? { ...stage, $match: withRegexOptionsResolved(stage.$match) }
        : stage,
    );
  if (rest.length === 0) return { docs: pushdown.docs, pushdown };
  if (rest.length === 1 && isCountGroup(rest[0])) {
    // What countDocuments sends: answer without materialising a group.
    const n = pushdown.docs.length;
    return { docs: n > 0 ? [{ _id: 1, n }] : [], pushdown };
  }
  const readOnly = rest.every((s) => READ_ONLY_STAGES.has(Object.keys(s)[0]));
  const input = readOnly ? pushdown.docs : pushdown.docs.map(cloneDoc);
  try {
    const aggregator = new MingoAggregator(rest, resolve);
    const docs = deadline.run(() => {
      const out: Doc[] = [];
      for (const doc of aggregator.stream(ticking(input, deadline)) as Iterable<Doc>) {
        deadline.tick();
        out.push(doc);
      }
      return out;
    });
    return { docs, pushdown };
  } catch (error) {
    if (error instanceof MongoCommandError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    const unknownStage = /unregistered pipeline operator (\$\w+)/.exec(message);
    if (unknownStage) {
      throw new MongoCommandError(
        "Location40324",
        `Unrecognized pipeline stage name: '${unknownStage[1]}' (not supported by the embedded server)`,
      );
    }
    throw badValue(`aggregation failed: ${message}`);
  }
}

function* ticking(docs: Doc[], deadline: Deadline): Generator<Doc> {
  for (const doc of docs) {
    deadline.tick();
    yield doc;
  }
}
