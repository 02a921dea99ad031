/**
 * Role names of the cloud engines: a word, dots and dashes inside, lower case. The reference
 * engines fold a name to lower case after the policy check, so `roles/PROD` reaches `prod`
 * past a deny on `roles/prod`. Here a name has one spelling only: any upper-case letter is
 * refused, so the path the policy sees is the item's own name.
 */
import { BadRequest } from '../errors';

const NAME = /^\w(?:[\w.-]{0,126}\w)?$/;

export function roleName(raw: string): string {
  if (!NAME.test(raw)) throw new BadRequest(`invalid role name "${raw.slice(0, 64)}": use letters, digits, "_", "-" and "." (at most 128)`);
  if (raw !== raw.toLowerCase())
    throw new BadRequest(`invalid role name "${raw.slice(0, 64)}": role names are lower case; use "${raw.toLowerCase().slice(0, 64)}"`);
  return raw;
}
