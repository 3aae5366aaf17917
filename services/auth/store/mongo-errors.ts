import { MongoServerError } from "mongodb";

/** True for a unique-index violation (E11000), which callers turn into ALREADY_EXISTS. */
export function isDuplicateKey(error: unknown): boolean {
  return error instanceof MongoServerError && error.code === 11000;
}
