/** The existence check of a cloud role path: an invalid name names no role (the write then refuses it). */
import type { Partition } from '../store/store';
import { roleName } from './names';

export async function roleExists(part: Partition, raw: string): Promise<boolean> {
  let name: string;
  try {
    name = roleName(raw);
  } catch {
    return false;
  }
  return (await part.get(`role/${name}`)) !== undefined;
}
