/**
 * The embedded DynamoDB-compatible server (dynalite) for the local service and the tests:
 * persistent on disk under a path (LevelDB), or in memory without one. It answers
 * TransactWriteItems too (lib/store/dynalite-transact.ts), which dynalite itself does not.
 */
import type { AddressInfo } from 'node:net';
import { dynaliteWithTransactions } from './dynalite-transact';

export interface EmbeddedDynamo {
  endpoint: string;
  close(): Promise<void>;
}

export async function startEmbeddedDynamo(options: { path?: string; port?: number } = {}): Promise<EmbeddedDynamo> {
  const server = dynaliteWithTransactions({
    ...(options.path ? { path: options.path } : {}),
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
