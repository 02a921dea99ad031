/**
 * A new root token for a local data directory, for the operator who lost theirs: `npm run admin
 * -- generate-root --local [--data-dir data]`. It opens the data directory's store itself, so it
 * runs with the server stopped (the store's lock refuses a second process), and reading the
 * directory (its local key seals the store) is the credential, as IAM is deployed: nothing is
 * served, so no remote caller can reach it. Recorded in the audit log as the deployed
 * `generate-root` is, the token as an HMAC.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { generateRoot, type RootToken } from '../sys/init';
import { openStore, storeKind, type LocalStoreKind } from './service';

export interface LocalRootOptions {
  /** Default DATA_DIR, else ./data. */
  dataDir?: string;
  /** Default LOCAL_STORE, else 'level'. */
  store?: LocalStoreKind;
}

/** Makes a root token on the data directory's store, writes it to DATA_DIR/root-token (0600) and answers it. */
export async function generateLocalRoot(o: LocalRootOptions = {}): Promise<RootToken & { file: string }> {
  const dataDir = resolve(o.dataDir ?? process.env.DATA_DIR ?? 'data');
  const kind = o.store ?? storeKind(process.env.LOCAL_STORE);
  // Opening would create a key and a store: refuse a directory the server never made.
  if (!existsSync(join(dataDir, 'local.key')) || !existsSync(join(dataDir, kind === 'level' ? 'store' : 'db'))) {
    throw new Error(
      `${dataDir} is not a local data directory (no local.key and store): give the DATA_DIR (or --data-dir) the server runs with`,
    );
  }
  let opened: Awaited<ReturnType<typeof openStore>>;
  try {
    opened = await openStore(dataDir, kind);
  } catch (e) {
    const locked = (e as { cause?: { cause?: { code?: string } } }).cause?.cause?.code === 'LEVEL_LOCKED';
    if (locked)
      throw new Error(`the server is running on ${dataDir} (its store is locked): stop it, run this again, then start it`, { cause: e });
    throw e;
  }
  const { deps, close } = opened;
  try {
    const request = {
      id: randomUUID(),
      operation: 'update',
      mountType: 'system',
      mountPoint: 'sys/',
      path: 'sys/generate-root',
      remoteAddress: 'local:admin',
    };
    await deps.audit.request(request);
    let out: RootToken;
    try {
      out = await generateRoot(deps);
    } catch (e) {
      await deps.audit.response(request, { status: 400 }, e instanceof Error ? e.message : 'failed');
      throw e;
    }
    await deps.audit.response(request, { status: 200, data: { root_token: out.rootToken, root_token_accessor: out.accessor } }, undefined);
    const file = join(dataDir, 'root-token');
    rmSync(file, { force: true });
    writeFileSync(file, out.rootToken + '\n', { mode: 0o600, flag: 'wx' });
    return { ...out, file };
  } finally {
    await close();
  }
}
