/** The bundle's entry (npm run build:cli → dist/latchkey.mjs). */
import { main } from './entry';

await main();
