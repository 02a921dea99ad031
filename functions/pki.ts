import { handle } from 'hono/aws-lambda';
import { depsFromEnvironment } from '../lib/deps';
import { createEngineApp } from '../lib/engines';
import { pkiEngine } from '../lib/pki/engine';
import { autoTidy } from '../lib/pki/auto-tidy';

const deps = depsFromEnvironment();

export const handler = handle(createEngineApp(pkiEngine, deps));

/** Scheduled: starts due auto-tidies and resumes tidies cut short, on every pki mount. */
export async function tidyHandler(_event: unknown, context?: { getRemainingTimeInMillis?: () => number }) {
  return autoTidy(deps, Date.now() + Math.max(1000, (context?.getRemainingTimeInMillis?.() ?? 60_000) - 5000));
}
