import { finaliseAllRotations } from '../lib/cloud-a/finalise-all';
import { depsFromEnvironment } from '../lib/composition';
import { withMetrics } from '../lib/metrics/invocation';

const deps = depsFromEnvironment();

/** Scheduled: completes cloud-A rotate-root rotations whose new secret was not accepted yet. */
export const handler = withMetrics('cloud-a-rotate', () => finaliseAllRotations(deps));
