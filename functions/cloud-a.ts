import { handle } from 'hono/aws-lambda';
import { finaliseAllRotations } from '../lib/cloud-a/finalise-all';
import { cloudAEngine } from '../lib/cloud-a/engine';
import { depsFromEnvironment } from '../lib/deps';
import { createEngineApp } from '../lib/engines';

const deps = depsFromEnvironment();
export const handler = handle(createEngineApp(cloudAEngine, deps));
/** Scheduled: completes rotate-root rotations whose new secret was not accepted yet. */
export const finaliseRotations = () => finaliseAllRotations(deps);
