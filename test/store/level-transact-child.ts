/**
 * A writer for the kill -9 case of test/store/level-store.test.ts: opens the embedded store at
 * argv[2] and, for round argv[3], runs WRITERS loops of transactions until killed, printing "ack <writer> <i>" once
 * each has resolved. Transaction i of writer w (id r<round>/<w>/<i>) puts a/<id> (every 5th value large), puts
 * b/<id> with ifAbsent and an index entry, checks c/<id> is absent and overwrites the
 * writer's hot key with i (ifVersion): all of it lands or none.
 */
import { LevelStore } from '../../lib/store/level-store';

const WRITERS = 4;
const store = await LevelStore.open(process.argv[2]!);
const round = process.argv[3]!;

async function writer(w: number): Promise<void> {
  const hot = await store.partition('h').get(`hot/${w}`);
  let version = hot?.version ?? 0;
  for (let i = 0; ; i++) {
    const id = `r${round}/${w}/${String(i).padStart(6, '0')}`;
    const value = i % 5 === 4 ? `${id} ${'x'.repeat(200_000)}` : id;
    const versions = await store.transact([
      { partition: 'a', key: id, value },
      { partition: 'b', key: id, value: id, ifAbsent: true, index: { name: 'by-writer', sort: id } },
      { partition: 'c', key: id, check: { ifAbsent: true } },
      { partition: 'h', key: `hot/${w}`, value: i, ...(version ? { ifVersion: version } : { ifAbsent: true }) },
    ]);
    version = versions[3]!;
    process.stdout.write(`ack ${id}\n`);
  }
}

await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
