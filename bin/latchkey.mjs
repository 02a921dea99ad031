#!/usr/bin/env node
// The latchkey CLI in a checkout: runs lib/cli through tsx (`npx latchkey …`). The
// self-contained build is dist/latchkey.mjs (`npm run build:cli`).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../lib/cli/entry.ts');
await main();
