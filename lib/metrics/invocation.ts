/**
 * Metrics around each Lambda invocation, for every function (HTTP ones through lib/lambda.ts,
 * scheduled ones in functions/*.ts): on the instance's first invocation the cold-start counter goes
 * up by one, and after every invocation (answered or thrown) the values it recorded are flushed
 * as EMF lines (emf.ts). Off Lambda nothing happens: the handler runs as is.
 *
 * One EMF buffer per process (the registry is one per process): the first wrapper made starts it
 * with its function's name; a Lambda instance runs one function, so there is only ever one.
 */
import { logError } from '../log';
import { metrics } from './catalog';
import { startEmf, type EmfBuffer } from './emf';

export type Invocation<E, C, R> = (event: E, context: C) => Promise<R>;

export interface InvocationMetrics {
  /** Where values go; undefined: EMF is off (not on Lambda). */
  emf: EmfBuffer | undefined;
  /** Whether the instance has been invoked yet (the cold start is counted on the first). */
  invoked: boolean;
}

let shared: InvocationMetrics | undefined;

/** This process's EMF buffer and cold-start state, started on first use (EMF on when on Lambda). */
export function processInvocationMetrics(functionName: string): InvocationMetrics {
  shared ??= { emf: startEmf({ functionName }), invoked: false };
  return shared;
}

/** `handler`, counting the instance's cold start and flushing EMF after each invocation. */
export function withMetrics<E, C, R>(
  functionName: string,
  handler: Invocation<E, C, R>,
  state: InvocationMetrics = processInvocationMetrics(functionName),
): Invocation<E, C, R> {
  return async (event, context) => {
    if (state.emf && !state.invoked) metrics.platform.coldStarts.inc();
    state.invoked = true;
    try {
      return await handler(event, context);
    } finally {
      try {
        state.emf?.flush();
      } catch (e) {
        // Metrics never fail an invocation: its answer (or its own error) stands.
        logError('emf-flush-fault', { function: functionName }, e);
      }
    }
  };
}
