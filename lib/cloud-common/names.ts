/** Role names as the reference engines accept them: a word, dots and dashes inside, lowercased. */
import { BadRequest } from '../errors';

const NAME = /^\w(?:[\w.-]{0,126}\w)?$/;

export function roleName(raw: string): string {
  const name = raw.toLowerCase();
  if (!NAME.test(name)) throw new BadRequest(`invalid role name "${raw.slice(0, 64)}": use letters, digits, "_", "-" and "." (at most 128)`);
  return name;
}
