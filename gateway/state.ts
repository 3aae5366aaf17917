import type { ParameterizedContext } from "koa";

/** What middleware hands down to routes on `ctx.state`. */
export interface GatewayState {
  requestId: string;
  /** The parsed JSON body: a plain object, or undefined when the request had no body. */
  body: Record<string, unknown> | undefined;
  [key: string]: unknown;
}

export type GatewayContext = ParameterizedContext<GatewayState>;
